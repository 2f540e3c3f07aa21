import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, Infrastructure, prefixedId, putBody, readBody } from '@dojang/application';
import { Field, TemplateCommand, TemplateField, TemplateRole, TemplateState, templateDecider, templateStreamId, validateTemplateContent } from '@dojang/domain';
import { TEMPLATES, TemplateReadRow } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { extractTemplateVariables } from '@dojang/seals';
import { parseLimit } from '../documents/documents.http.controller';
import { presentField, toField } from '../documents/field-settings';
import { ApiError } from '../shared/api-error';
import { listPage } from '../shared/list-page';
import { Auth, AuthContext, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { CreateTemplateDto, ListTemplatesQuery, TemplateFieldDto, TemplateRoleDto, UpdateTemplateDto } from './template.dto';
import { ArchivedTemplateResponse, TemplateListResponse, TemplateResponse, TemplateSummaryResponse } from '../openapi/response-schemas';

/** Rows projected before versions (until the rebuild that version 2 of the projection runs). */
const versionOf = (row: TemplateReadRow) => row.version ?? 1;

/** List items leave the (possibly large) content and the fields out; GET /templates/{id} has them. */
export function presentTemplateSummary(row: TemplateReadRow): TemplateSummaryResponse {
  return {
    id: row.id,
    object: 'template',
    name: row.name,
    variables: row.variables,
    version: versionOf(row),
    roles: row.roles ?? [],
    archived: row.archived === true,
    livemode: row.livemode,
    created_at: row.created_at,
    updated_at: row.updated_at ?? row.created_at,
  };
}

/** `content` is the body read from the blob store (the row holds only its ref). */
export function presentTemplate(row: TemplateReadRow, content: string): TemplateResponse {
  return {
    ...presentTemplateSummary(row),
    content,
    fields: (row.fields ?? []).map((f) => ({ role: f.role, ...presentField({ ...f, participant_id: '' } as Field, undefined) })),
  };
}

/** The roles as the domain records them: the defaults filled in (cc: no PIN). */
function toRoles(dtos: TemplateRoleDto[]): TemplateRole[] {
  return dtos.map((r) => {
    const participant_role = r.participant_role ?? 'signer';
    return { role: r.role, participant_role, signing_order: r.signing_order ?? 1, auth: r.auth ?? (participant_role === 'cc' ? 'none' : 'sms_pin') };
  });
}

/** The document field conversion (toField), with the role kept and the id kept when sent back. */
function toTemplateFields(dtos: TemplateFieldDto[]): TemplateField[] {
  return dtos.map((dto, i) => {
    // An anchor is found in a document's own PDF (PUT /v1/documents/{id}/fields); a template has
    // no rendered PDF of its own, so its fields are placed by coordinates.
    if (dto.anchor !== undefined) {
      throw ApiError.invalid(`fields[${i}].anchor`, 'A template places its fields by page, x, y, width and height; anchors are resolved on a document (PUT /v1/documents/{id}/fields).');
    }
    const box = { page: dto.page!, x: dto.x!, y: dto.y!, width: dto.width!, height: dto.height! };
    const { participant_id: _p, id, ...field } = toField({ ...dto, participant_id: '' }, { box, anchor: null });
    return { id: dto.id?.toLowerCase() ?? id, role: dto.role, ...field };
  });
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

  private async present(auth: AuthContext, id: string): Promise<TemplateResponse> {
    const row = await this.row(auth, id);
    if (!row) throw ApiError.notFound('template_not_found', 'No such template.');
    return presentTemplate(row, (await readBody(this.infra.blobs, row)) ?? '');
  }

  private decide(auth: AuthContext, info: RequestInfo, id: string, build: (state: TemplateState) => TemplateCommand, allowMissing = false) {
    const source = (state: TemplateState): TemplateCommand => {
      // Another organization's template is answered like one that does not exist.
      if (!allowMissing && (!state.exists || state.organization_id !== auth.organization_id || state.livemode !== auth.livemode)) {
        throw ApiError.notFound('template_not_found', 'No such template.');
      }
      return build(state);
    };
    return this.commandBus.execute(new DecideCommand(templateDecider, templateStreamId(id), source, commandContext(auth, info), true, allowMissing));
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
      ...(dto.roles !== undefined ? { roles: toRoles(dto.roles) } : {}),
      ...(dto.fields !== undefined ? { fields: toTemplateFields(dto.fields) } : {}),
      now: this.clock.now().toISOString(),
    };
    await this.decide(auth, info, id, () => command, true);
    return presentTemplate((await this.row(auth, id)) as TemplateReadRow, dto.content);
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() query: ListTemplatesQuery): Promise<TemplateListResponse> {
    const limit = parseLimit(query.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode, archived: false };
    const { rows, has_more } = await listPage<TemplateReadRow>(
      this.infra.reads,
      { limit, starting_after: query.starting_after, ending_before: query.ending_before },
      { collection: TEMPLATES, where, sortField: 'sort_key', cursor: (id) => this.row(auth, id), noun: 'a template' },
    );
    return { object: 'list' as const, data: rows.map(presentTemplateSummary), has_more };
  }

  @Get(':id')
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<TemplateResponse> {
    return this.present(auth, id);
  }

  /** A new version with what is given; the rest carried over. Documents keep the version they came from. */
  @Patch(':id')
  async update(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: UpdateTemplateDto): Promise<TemplateResponse> {
    if (dto.content !== undefined) validateTemplateContent(dto.content);
    const body = dto.content !== undefined ? { content_blob: await putBody(this.infra.blobs, dto.content), variables: extractTemplateVariables(dto.content) } : undefined;
    const now = this.clock.now().toISOString();
    await this.decide(auth, info, id, () => ({
      type: 'UpdateTemplate',
      now,
      ...(dto.name !== undefined ? { name: dto.name } : {}),
      ...(body ? { body } : {}),
      ...(dto.roles !== undefined ? { roles: toRoles(dto.roles) } : {}),
      ...(dto.fields !== undefined ? { fields: toTemplateFields(dto.fields) } : {}),
    }));
    return this.present(auth, id);
  }

  /** A new version replacing the whole contract: name and content required, roles and fields default to none. */
  @Put(':id')
  replace(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: CreateTemplateDto): Promise<TemplateResponse> {
    return this.update(auth, info, id, { name: dto.name, content: dto.content, roles: dto.roles ?? [], fields: dto.fields ?? [] });
  }

  /** Archives: no longer listed nor usable; GET still shows it (archived: true). */
  @Delete(':id')
  async archive(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<ArchivedTemplateResponse> {
    const now = this.clock.now().toISOString();
    await this.decide(auth, info, id, () => ({ type: 'ArchiveTemplate', now }));
    const row = await this.row(auth, id);
    if (!row) throw ApiError.notFound('template_not_found', 'No such template.');
    return { id: row.id, object: 'template', archived: true, version: versionOf(row) };
  }
}
