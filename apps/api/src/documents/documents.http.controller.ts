import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { putBody, storedBody } from '@dojang/application';
import { FieldDtoShape, remapDuplicate } from './duplicate';
import { DOCUMENT_METADATA, DOCUMENTS, DocumentMetadataRow, DocumentRow, metadataPair } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { checkDocumentBudget, isPdfLimitError, PdfLimitError } from '@dojang/pdf';
import { CreateDocument, DocumentPart, WithoutNow } from '@dojang/domain';
import { ApiError } from '../shared/api-error';
import { creationId } from '../idempotency/idempotent-creation';
import { listPage } from '../shared/list-page';
import { Auth, AuthContext, ReqInfo, RequestInfo } from '../shared/auth.guard';
import { DocumentAccess } from './document-access.service';
import { CreateDocumentDto, ListDocumentsQuery, UpdateDocumentDto } from './document.dto';
import { DocumentSources } from './document-sources.service';
import { normalizeMetadata } from './metadata';
import { DocumentHistoryService } from '../history/document-history.service';
import { DeletedDocumentResponse, DocumentListResponse, DocumentResponse } from '../openapi/response-schemas';

@Controller('documents')
export class DocumentsHttpController {
  constructor(
    private readonly docs: DocumentAccess,
    private readonly sources: DocumentSources,
    private readonly history: DocumentHistoryService,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: CreateDocumentDto): Promise<DocumentResponse> {
    if (dto.title === undefined || !dto.title.trim()) throw ApiError.missing('title');
    if (dto.parts !== undefined) return this.createWithParts(auth, info, dto, dto.parts);
    const body = await this.sources.resolveBody(auth, dto);
    if (dto.show_title !== undefined && body.file) throw ApiError.invalid('show_title', 'show_title applies to content only: an uploaded PDF is used as it is.');
    // Budgets are checked now, from the content alone, rather than failing at render or send.
    checkDocumentBudget(body.content, body.content_format);
    return this.record(auth, info, dto, {
      content_blob: body.content === null ? null : await putBody(this.docs.infra.blobs, body.content),
      content_format: body.content_format,
      file: body.file,
      from_template: body.from_template,
      ...(body.template_version !== undefined ? { template_version: body.template_version } : {}),
    });
  }

  /** A document of several parts (document-parts.ts): each body stored, each file resolved, in order. */
  private async createWithParts(auth: AuthContext, info: RequestInfo, dto: CreateDocumentDto, given: NonNullable<CreateDocumentDto['parts']>): Promise<DocumentResponse> {
    for (const key of ['content', 'file_url', 'from_template', 'content_format', 'variables'] as const) {
      if (dto[key] !== undefined) throw ApiError.invalid(key, `${key} cannot be combined with parts: give each part its content or file_url.`);
    }
    const parts = await this.storeParts(auth, given);
    if (dto.show_title !== undefined && parts[0].file) throw ApiError.invalid('show_title', 'show_title applies to a first part with content: an uploaded PDF is used as it is.');
    return this.record(auth, info, dto, {
      content_blob: parts[0].content_blob,
      content_format: parts[0].content_format,
      file: parts[0].file,
      parts,
      from_template: null,
    });
  }

  /** Records `CreateDocument` with the body (or parts) resolved, and answers the new document. */
  private async record(
    auth: AuthContext,
    info: RequestInfo,
    dto: CreateDocumentDto,
    body: Pick<CreateDocument, 'content_blob' | 'content_format' | 'file' | 'parts' | 'from_template' | 'template_version'>,
  ): Promise<DocumentResponse> {
    const metadata = normalizeMetadata(dto.metadata, false) as Record<string, string> | undefined;
    const id = creationId(info.idempotency, 'document');
    const command: WithoutNow<CreateDocument> = {
      type: 'CreateDocument',
      document_id: id,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      title: (dto.title as string).trim(),
      ...body,
      author_name: dto.author_name?.trim() || (await this.sources.defaultAuthor(auth)),
      metadata: metadata ?? {},
      ...(dto.external_id !== undefined ? { external_id: dto.external_id } : {}),
      ...(dto.show_title === false ? { show_title: false } : {}),
    };
    await this.docs.createOnce(auth, info, id, () => this.docs.decide(auth, info, id, command, { allowMissing: true, newStream: true }).then(() => true));
    return this.docs.presentById(auth, id);
  }

  /** Parts resolved, each body held to the document budgets (naming its part) and stored. */
  private async storeParts(auth: AuthContext, given: NonNullable<CreateDocumentDto['parts']>): Promise<DocumentPart[]> {
    const resolved = await this.sources.resolveParts(auth, given);
    resolved.forEach((p, i) => {
      if (p.content === null) return;
      try {
        checkDocumentBudget(p.content, p.content_format);
      } catch (err) {
        if (isPdfLimitError(err)) throw new PdfLimitError(err.code, err.limit, `parts[${i}]: ${err.message}`, `parts[${i}].content`);
        throw err;
      }
    });
    return Promise.all(
      resolved.map(async (p) => ({
        title: p.title,
        content_blob: p.content === null ? null : await putBody(this.docs.infra.blobs, p.content),
        content_format: p.content_format,
        file: p.file,
      })),
    );
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() query: ListDocumentsQuery): Promise<DocumentListResponse> {
    const limit = parseLimit(query.limit);
    const where: Record<string, Condition> = {
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      trashed: false,
    };
    if (query.status) where.status = query.status;
    if (query.created_after !== undefined) {
      const t = Date.parse(query.created_after);
      if (!/^\d{4}-\d{2}-\d{2}/.test(query.created_after) || Number.isNaN(t)) {
        throw ApiError.invalid('created_after', 'created_after must be an ISO 8601 timestamp, e.g. 2026-01-31T00:00:00Z.');
      }
      where.created_at = { $gt: new Date(t).toISOString() };
    }
    if (query.external_id !== undefined) where.external_id = query.external_id;
    const page = { limit, starting_after: query.starting_after, ending_before: query.ending_before };
    const pair = metadataFilter(query.metadata);
    if (pair) return { object: 'list', ...(await this.byMetadata(auth, pair, where, page)) };
    const { rows, has_more } = await listPage<DocumentRow>(this.docs.infra.reads, page, {
      collection: DOCUMENTS,
      where,
      sortField: 'sort_key',
      cursor: (id) => this.docs.row(auth, id),
      noun: 'a document',
    });
    return { object: 'list', data: await Promise.all(rows.map((r) => this.docs.present(r, auth))), has_more };
  }

  /**
   * A page of the documents whose metadata holds `pair`, newest first, through the metadata rows
   * (one per document and key); the other filters (trashed, status, created_at, external_id) are
   * checked on the documents read, reading on until the page is full or the rows run out.
   */
  private async byMetadata(auth: AuthContext, pair: [string, string], where: Record<string, Condition>, page: { limit: number; starting_after?: string | undefined; ending_before?: string | undefined }) {
    if (page.starting_after !== undefined && page.ending_before !== undefined) throw ApiError.invalid('ending_before', 'starting_after and ending_before cannot be used together.');
    const param = page.ending_before !== undefined ? 'ending_before' : 'starting_after';
    const cursorId = page.ending_before ?? page.starting_after;
    const backwards = param === 'ending_before' && cursorId !== undefined;
    let bound: string | null = null;
    if (cursorId !== undefined) {
      const cursor = cursorId === '' ? null : await this.docs.row(auth, cursorId).catch(() => null);
      if (!cursor) throw ApiError.invalid(param, `${param} must be the id of a document in this list.`);
      bound = cursor.sort_key;
    }
    const matches = (row: DocumentRow) =>
      Object.entries(where).every(([field, condition]) => {
        const value = (row as unknown as Record<string, unknown>)[field];
        if (condition !== null && typeof condition === 'object') return typeof value === 'string' && typeof condition.$gt === 'string' && value > condition.$gt;
        return (value ?? null) === condition;
      });
    const found: DocumentRow[] = [];
    let exhausted = false;
    while (found.length <= page.limit && !exhausted) {
      const chunk = await this.docs.infra.reads.find<DocumentMetadataRow>(DOCUMENT_METADATA, {
        where: {
          organization_id: auth.organization_id,
          livemode: auth.livemode,
          pair: metadataPair(pair[0], pair[1]),
          ...(bound !== null ? { sort_key: backwards ? { $gt: bound } : { $lt: bound } } : {}),
        },
        orderBy: [{ field: 'sort_key', direction: backwards ? 'asc' : 'desc' }],
        limit: 100,
      });
      exhausted = chunk.length < 100;
      if (chunk.length === 0) break;
      bound = chunk[chunk.length - 1].sort_key;
      const docs = await this.docs.infra.reads.getMany<DocumentRow>(DOCUMENTS, chunk.map((r) => r.document_id));
      for (const r of chunk) {
        const doc = docs.get(r.document_id);
        if (doc && matches(doc)) found.push(doc);
      }
    }
    const rows = found.slice(0, page.limit);
    return { data: await Promise.all((backwards ? rows.reverse() : rows).map((r) => this.docs.present(r, auth))), has_more: found.length > page.limit };
  }

  @Get(':id')
  get(@Auth() auth: AuthContext, @Param('id') id: string, @Query('as_of') asOf?: unknown): Promise<DocumentResponse> {
    // Time travel: the same detail, folded from the stream up to that instant.
    const at = this.history.parseAsOf(asOf);
    return at === undefined ? this.docs.presentById(auth, id) : this.history.presentAsOf(auth, id, at);
  }

  @Patch(':id')
  async update(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: UpdateDocumentDto): Promise<DocumentResponse> {
    const metadata = normalizeMetadata(dto.metadata, true);
    if (dto.content !== undefined) checkDocumentBudget(dto.content, (await this.docs.row(auth, id)).content_format);
    if (dto.parts !== undefined && dto.content !== undefined) throw ApiError.invalid('parts', 'Give content or parts, not both.');
    const parts = dto.parts !== undefined ? await this.storeParts(auth, dto.parts) : undefined;
    await this.docs.decide(auth, info, id, {
      type: 'UpdateDocument',
      ...(parts !== undefined ? { parts } : {}),
      ...(dto.title !== undefined ? { title: dto.title.trim() } : {}),
      ...(dto.content !== undefined ? { content_blob: await putBody(this.docs.infra.blobs, dto.content) } : {}),
      ...(dto.author_name !== undefined ? { author_name: dto.author_name.trim() } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    });
    return this.docs.presentById(auth, id);
  }

  @Delete(':id')
  async trash(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<DeletedDocumentResponse> {
    await this.docs.decide(auth, info, id, { type: 'TrashDocument' });
    return { id: id.toLowerCase(), object: 'document', deleted: true };
  }

  @Post(':id/duplicate')
  @HttpCode(201)
  async duplicate(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<DocumentResponse> {
    const source = await this.docs.load(auth, id);
    // With an Idempotency-Key the copy's participant and field ids derive from it too (numbered in
    // the source's order), so a copy is the same on every attempt; a replay re-reads it anyway.
    const newId = creationId(info.idempotency, 'document');
    let made = 0;
    const copy = remapDuplicate(source.participants, source.fields as FieldDtoShape[], () => creationId(info.idempotency, `item-${made++}`));
    const command: WithoutNow<CreateDocument> = {
      type: 'CreateDocument',
      document_id: newId,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      title: source.title,
      content_blob: source.content_blob && (await storedBody(this.docs.infra.blobs, source.content_blob)),
      content_format: source.content_format,
      file: source.file,
      author_name: source.author_name,
      metadata: source.metadata,
      from_template: null,
      ...(source.show_title === false ? { show_title: false } : {}),
      // A document of parts is copied with every part (its fields name them).
      ...(source.parts
        ? { parts: await Promise.all(source.parts.map(async (p) => ({ ...p, content_blob: p.content_blob && (await storedBody(this.docs.infra.blobs, p.content_blob)) }))) }
        : {}),
      duplicate_of: { document_id: source.id, ...copy },
    };
    await this.docs.createOnce(auth, info, newId, () => this.docs.decide(auth, info, newId, command, { allowMissing: true }).then(() => true));
    return this.docs.presentById(auth, newId);
  }
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return 20;
  if (!/^\d+$/.test(raw)) throw ApiError.invalid('limit', 'limit must be an integer from 1 to 100.');
  const n = Number(raw);
  if (n < 1 || n > 100) throw ApiError.invalid('limit', 'limit must be an integer from 1 to 100.');
  return n;
}

/** `?metadata[key]=value` as [key, value]: one key per request, its value a string. */
function metadataFilter(input: Record<string, unknown> | undefined): [string, string] | null {
  if (input === undefined) return null;
  const entries = Object.entries(input);
  if (entries.length !== 1) throw ApiError.invalid('metadata', 'Filter on one metadata key per request: metadata[key]=value.');
  const [key, value] = entries[0];
  if (typeof value !== 'string') throw ApiError.invalid(`metadata.${key}`, `metadata[${key}] must be given once, as a string.`);
  return [key, value];
}
