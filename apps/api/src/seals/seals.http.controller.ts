import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, DocumentPdfService, Infrastructure } from '@dojang/application';
import { SealCommand, SealState, sealDecider, sealStreamId } from '@dojang/domain';
import { SEALS, SealReadRow } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { SealInputError, inspectSealImage, sealRenderInput } from '@dojang/seals';
import { Response } from 'express';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { createOnce, creationPrefixedId } from '../idempotency/idempotent-creation';
import { listPage } from '../shared/list-page';
import { assertStampable } from '../shared/data-url-image';
import { Auth, AuthContext, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { CreateSealDto, ListSealsQuery } from './seal.dto';
import { SealListResponse, SealResponse } from '../openapi/response-schemas';

const GENERATED_SIZE = 300;

function sealInputError(err: SealInputError): ApiError {
  const status = err.code === 'file_too_large' ? 413 : err.code === 'unsupported_file_type' ? 415 : 400;
  return new ApiError(status, 'invalid_request_error', err.code, `${err.param}: ${err.message}`, err.param);
}

@Controller('seals')
export class SealsHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  private get origin(): string {
    return this.infra.config.publicOrigin ?? `http://localhost:${this.infra.config.port}`;
  }

  present(row: SealReadRow): SealResponse {
    return {
      id: row.id,
      object: 'seal' as const,
      name: row.name,
      type: row.type,
      source: row.source,
      restricted: row.restricted,
      company_name: row.company_name,
      image: { content_type: row.image_mime, width: row.image_width, height: row.image_height, byte_size: row.image_byte_size, sha256: row.image_sha256 },
      image_url: `${this.origin}/v1/seals/${row.id}/image`,
      livemode: row.livemode,
      created_at: row.created_at,
    };
  }

  private async row(auth: AuthContext, id: string): Promise<SealReadRow> {
    const row = await this.infra.reads.get<SealReadRow>(SEALS, id);
    if (!row || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) throw ApiError.notFound('seal_not_found', 'No such seal.');
    return row;
  }

  @Post()
  @HttpCode(201)
  async create(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: CreateSealDto): Promise<SealResponse> {
    if (dto.source === undefined) throw ApiError.missing('source', 'source is required: generated or uploaded.');
    let image: SealCommand['image'];
    let name: string | undefined = dto.name;
    try {
      if (dto.source === 'generated') {
        if (dto.image !== undefined) throw ApiError.invalid('image', 'image applies to uploaded seals only; a generated seal is rendered from company_name.');
        if (dto.company_name === undefined || !dto.company_name.trim()) throw ApiError.missing('company_name', 'company_name is required for a generated seal.');
        const png = await this.pdf.renderSvg(sealRenderInput(dto.company_name, { size: GENERATED_SIZE }));
        const ref = await this.infra.blobs.put(png);
        image = { sha256: ref.sha256, byte_size: ref.byte_size, mime: 'image/png', width: GENERATED_SIZE, height: GENERATED_SIZE };
        name ??= dto.company_name.trim();
      } else {
        if (dto.company_name !== undefined) throw ApiError.invalid('company_name', 'company_name applies to generated seals only.');
        if (dto.image === undefined) throw ApiError.missing('image', 'image (a base64 data URL of a PNG or JPEG) is required for an uploaded seal.');
        if (name === undefined) throw ApiError.missing('name', 'name is required for an uploaded seal.');
        const inspected = inspectSealImage(dto.image);
        await assertStampable(this.pdf, inspected.bytes, 'image');
        const ref = await this.infra.blobs.put(inspected.bytes);
        image = { sha256: ref.sha256, byte_size: ref.byte_size, mime: inspected.mime, width: inspected.width, height: inspected.height };
      }
    } catch (err) {
      throw err instanceof SealInputError ? sealInputError(err) : err;
    }
    const id = creationPrefixedId(info.idempotency, 'seal');
    const command: SealCommand = {
      type: 'CreateSeal',
      seal_id: id,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      name,
      seal_type: dto.type ?? 'corporate',
      source: dto.source,
      company_name: dto.source === 'generated' ? (dto.company_name as string) : null,
      restricted: dto.restricted ?? false,
      image,
      now: this.clock.now().toISOString(),
    };
    const mine = (state: SealState) => state.exists && state.organization_id === auth.organization_id && state.livemode === auth.livemode;
    await createOnce(this.infra, info.idempotency, { decider: sealDecider, id: sealStreamId(id), existsCode: 'seal_exists', mine }, () =>
      this.commandBus.execute(new DecideCommand(sealDecider, sealStreamId(id), command, commandContext(auth, info))).then(() => true),
    );
    return this.present(await this.row(auth, id));
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() query: ListSealsQuery): Promise<SealListResponse> {
    const limit = parseLimit(query.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode };
    const cursor = async (id: string) => {
      const row = await this.infra.reads.get<SealReadRow>(SEALS, id);
      return row && row.organization_id === auth.organization_id && row.livemode === auth.livemode ? row : null;
    };
    const { rows, has_more } = await listPage<SealReadRow>(
      this.infra.reads,
      { limit, starting_after: query.starting_after, ending_before: query.ending_before },
      { collection: SEALS, where, sortField: 'sort_key', cursor, noun: 'a seal' },
    );
    return { object: 'list' as const, data: rows.map((r) => this.present(r)), has_more };
  }

  @Get(':id')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<SealResponse> {
    return this.present(await this.row(auth, id));
  }

  @Get(':id/image')
  async image(@Auth() auth: AuthContext, @Param('id') id: string, @Res() res: Response) {
    const row = await this.row(auth, id);
    const bytes = await this.infra.blobs.get(row.image_sha256);
    if (!bytes) throw new ApiError(500, 'api_error', 'internal_error', 'The seal image is missing from storage.');
    res.setHeader('Content-Type', row.image_mime);
    res.setHeader('Content-Length', String(bytes.length));
    res.setHeader('Cache-Control', 'private, max-age=3600');
    res.end(bytes);
  }
}
