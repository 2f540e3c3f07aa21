import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, Infrastructure, prefixedId, putBody, readBody } from '@dojang/application';
import { TemplateCommand, templateDecider, templateStreamId, validateTemplateContent } from '@dojang/domain';
import { TEMPLATES, TemplateReadRow } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { extractTemplateVariables } from '@dojang/seals';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { CreateTemplateDto, ListTemplatesQuery } from './template.dto';
import { TemplateListResponse, TemplateResponse, TemplateSummaryResponse } from '../openapi/response-schemas';

/** List items leave the (possibly large) content out; GET /templates/{id} has it. */
export function presentTemplateSummary(row: TemplateReadRow): TemplateSummaryResponse {
  return { id: row.id, object: 'template', name: row.name, variables: row.variables, livemode: row.livemode, created_at: row.created_at };
}

/** `content` is the body read from the blob store (the row holds only its ref). */
export function presentTemplate(row: TemplateReadRow, content: string): TemplateResponse {
  return { id: row.id, object: 'template', name: row.name, variables: row.variables, content, livemode: row.livemode, created_at: row.created_at };
}

@Controller('templates')
export class TemplatesHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
  ) {}

  private async row(auth: AuthContext, id: string): Promise<TemplateReadRow | null> {
    const row = await this.infra.reads.get<TemplateReadRow>(TEMPLATES, id);
    return row && row.organization_id === auth.organization_id && row.livemode === auth.livemode ? row : null;
  }

  @Post()
  @HttpCode(201)
  async create(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: CreateTemplateDto): Promise<TemplateResponse> {
    const id = prefixedId('tmpl');
    validateTemplateContent(dto.content);
    const command: TemplateCommand = {
      type: 'CreateTemplate',
      template_id: id,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      name: dto.name,
      content_blob: await putBody(this.infra.blobs, dto.content),
      variables: extractTemplateVariables(dto.content),
      now: this.clock.now().toISOString(),
    };
    await this.commandBus.execute(
      new DecideCommand(templateDecider, templateStreamId(id), command, commandContext(auth, info)),
    );
    return presentTemplate((await this.row(auth, id)) as TemplateReadRow, dto.content);
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() query: ListTemplatesQuery): Promise<TemplateListResponse> {
    const limit = parseLimit(query.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode };
    if (query.starting_after !== undefined) {
      const cursor = await this.row(auth, query.starting_after);
      if (!cursor) throw ApiError.invalid('starting_after', 'starting_after must be the id of a template in this list.');
      where.sort_key = { $lt: cursor.sort_key };
    }
    const rows = await this.infra.reads.find<TemplateReadRow>(TEMPLATES, { where, orderBy: [{ field: 'sort_key', direction: 'desc' }], limit: limit + 1 });
    return { object: 'list', data: rows.slice(0, limit).map(presentTemplateSummary), has_more: rows.length > limit };
  }

  @Get(':id')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<TemplateResponse> {
    const row = await this.row(auth, id);
    if (!row) throw ApiError.notFound('template_not_found', 'No such template.');
    return presentTemplate(row, (await readBody(this.infra.blobs, row)) ?? '');
  }
}
