import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Clock, CLOCK, DocumentPdfService, Infrastructure, putBody, readBody, templatePageCounts } from '@dojang/application';
import {
  DocumentPart,
  Field,
  TemplateCommand,
  TemplateField,
  TemplateRole,
  TemplateState,
  absolutePage,
  keyName,
  layParts,
  pageWithinPart,
  templateDecider,
  templateStreamId,
  validateTemplateContent,
} from '@dojang/domain';
import { TEMPLATES, TemplateReadRow } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { extractTemplateVariables } from '@dojang/seals';
import { parseLimit } from '../documents/documents.http.controller';
import { DocumentSources } from '../documents/document-sources.service';
import { DocumentPartDto } from '../documents/document.dto';
import { toAnchor } from '../documents/field-anchors';
import { presentField, toField } from '../documents/field-settings';
import { ApiError } from '../shared/api-error';
import { createOnce, creationPrefixedId } from '../idempotency/idempotent-creation';
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
    roles: (row.roles ?? []).map((r) => ({ ...r, representative: r.representative === true })),
    archived: row.archived === true,
    livemode: row.livemode,
    created_at: row.created_at,
    updated_at: row.updated_at ?? row.created_at,
  };
}

/** `content` is the body read from the blob store (the row holds only its ref); `partContents` each part's. */
export function presentTemplate(row: TemplateReadRow, content: string, partContents: Array<string | null> = []): TemplateResponse {
  const file = (f: NonNullable<DocumentPart['file']>) => ({ id: f.file_id, sha256: f.sha256, byte_size: f.byte_size, page_count: f.page_count });
  return {
    ...presentTemplateSummary(row),
    content,
    // Pages across the whole template (its parts as rendered at save), as PUT /templates takes them;
    // an anchored field keeps its nominal box until a document is made.
    fields: (row.fields ?? []).map((f) => ({
      role: f.role,
      ...presentField({ ...f, participant_id: '' } as Field, undefined),
      ...(f.anchor ? {} : { page: absolutePage({ part_pages: row.part_pages ?? null }, f) }),
    })),
    ...(row.parts
      ? {
          parts: row.parts.map((p, index) => ({ index, title: p.title, content_format: p.content_format, content: partContents[index] ?? null, file: p.file ? file(p.file) : null })),
        }
      : {}),
  };
}

/** The roles as the domain records them: the defaults filled in (cc: no PIN). */
function toRoles(dtos: TemplateRoleDto[]): TemplateRole[] {
  return dtos.map((r) => {
    const participant_role = r.participant_role ?? 'signer';
    return {
      role: keyName(r.role),
      participant_role,
      signing_order: r.signing_order ?? 1,
      auth: r.auth ?? (participant_role === 'cc' ? 'none' : 'sms_pin'),
      // Recorded only when set: roles saved before it read the same.
      ...(r.representative ? { representative: true } : {}),
    };
  });
}

/** The document field conversion (toField), with the role kept and the id kept when sent back. */
function toTemplateFields(dtos: TemplateFieldDto[]): TemplateField[] {
  return dtos.map((dto, i) => {
    let box = { page: dto.page!, x: dto.x!, y: dto.y!, width: dto.width!, height: dto.height! };
    const anchor = dto.anchor !== undefined ? toAnchor(dto.anchor) : null;
    if (anchor) {
      for (const key of ['page', 'x', 'y', 'width', 'height'] as const) {
        if (dto[key] !== undefined) {
          throw ApiError.invalid(`fields[${i}].${key}`, `fields[${i}] gives an anchor: leave page, x, y, width and height out (the anchor's offset_x, offset_y, width and height place it).`);
        }
      }
      // Checked at save in the template's own render (templatePageCounts) and found again when a
      // document is made from it (TemplateSender), in that document's parts, whose variables may
      // move it. Until then a nominal box of the anchor's size.
      box = { page: 1, x: 0, y: 0, width: anchor.width ?? 10, height: anchor.height ?? 5 };
    }
    const { participant_id: _p, id, ...field } = toField({ ...dto, participant_id: '' }, { box, anchor });
    return { id: dto.id?.toLowerCase() ?? id, role: keyName(dto.role), ...field };
  });
}

/**
 * The fields given in a request of a template of parts, each placed by coordinates on a page of
 * the whole template (every part counted once, as documents number pages), as recorded: its part
 * and the page within it, by the template's own render (`pageCounts`). A part the template does
 * not have is left for the decider to refuse (`fields[i].part`).
 */
function fieldsWithinParts(fields: TemplateField[], pageCounts: number[] | undefined, parts: DocumentPart[] | undefined): TemplateField[] {
  if (!parts || !pageCounts) return fields;
  const layout = layParts(pageCounts);
  return fields.map((f, i) => {
    if (f.anchor) return f;
    if (f.part !== undefined && (f.part < 0 || f.part >= layout.length)) return f;
    return { ...f, ...pageWithinPart(layout, f.page, f.part, `fields[${i}].page`) };
  });
}

@Controller('templates')
export class TemplatesHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
    private readonly sources: DocumentSources,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  /** Parts as POST /documents takes them: files resolved, bodies stored, the variables of every body. */
  private async storeParts(auth: AuthContext, given: DocumentPartDto[]): Promise<{ parts: DocumentPart[]; variables: string[] }> {
    const resolved = await this.sources.resolveParts(auth, given);
    resolved.forEach((p) => {
      if (p.content !== null) validateTemplateContent(p.content);
    });
    const parts = await Promise.all(
      resolved.map(async (p) => ({ title: p.title, content_blob: p.content === null ? null : await putBody(this.infra.blobs, p.content), content_format: p.content_format, file: p.file })),
    );
    const variables = [...new Set(resolved.flatMap((p) => (p.content === null ? [] : extractTemplateVariables(p.content))))];
    return { parts, variables };
  }

  private async row(auth: AuthContext, id: string): Promise<TemplateReadRow | null> {
    const row = await this.infra.reads.get<TemplateReadRow>(TEMPLATES, id);
    return row && row.organization_id === auth.organization_id && row.livemode === auth.livemode ? row : null;
  }

  private async present(auth: AuthContext, id: string): Promise<TemplateResponse> {
    const row = await this.row(auth, id);
    if (!row) throw ApiError.notFound('template_not_found', 'No such template.');
    const partContents = row.parts ? await Promise.all(row.parts.map(async (p) => (p.content_blob ? ((await readBody(this.infra.blobs, p)) ?? null) : null))) : [];
    return presentTemplate(row, row.content_blob.byte_size ? ((await readBody(this.infra.blobs, row)) ?? '') : '', partContents);
  }

  private decide(auth: AuthContext, info: RequestInfo, id: string, build: (state: TemplateState) => TemplateCommand | Promise<TemplateCommand>, allowMissing = false) {
    const source = (state: TemplateState): TemplateCommand | Promise<TemplateCommand> => {
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
    const id = creationPrefixedId(info.idempotency, 'tmpl');
    if (dto.parts !== undefined && dto.content !== undefined) throw ApiError.invalid('parts', 'Give content or parts, not both.');
    const stored = dto.parts !== undefined ? await this.storeParts(auth, dto.parts) : null;
    if (!stored) validateTemplateContent(dto.content ?? '');
    const command: TemplateCommand = {
      type: 'CreateTemplate',
      template_id: id,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      name: dto.name,
      content_blob: stored ? { sha256: '', byte_size: 0 } : await putBody(this.infra.blobs, dto.content as string),
      variables: stored ? stored.variables : extractTemplateVariables(dto.content as string),
      ...(stored ? { parts: stored.parts } : {}),
      ...(dto.roles !== undefined ? { roles: toRoles(dto.roles) } : {}),
      ...(dto.fields !== undefined ? { fields: toTemplateFields(dto.fields) } : {}),
      now: this.clock.now().toISOString(),
    };
    // The template's own pages: its fields must lie on them and its anchors be found in them.
    const page_counts = await templatePageCounts(this.pdf, {
      organization_id: auth.organization_id,
      name: dto.name ?? '',
      content_blob: command.content_blob,
      parts: command.parts,
      fields: command.fields ?? [],
      now: command.now,
    });
    if (page_counts) command.page_counts = page_counts;
    if (command.fields) command.fields = fieldsWithinParts(command.fields, page_counts, command.parts);
    const mine = (state: TemplateState) => state.exists && state.organization_id === auth.organization_id && state.livemode === auth.livemode;
    await createOnce(this.infra, info.idempotency, { decider: templateDecider, id: templateStreamId(id), existsCode: 'template_exists', mine }, () =>
      this.decide(auth, info, id, () => command, true).then(() => true),
    );
    return this.present(auth, id);
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
    if (dto.parts !== undefined && dto.content !== undefined) throw ApiError.invalid('parts', 'Give content or parts, not both.');
    if (dto.content !== undefined) validateTemplateContent(dto.content);
    const parts = dto.parts !== undefined ? await this.storeParts(auth, dto.parts) : undefined;
    const body = dto.content !== undefined ? { content_blob: await putBody(this.infra.blobs, dto.content), variables: extractTemplateVariables(dto.content) } : undefined;
    const now = this.clock.now().toISOString();
    const fields = dto.fields !== undefined ? toTemplateFields(dto.fields) : undefined;
    await this.decide(auth, info, id, async (state) => {
      const command: TemplateCommand = {
        type: 'UpdateTemplate',
        now,
        ...(dto.name !== undefined ? { name: dto.name } : {}),
        ...(body ? { body } : {}),
        ...(parts ? { parts } : {}),
        ...(dto.roles !== undefined ? { roles: toRoles(dto.roles) } : {}),
        ...(fields ? { fields } : {}),
      };
      // The pages of the template as it will be (what is not given is carried over, as the decider does).
      const page_counts = state.exists
        ? await templatePageCounts(this.pdf, {
            organization_id: auth.organization_id,
            name: dto.name ?? state.name,
            content_blob: parts ? (parts.parts[0].content_blob ?? { sha256: '', byte_size: 0 }) : body ? body.content_blob : state.content_blob,
            parts: parts ? parts.parts : body ? undefined : state.parts,
            fields: fields ?? state.fields,
            now,
          })
        : undefined;
      // Only the fields given now are placed by document pages; kept ones are recorded already.
      const effectiveParts = parts ? parts.parts : body ? undefined : state.parts;
      const placed = fields ? { fields: fieldsWithinParts(fields, page_counts, effectiveParts) } : {};
      return page_counts ? { ...command, ...placed, page_counts } : command;
    });
    return this.present(auth, id);
  }

  /** A new version replacing the whole contract: name and content required, roles and fields default to none. */
  @Put(':id')
  replace(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: CreateTemplateDto): Promise<TemplateResponse> {
    if (dto.parts === undefined && dto.content === undefined) throw ApiError.missing('content', 'content or parts is required.');
    return this.update(auth, info, id, { name: dto.name, ...(dto.parts !== undefined ? { parts: dto.parts } : { content: dto.content }), roles: dto.roles ?? [], fields: dto.fields ?? [] });
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
