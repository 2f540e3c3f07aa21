import { Inject, Injectable } from '@nestjs/common';
import { Clock, CLOCK, DocumentPdfService, EditAction, EditRefusal, EditSessionRow, EditSessionStore, Infrastructure, PartPdf, resolveFieldBoxes } from '@dojang/application';
import { brandOf, DomainError, DocumentState, FieldAnchor } from '@dojang/domain';
import { API_KEYS, ApiKeyRow, ORGANIZATIONS, OrganizationRow, TEMPLATES, TemplateReadRow } from '@dojang/projections';
import { DocumentAccess } from '../documents/document-access.service';
import { ParticipantsHttpController } from '../documents/participants.http.controller';
import { DocumentLifecycleHttpController } from '../documents/document-lifecycle.http.controller';
import { ReplaceFieldsDto } from '../documents/document.dto';
import { TemplatesHttpController } from '../templates/templates.http.controller';
import { ApiError } from '../shared/api-error';
import { AuthContext, RequestInfo } from '../shared/auth.guard';
import { createValidationPipe } from '../shared/validation.pipe';
import { INFRA } from '../shared/infrastructure.token';
import { EditorEventResponse, EditorSessionResponse, EditorTextLinesResponse } from '../openapi/response-schemas';
import { EditorTemplateFieldsDto } from './edit-session.dto';

/** One part of what the editor shows: its PDF (for page images) and page count. */
interface EditorPart {
  title: string | null;
  pdf: PartPdf;
}

const REFUSED: Record<EditRefusal, () => ApiError> = {
  invalid: () => ApiError.notFound('edit_session_invalid', 'No such edit session.'),
  used: () => new ApiError(410, 'invalid_request_error', 'edit_session_expired', 'This edit session was closed. Open a new one.'),
  expired: () => new ApiError(410, 'invalid_request_error', 'edit_session_expired', 'This edit session has expired. Open a new one.'),
};

/** The template as the draft of a document would hold it, as its save lays it out (templatePageCounts). */
function templateDraft(t: TemplateReadRow): DocumentState {
  return {
    organization_id: t.organization_id,
    title: t.name.trim() || ' ',
    content_format: 'html',
    created_at: t.updated_at,
    content_blob: t.content_blob,
    file: null,
    original_pdf: null,
    parts: t.parts ?? null,
  } as unknown as DocumentState;
}

/**
 * The editor's side of an edit session (issue 34). Every write is the API's own: a save runs the
 * very handler PUT /documents/{id}/fields or PATCH /templates/{id} runs (validated by the same
 * pipe, decided by the same command, refused with the same errors), and a send runs POST
 * /documents/{id}/send's, all as the API key that opened the session. There is no second path.
 */
@Injectable()
export class EditorService {
  readonly store: EditSessionStore;
  private readonly pipe = createValidationPipe();

  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
    private readonly docs: DocumentAccess,
    private readonly fieldsApi: ParticipantsHttpController,
    private readonly lifecycleApi: DocumentLifecycleHttpController,
    private readonly templatesApi: TemplatesHttpController,
  ) {
    this.store = new EditSessionStore(infra.reads);
  }

  now(): Date {
    return this.clock.now();
  }

  /**
   * The session a secret names, with the key it acts as: still there and not revoked, or the
   * session ends with it (a revoked key's editor must not keep saving).
   */
  async open(secret: string): Promise<{ row: EditSessionRow; auth: AuthContext }> {
    const row = await this.store.session(secret, this.now());
    if (typeof row === 'string') throw REFUSED[row]();
    const key = await this.infra.reads.get<ApiKeyRow>(API_KEYS, row.key_hash);
    if (!key || key.revoked || key.key_id !== row.key_id || (key.role ?? 'full') !== 'full') {
      throw new ApiError(410, 'invalid_request_error', 'edit_session_expired', 'The API key that opened this edit session was revoked. Open a new one.');
    }
    const auth: AuthContext = { organization_id: row.organization_id, livemode: row.livemode, key_id: row.key_id, mode: row.livemode ? 'live' : 'test', role: 'full' };
    return { row, auth };
  }

  allow(row: EditSessionRow, action: EditAction): void {
    if (!row.actions.includes(action)) {
      throw new ApiError(403, 'permission_error', 'edit_action_not_allowed', `This edit session was opened without the ${action} action.`);
    }
  }

  /** The document's authoritative state (its parts' PDFs are read from it). */
  private async documentState(auth: AuthContext, id: string): Promise<DocumentState> {
    return this.docs.load(auth, id);
  }

  async templateOf(auth: AuthContext, id: string): Promise<TemplateReadRow> {
    const row = await this.infra.reads.get<TemplateReadRow>(TEMPLATES, id);
    if (!row || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) throw ApiError.notFound('template_not_found', 'No such template.');
    return row;
  }

  /**
   * Each part's PDF as a signer would see it, by the same renders send and the signing page use
   * (cached by their inputs, made in the PDF pool): an uploaded part as stored, a body rendered.
   */
  async parts(row: EditSessionRow, auth: AuthContext): Promise<EditorPart[]> {
    if (row.kind === 'document') {
      const state = await this.documentState(auth, row.target_id);
      if (state.parts) return (await this.pdf.partPdfs(state)).map((pdf, i) => ({ title: state.parts?.[i]?.title ?? null, pdf }));
      if (state.original_pdf) return [{ title: null, pdf: { sha256: state.original_pdf.sha256, byte_size: state.original_pdf.byte_size, page_count: state.page_count ?? 1 } }];
      if (state.file) return [{ title: null, pdf: { sha256: state.file.sha256, byte_size: state.file.byte_size, page_count: state.file.page_count } }];
      return [{ title: null, pdf: await this.pdf.rendered(state) }];
    }
    const t = await this.templateOf(auth, row.target_id);
    const draft = templateDraft(t);
    if (t.parts) return (await this.pdf.partPdfs(draft)).map((pdf, i) => ({ title: t.parts?.[i]?.title ?? null, pdf }));
    return [{ title: null, pdf: await this.pdf.rendered(draft) }];
  }

  async view(row: EditSessionRow, auth: AuthContext): Promise<EditorSessionResponse> {
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, row.organization_id);
    const brand = brandOf(org);
    const parts = (await this.parts(row, auth)).map((p, index) => ({ index, title: p.title, page_count: p.pdf.page_count, pages_version: p.pdf.sha256.slice(0, 16) }));
    const common = {
      object: 'editor_session' as const,
      kind: row.kind,
      actions: row.actions,
      locale: row.locale,
      redirect_url: row.redirect_url,
      expires_at: row.expires_at,
      embed_origins: org?.embed_origins ?? [],
      brand: { display_name: brand.display_name ?? org?.name ?? 'Dojang', color: brand.color ?? null },
      parts,
    };
    if (row.kind === 'document') {
      const doc = await this.docs.presentById(auth, row.target_id);
      return {
        ...common,
        document: { id: doc.id, title: doc.title, status: doc.status, editable: doc.status === 'draft' },
        template: null,
        participants: doc.participants.map((p) => ({ id: p.id, name: p.name, role: p.role })),
        roles: [],
        fields: doc.fields,
      };
    }
    const t = await this.templatesApi.get(auth, row.target_id);
    const fields = await this.landedTemplateFields(await this.templateOf(auth, row.target_id), t.fields, parts);
    return { ...common, document: null, template: { id: t.id, name: t.name, version: t.version }, participants: [], roles: t.roles, fields };
  }

  /**
   * A template's anchored fields where their anchors land in the template's own render (issue 34:
   * "anchored fields already resolved show where they landed and can be adjusted"): a template
   * keeps only the anchor (each document made from it finds it again), so the editor is shown the
   * box the same resolveFieldBoxes finds, `page` counted across the template like the other
   * fields'. Saved unmoved, the field keeps its anchor; moved, it keeps the coordinates it was
   * put at. An anchor the render no longer holds leaves the fields as they are (the save says why).
   */
  private async landedTemplateFields<F extends { anchor?: unknown; part?: number; page?: number; x: number; y: number; width: number; height: number }>(
    template: TemplateReadRow,
    fields: F[],
    parts: Array<{ page_count: number }>,
  ): Promise<F[]> {
    if (!fields.some((f) => f.anchor)) return fields;
    let boxes;
    try {
      boxes = await resolveFieldBoxes(
        this.pdf,
        templateDraft(template),
        fields.map((f) => ({ part: f.part ?? 0, anchor: (f.anchor as FieldAnchor | undefined) ?? null, box: { page: f.page ?? 1, x: f.x, y: f.y, width: f.width, height: f.height } })),
        (i) => `fields[${i}].anchor`,
      );
    } catch (error) {
      if (error instanceof DomainError) return fields;
      throw error;
    }
    const before = (part: number) => parts.slice(0, part).reduce((n, p) => n + p.page_count, 0);
    return fields.map((f, i) => (f.anchor ? { ...f, ...boxes[i], page: before(f.part ?? 0) + boxes[i].page } : f));
  }

  /** A page image of one part, in the PDF pool, cached by PDF, page and width (as the signing page's). */
  async pageImage(row: EditSessionRow, auth: AuthContext, partIndex: number, page: number, width: number): Promise<{ png: Buffer; version: string }> {
    const parts = await this.parts(row, auth);
    const part = parts[partIndex];
    if (!part || page > part.pdf.page_count) throw ApiError.notFound('page_not_found', `There is no page ${page} in part ${partIndex}.`);
    const png = await this.pdf.pageImage(part.pdf.sha256, page, width);
    if (!png) throw ApiError.notFound('page_not_found', `There is no page ${page} in part ${partIndex}.`);
    return { png, version: part.pdf.sha256.slice(0, 16) };
  }

  /** The text lines of one part's pages (the PDF pool's, cached by the PDF's hash), for snapping. */
  async textLines(row: EditSessionRow, auth: AuthContext, partIndex: number): Promise<EditorTextLinesResponse> {
    const part = (await this.parts(row, auth))[partIndex];
    if (!part) throw ApiError.notFound('page_not_found', `There is no part ${partIndex}.`);
    const pages = await this.pdf.textLines(part.pdf.sha256, row.organization_id);
    return { object: 'text_lines', part: partIndex, pages: pages.map((lines, i) => ({ page: i + 1, lines })) };
  }

  /** Where the frame goes after an event, when the session has a redirect_url. */
  private redirect(row: EditSessionRow, event: 'saved' | 'sent' | 'cancelled', ids: Record<string, string>): string | null {
    if (!row.redirect_url) return null;
    const url = new URL(row.redirect_url);
    url.searchParams.set('dojang_event', event);
    for (const [k, v] of Object.entries(ids)) url.searchParams.set(k, v);
    return url.toString();
  }

  /**
   * Saves the fields through the API's own handler: the body is validated by the app's pipe as the
   * route's DTO (so `param` names `fields[i]…` exactly as the API would), then decided by the
   * same command. Nothing else writes fields.
   */
  async save(row: EditSessionRow, auth: AuthContext, info: RequestInfo, body: unknown): Promise<EditorEventResponse> {
    this.allow(row, 'save');
    if (row.kind === 'document') {
      const dto = (await this.pipe.transform(body, { type: 'body', metatype: ReplaceFieldsDto })) as ReplaceFieldsDto;
      const saved = await this.fieldsApi.replaceFields(auth, info, row.target_id, dto);
      return this.event(row, 'saved', { field_count: saved.data.length });
    }
    const dto = (await this.pipe.transform(body, { type: 'body', metatype: EditorTemplateFieldsDto })) as EditorTemplateFieldsDto;
    const saved = await this.templatesApi.update(auth, info, row.target_id, { fields: dto.fields });
    return this.event(row, 'saved', { field_count: saved.fields.length, template_version: saved.version });
  }

  /** Sends the draft as POST /documents/{id}/send does (defaults for expiry and message); the session ends. */
  async send(row: EditSessionRow, auth: AuthContext, info: RequestInfo): Promise<EditorEventResponse> {
    this.allow(row, 'send');
    await this.lifecycleApi.send(auth, info, row.target_id, {});
    await this.store.close(row, this.now());
    return this.event(row, 'sent', {});
  }

  /** The user cancelled: nothing is written, and the session ends. */
  async cancel(row: EditSessionRow): Promise<EditorEventResponse> {
    await this.store.close(row, this.now());
    return this.event(row, 'cancelled', {});
  }

  private event(row: EditSessionRow, event: 'saved' | 'sent' | 'cancelled', facts: { field_count?: number; template_version?: number }): EditorEventResponse {
    const ids: Record<string, string> = row.kind === 'document' ? { document_id: row.target_id } : { template_id: row.target_id };
    if (facts.template_version !== undefined) ids.template_version = String(facts.template_version);
    return {
      object: 'editor_event',
      type: `dojang.editor.${event}`,
      document_id: row.kind === 'document' ? row.target_id : null,
      template_id: row.kind === 'template' ? row.target_id : null,
      template_version: facts.template_version ?? null,
      field_count: facts.field_count ?? null,
      redirect_url: this.redirect(row, event, ids),
    };
  }
}
