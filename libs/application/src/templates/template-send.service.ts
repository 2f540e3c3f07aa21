import { createHash, randomUUID } from 'crypto';
import {
  DEFAULT_EXPIRY_DAYS,
  DocumentCommand,
  DocumentPart,
  DocumentState,
  DomainError,
  Field,
  OrganizationState,
  dateFormatOf,
  ParticipantSetup,
  TemplateEvent,
  TemplateState,
  canAffordSignature,
  signaturesAvailable,
  documentDecider,
  documentSequence,
  documentStreamId,
  instantiateTemplate,
  invalid,
  notFound,
  templateAtVersion,
  templateDecider,
  templateStreamId,
  validateExternalId,
  validateMetadata,
} from '@dojang/domain';
import { checkDocumentBudget } from '@dojang/pdf';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { renderTemplate } from '@dojang/seals';
import { putBody, readBody } from '../bodies';
import { Clock } from '../clock';
import { CommandContext } from '../commands/command-context';
import { DocumentPdfService } from '../document-pdf.service';
import { resolveFieldBoxes } from '../field-anchors';
import { Infrastructure } from '../runtime/infrastructure';
import { sha256Hex } from '../runtime/secrets';
import { parseRoleAssignments } from './role-assignments';

const DAY = 24 * 60 * 60 * 1000;
const MAX_TITLE = 500;
const MAX_MESSAGE = 2000;

/** One send from a template: who fills each role and what fills the template. */
export interface TemplateSendRequest {
  organization_id: string;
  livemode: boolean;
  template_id: string;
  /** The version to use (a bulk send keeps the one it started with); the current one when absent. */
  template_version?: number;
  /** `{ [role]: { name, email?, phone?, auth? } }`, checked here (refusals name `roles.<role>.<key>`). */
  roles: unknown;
  variables?: Record<string, unknown>;
  /** Prefilled field values by template field id. */
  values?: Record<string, unknown>;
  metadata?: Record<string, string>;
  /** The integrator's id for the document, returned in its webhooks (a bulk row's external_id). */
  external_id?: string | null;
  /** Default: the template's name. */
  title?: string;
  message?: string | null;
  expires_in_days?: number;
  /** A given id (a bulk row's, derived from its job and row) makes a retried send a no-op. */
  document_id?: string;
}

/** Everything a send from a template will write, checked: what a dry run answers with. */
export interface PreparedTemplateSend {
  document_id: string;
  template: TemplateState;
  title: string;
  content: string;
  participants: ParticipantSetup[];
  fields: Field[];
  metadata: Record<string, string>;
  external_id: string | null;
  /** Templates of several parts: each part, its body rendered with the variables (null: a PDF part). */
  parts?: Array<Omit<DocumentPart, 'content_blob'> & { content: string | null }>;
}

export interface TemplateSendResult {
  document_id: string;
  participant_ids: Record<string, string>;
  /** false: the document existed already (a retried row): nothing was written. */
  created: boolean;
  /** Log position of the append; null when nothing was written. */
  position: number | null;
}

/** A UUID (version 8 layout) derived from its inputs: the same document, participant or field on every retry. */
export function derivedUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Create + send from a template with role assignments, in one place: POST /v1/signature_requests
 * calls it once, a bulk send once per row. The document, its participants, its fields and the send
 * land in one append, so a failure leaves nothing half-made; with a given document id a second
 * call finds the document made and writes nothing.
 */
export class TemplateSender {
  constructor(
    private readonly infra: Infrastructure,
    private readonly pdf: DocumentPdfService,
    private readonly clock: Clock,
  ) {}

  /** The template (at `version`, or as it is now) if the organization owns it and it is not archived. */
  async loadTemplate(organizationId: string, livemode: boolean, templateId: string, version?: number): Promise<TemplateState> {
    const missing = () => notFound('template_not_found', `No such template: ${templateId}.`);
    if (!/^tmpl_[A-Za-z0-9]{8,64}$/.test(templateId)) throw missing();
    const { state, events } = await this.infra.commands.load(templateDecider, templateStreamId(templateId));
    if (!state.exists || state.organization_id !== organizationId || state.livemode !== livemode) throw missing();
    // A bulk send keeps the version it started with, even if the template is archived meanwhile.
    if (state.archived && version === undefined) {
      throw new DomainError('conflict', 'template_archived', `Template ${templateId} is archived: documents can no longer be made from it.`);
    }
    if (version === undefined || version === state.version) return state;
    const at = templateAtVersion(events as unknown as TemplateEvent[], version);
    if (!at) throw invalid('invalid_parameter', `Template ${templateId} has no version ${version}.`, 'template_version');
    return at;
  }

  async organization(organizationId: string): Promise<OrganizationRow> {
    const org = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, organizationId);
    if (!org) throw notFound('organization_not_found', 'No such organization.');
    return org;
  }

  /**
   * Everything that can be checked without rendering: roles, variables, values, title, metadata.
   * Each refusal names its input (`roles.employee.phone`, `variables.start_date`, `values.<id>`).
   */
  async prepare(template: TemplateState, request: TemplateSendRequest, body?: string): Promise<PreparedTemplateSend> {
    const documentId = request.document_id ?? randomUUID();
    const roles = parseRoleAssignments(request.roles);
    if (template.roles.length === 0) {
      throw invalid('invalid_parameter', `Template ${template.id} has no roles to assign: give it roles and fields (PATCH /v1/templates/${template.id}) or use from_template with POST /v1/documents.`, 'template_id');
    }
    const instance = instantiateTemplate(template, { roles, values: request.values ?? {} }, (kind, key) => derivedUuid(documentId, kind, key));
    const render = (source: string) => {
      const rendered = renderTemplate(source, request.variables ?? {});
      if (!rendered.ok) {
        const names = [...new Set(rendered.missing)];
        throw invalid(names.length && rendered.invalid.includes(names[0]) ? 'invalid_parameter' : 'missing_parameter', `Missing or invalid template variable${names.length > 1 ? 's' : ''}: ${names.join(', ')}.`, `variables.${names[0]}`);
      }
      // Over a render budget is refused from the text alone, before any worker lays it out.
      checkDocumentBudget(rendered.html, 'html');
      return rendered.html;
    };
    // Every part's body is filled with the same variables; PDF parts are used as they are.
    const parts = template.parts
      ? await Promise.all(
          template.parts.map(async ({ content_blob, ...p }) => ({ ...p, content: content_blob ? render((await readBody(this.infra.blobs, { content_blob })) ?? '') : null })),
        )
      : undefined;
    const html = parts ? (parts[0].content ?? '') : render(body ?? (await readBody(this.infra.blobs, template)) ?? '');
    const title = (request.title ?? template.name).trim();
    if (!title) throw invalid('missing_parameter', 'title must not be blank.', 'title');
    if (title.length > MAX_TITLE) throw invalid('invalid_parameter', `title must be at most ${MAX_TITLE} characters.`, 'title');
    if (request.message != null && request.message.length > MAX_MESSAGE) throw invalid('invalid_parameter', `message must be at most ${MAX_MESSAGE} characters.`, 'message');
    const metadata = request.metadata ?? {};
    validateMetadata(metadata);
    if (request.external_id != null) validateExternalId(request.external_id);
    return {
      document_id: documentId,
      template,
      title,
      content: html,
      participants: instance.participants,
      fields: instance.fields,
      metadata,
      external_id: request.external_id ?? null,
      ...(parts ? { parts } : {}),
    };
  }

  /** Refused with 402 insufficient_credits when a live send has no free signature or credit left. */
  assertAffordable(org: OrganizationRow, livemode: boolean, count = 1): void {
    if (!livemode) return;
    if (count === 1 ? canAffordSignature(org as unknown as OrganizationState, this.clock.now().toISOString()) : availableSignatures(org, this.clock.now().toISOString()) >= count) return;
    const held = org.credits_reserved ? ` (${org.credits_reserved} held by bulk sends still running)` : '';
    const left = Math.max(0, Math.floor(availableSignatures(org, this.clock.now().toISOString())));
    throw new DomainError('payment_required', 'insufficient_credits', count === 1 ? `A live send needs a free signature left this month or at least 1 credit${held}.` : `A live bulk send of ${count} documents needs ${count} free signatures or credits; ${left} are available${held}.`);
  }

  /**
   * Everything a send checks, short of the append: the request (prepare), then every command the
   * send would append (the document made, its participants, its fields with their anchors found
   * in its own parts, the send with its pages laid out), decided against a new document. A bulk
   * dry run calls it on every row, so a row it passes fails in the job only on delivery; the send
   * itself builds its append with the very same steps (commandsFor). A refusal names its input
   * (`roles.employee.phone`, `fields[3].anchor`, `fields[3].page`).
   */
  async check(request: TemplateSendRequest, loaded: { template: TemplateState; org: OrganizationRow }, body?: string): Promise<PreparedTemplateSend> {
    const prepared = await this.prepare(loaded.template, request, body);
    const state = documentDecider.initialState();
    const commands = await this.commandsFor(request, prepared, loaded.org, state);
    try {
      documentSequence.decide(commands, state);
    } catch (err) {
      throw asTemplateSendError(err, prepared.template.id);
    }
    return prepared;
  }

  /**
   * The commands of one send: create, add participants, place fields (anchors found in the
   * document's own parts, as PUT /fields finds them: a missing anchor is refused naming the
   * template's field, fields[i].anchor), send with the original fixed. Bodies are stored (by
   * hash: the same body is one blob) because the render reads them.
   */
  private async commandsFor(request: TemplateSendRequest, prepared: PreparedTemplateSend, org: OrganizationRow, state: DocumentState): Promise<DocumentCommand[]> {
    const template = prepared.template;
    const documentId = prepared.document_id;
    const parts: DocumentPart[] | undefined = prepared.parts
      ? await Promise.all(prepared.parts.map(async ({ content, ...p }) => ({ ...p, content_blob: content === null ? null : await putBody(this.infra.blobs, content) })))
      : undefined;
    const contentBlob = parts ? parts[0].content_blob : await putBody(this.infra.blobs, prepared.content);
    const days = request.expires_in_days ?? org.default_expiry_days ?? DEFAULT_EXPIRY_DAYS;
    const now = this.clock.now().toISOString();
    const setup: DocumentCommand[] = [
      {
        type: 'CreateDocument',
        now,
        document_id: documentId,
        organization_id: request.organization_id,
        livemode: request.livemode,
        title: prepared.title,
        content_blob: contentBlob,
        content_format: parts ? parts[0].content_format : 'html',
        file: parts ? parts[0].file : null,
        ...(parts ? { parts } : {}),
        author_name: org.name,
        metadata: prepared.metadata,
        ...(prepared.external_id !== null ? { external_id: prepared.external_id } : {}),
        from_template: template.id,
        template_version: template.version,
      },
      { type: 'AddParticipants', now, participants: prepared.participants, batch: true },
    ];
    const made = documentSequence.decide(setup, state).reduce(documentDecider.evolve, state);
    const boxes = await resolveFieldBoxes(
      this.pdf,
      made,
      prepared.fields.map((f) => ({ part: f.part ?? 0, anchor: f.anchor ?? null, box: { page: f.page, x: f.x, y: f.y, width: f.width, height: f.height } })),
      (i) => `fields[${i}].anchor`,
    );
    const fields = prepared.fields.map((f, i) => (f.anchor ? { ...f, ...boxes[i] } : f));
    let draft = made;
    if (fields.length) {
      const place: DocumentCommand = { type: 'ReplaceFields', now, fields };
      setup.push(place);
      draft = documentDecider.decide(place, made).reduce(documentDecider.evolve, made);
    }
    const original = await this.pdf.fixOriginal(draft);
    return [
      ...setup,
      {
        type: 'SendDocument',
        now,
        expires_at: new Date(this.clock.now().getTime() + days * DAY).toISOString(),
        message: request.message?.trim() || null,
        page_count: original.page_count,
        original_pdf: original.pointer,
        ...(original.parts ? { parts: original.parts } : {}),
        date_format: dateFormatOf(org as unknown as OrganizationState),
        links: prepared.participants.map((p) => ({ participant_id: p.id, token_hash: sha256Hex(this.infra.secrets.signingToken(documentId, p.id)) })),
      },
    ];
  }

  /** Creates the document from the template, adds the participants, places the fields and sends: one append. */
  async send(
    request: TemplateSendRequest,
    context: CommandContext,
    options: { waitForProjections?: boolean; checkCredits?: boolean; /** Loaded once for a window of bulk rows, not once per row. */ loaded?: { template: TemplateState; org: OrganizationRow } } = {},
  ): Promise<TemplateSendResult> {
    const template = options.loaded?.template ?? (await this.loadTemplate(request.organization_id, request.livemode, request.template_id, request.template_version));
    const org = options.loaded?.org ?? (await this.organization(request.organization_id));
    if (options.checkCredits !== false) this.assertAffordable(org, request.livemode);
    const prepared = await this.prepare(template, request);
    let created = true;
    const source = async (state: DocumentState): Promise<DocumentCommand[]> => {
      // A retried row: the document was made, with everything, by the one append that made it.
      if (state.exists) {
        created = false;
        return [];
      }
      return this.commandsFor(request, prepared, org, state);
    };
    const decision = await this.infra.commands
      .decide(documentSequence, documentStreamId(prepared.document_id), source, context, () => this.clock.now().toISOString(), {
        newStream: request.document_id === undefined,
      })
      .catch((err: unknown) => {
        throw asTemplateSendError(err, template.id);
      });
    if (decision.position !== null && options.waitForProjections) {
      if (!(await this.infra.projections.waitFor(decision.position))) await this.infra.projections.catchUp();
    }
    const participant_ids = Object.fromEntries(template.roles.map((r, i) => [r.role, prepared.participants[i].id]));
    return { document_id: prepared.document_id, participant_ids, created, position: decision.position };
  }
}

/** Free signatures left this month plus credits, less what running bulk sends hold: how many live documents can still be sent. */
export function availableSignatures(org: Pick<OrganizationRow, 'free_used' | 'credit_balance'> & Partial<OrganizationRow>, now: string): number {
  return signaturesAvailable(org as unknown as OrganizationState, now);
}

/**
 * A send refusal said for a document made from a template. The document's own send answers a page
 * problem with "move it with PUT /v1/documents/{id}/fields", but no document exists for a template
 * send (a signature request, a bulk row) to PUT to: the field is the template's (`fields[i]` is its
 * index in the template too, instantiateTemplate keeps the order), and its page was fine in the
 * template's own render, so it is the variables that made this document shorter.
 */
export function asTemplateSendError(err: unknown, templateId: string): unknown {
  if (!(err instanceof DomainError) || err.code !== 'field_page_out_of_range' || !err.param?.match(/^fields\[\d+\]\.page$/)) return err;
  const what = err.message.replace(/^The document cannot be sent: /, '').replace(/\.$/, '').replace(/: move it with PUT \/v1\/documents\/\{id\}\/fields/g, '');
  const field = err.param.replace(/\.page$/, '');
  const message = `The document cannot be made: ${what}, as these variables fill the template's text (its own render reached the page). Give the variables that text, or move the template's ${field} to an earlier page with PATCH /v1/templates/${templateId}.`;
  return new DomainError(err.kind, err.code, message, err.param);
}
