import {
  BulkSendCommand,
  BulkSendState,
  DomainError,
  OrganizationCommand,
  OrganizationEvent,
  OrganizationState,
  RowFailure,
  TemplateState,
  bulkSendDecider,
  bulkSendStreamId,
  invalid,
  isBuiltInKeyName,
  organizationDecider,
  organizationStreamId,
} from '@dojang/domain';
import { findUnstorableText } from '@dojang/event-store';
import { renderTemplate } from '@dojang/seals';
import { BULK_SENDS } from '@dojang/projections';
import { putBody, readBody } from '../bodies';
import { Clock } from '../clock';
import { CommandContext, Decision, FoldedStream } from '../commands/command-context';
import { Infrastructure } from '../runtime/infrastructure';
import { prefixedId } from '../ids';
import { PreparedTemplateSend, TemplateSendRequest, TemplateSender, derivedUuid } from '../templates/template-send.service';
import { BulkInputError, BulkRow, MAX_EXTERNAL_ID, MAX_METADATA_KEY, MAX_METADATA_VALUE, RowError } from './bulk-rows';

export interface BulkSendRequest {
  organization_id: string;
  livemode: boolean;
  template_id: string;
  rows: BulkRow[];
  title?: string | null;
  message?: string | null;
  expires_in_days?: number | null;
  /** Only validate: nothing is recorded or sent. */
  dry_run?: boolean;
  /** Start with the valid rows; the invalid ones are recorded as failed. Default: refuse the job. */
  skip_invalid_rows?: boolean;
}

export interface BulkSendValidation {
  template: TemplateState;
  row_count: number;
  valid_rows: number;
  errors: Required<RowError>[];
  /** What is allowed but likely a mistake (dry run only): two rows to the same phone or e-mail. */
  warnings: BulkRowWarning[];
}

/** Row `row` (column `column`) repeats what row `rows[0]` gave: both sent, reported in the dry run. */
export interface BulkRowWarning {
  row: number;
  column: string;
  code: 'duplicate_recipient';
  message: string;
  /** Both rows, the earlier first. */
  rows: [number, number];
}

/** What a job holds of its request: the same for every row. */
export interface BulkJobSettings {
  organization_id: string;
  livemode: boolean;
  template_id: string;
  template_version?: number;
  title?: string | null;
  message?: string | null;
  expires_in_days?: number | null;
}

/**
 * The template send a row makes: the job's settings with the row's roles, variables, values,
 * metadata, external id and title (its own, or the job's with the row's {{variables}} filled). One
 * function for the dry run and the worker (BulkSendReactor), so both check the very same request.
 */
export function bulkRowRequest(job: BulkJobSettings, row: BulkRow, documentId?: string): TemplateSendRequest {
  let title: string | undefined;
  if (row.title) title = row.title;
  else if (job.title) {
    const rendered = renderTemplate(job.title, row.variables, 'text');
    if (!rendered.ok) throw invalid('missing_parameter', `The job's title uses ${rendered.missing.map((n) => `{{${n}}}`).join(', ')}, which this row does not give: add the variable${rendered.missing.length > 1 ? 's' : ''} or a title column.`, 'title');
    title = rendered.html;
  }
  return {
    organization_id: job.organization_id,
    livemode: job.livemode,
    template_id: job.template_id,
    ...(job.template_version !== undefined ? { template_version: job.template_version } : {}),
    roles: row.roles,
    variables: row.variables,
    values: row.values,
    metadata: row.metadata,
    external_id: row.external_id,
    ...(title !== undefined ? { title } : {}),
    ...(job.message !== undefined ? { message: job.message } : {}),
    ...(job.expires_in_days ? { expires_in_days: job.expires_in_days } : {}),
    ...(documentId !== undefined ? { document_id: documentId } : {}),
  };
}

/** Rows checked at once in a dry run: each one's document is laid out in the PDF pool. */
const DRY_RUN_CONCURRENCY = 4;

export const newBulkSendId = () => prefixedId('bulk');

/** The document a row makes: derived from its job and row, so a resumed worker finds the one it made. */
export const bulkRowDocumentId = (bulkSendId: string, row: number) => derivedUuid('bulk-send', bulkSendId, String(row));

/** Rows of a job no longer waiting to be sent: sent, failed, or canceled. */
export const settledRows = (state: Pick<BulkSendState, 'status' | 'row_count' | 'sent_count' | 'failed_count'>) =>
  state.status === 'canceled' ? state.row_count : state.sent_count + state.failed_count;

/**
 * The organization's reservation for a live job, settled to `done` of `rowCount` rows (a no-op when
 * nothing changed or none is held). `known`: the organization's stream as the caller folded it
 * last (the bulk-send worker, one settle per window): only what was appended since is read.
 */
export function settleBulkReservation(
  infra: Infrastructure,
  clock: Clock,
  organizationId: string,
  bulkSendId: string,
  done: number,
  rowCount: number,
  context: CommandContext,
  known: FoldedStream<OrganizationState> | null = null,
): Promise<Decision<OrganizationState, OrganizationEvent>> {
  const now = () => clock.now().toISOString();
  const stream = organizationStreamId(organizationId);
  const command: OrganizationCommand = { type: 'SettleReservation', reservation_id: bulkSendId, done, row_count: rowCount, now: now() };
  return infra.commands.decide(organizationDecider, stream, command, context, now, known ? { known } : {});
}

/**
 * Whether anything was recorded under this bulk send's id (its job, or its abandonment by the
 * reservation sweep): its read row, else its stream (the row may lag behind its first event).
 */
async function bulkSendRecorded(infra: Infrastructure, bulkSendId: string): Promise<boolean> {
  if (await infra.reads.get(BULK_SENDS, bulkSendId)) return true;
  return (await infra.events.readStream(bulkSendStreamId(bulkSendId))).length > 0;
}

/** `roles.employee.phone` (the template send's param) as the column a CSV names: `employee.phone`. */
export function columnOf(param: string | undefined): string | null {
  if (!param) return null;
  return param.startsWith('roles.') ? param.slice('roles.'.length) : param;
}

/** Rows checked between two turns of the event loop while a bulk send is validated. */
const ROWS_PER_SLICE = 50;

/**
 * Rows sent to a phone or e-mail an earlier row gave (as the send stores it: the same number
 * written two ways is one): both sent, since one person may sign two contracts, but reported with
 * both row numbers, as an export with a copied line would be. A role whose recipient is the same
 * in every row is left out.
 */
function duplicateRecipients(template: TemplateState, rows: BulkRow[], checked: Map<number, PreparedTemplateSend>): BulkRowWarning[] {
  const warnings: BulkRowWarning[] = [];
  const first = new Map<string, number>();
  const contact = (p: PreparedTemplateSend['participants'][number], key: 'phone' | 'email') => (key === 'phone' ? p.phone : (p.email?.toLowerCase() ?? null));
  // A role every row gives the same recipient (the company's representative signing every
  // contract) is the file's design, not a copied line: not reported.
  const fixed = new Set<string>();
  const sent = rows.map((r) => checked.get(r.row)).filter((p): p is PreparedTemplateSend => p !== undefined);
  template.roles.forEach((_r, i) => {
    for (const key of ['phone', 'email'] as const) {
      const values = new Set(sent.map((p) => (p.participants[i] ? contact(p.participants[i], key) : null)));
      if (sent.length > 1 && values.size === 1) fixed.add(`${i}:${key}`);
    }
  });
  for (const row of rows) {
    const prepared = checked.get(row.row);
    if (!prepared) continue;
    prepared.participants.forEach((p, i) => {
      const role = template.roles[i]?.role ?? String(i);
      for (const key of ['phone', 'email'] as const) {
        const value = contact(p, key);
        if (!value || fixed.has(`${i}:${key}`)) continue;
        const seen = first.get(`${key}:${value}`);
        if (seen === undefined) first.set(`${key}:${value}`, row.row);
        else if (seen !== row.row) {
          warnings.push({ row: row.row, column: `${role}.${key}`, code: 'duplicate_recipient', message: `Row ${row.row}: ${role}.${key} ${value} is also row ${seen}'s; both rows will be sent.`, rows: [seen, row.row] });
        }
      }
    });
  }
  return warnings;
}

/**
 * Bulk sends: every row checked (by the template send's own rules) before anything is recorded;
 * then one BulkSendStarted with the rows as a blob, which the worker's BulkSendReactor sends row
 * by row.
 */
export class BulkSendService {
  constructor(
    private readonly infra: Infrastructure,
    private readonly sender: TemplateSender,
    private readonly clock: Clock,
  ) {}

  /** The template a job would send (its columns are checked against it). */
  template(organizationId: string, livemode: boolean, templateId: string): Promise<TemplateState> {
    return this.sender.loadTemplate(organizationId, livemode, templateId);
  }

  /**
   * Every row checked. A dry run checks each row with the very function the job's send runs
   * (TemplateSender.check: the document laid out, its anchors found, its pages counted, its send
   * decided), so a row it passes fails in the job only on delivery; and reports rows sent to the
   * same phone or e-mail as warnings. A start checks what needs no layout (prepare): the job's
   * worker then refuses a row the layout fails, naming its input, and sends the others.
   */
  async validate(request: BulkSendRequest): Promise<BulkSendValidation> {
    const template = await this.sender.loadTemplate(request.organization_id, request.livemode, request.template_id);
    const body = (await readBody(this.infra.blobs, template)) ?? '';
    const org = request.dry_run ? await this.sender.organization(request.organization_id) : null;
    const job: BulkJobSettings = { ...request, template_version: template.version };
    const errors: Required<RowError>[] = [];
    const checked = new Map<number, PreparedTemplateSend>();
    const externalIds = new Map<string, number>();
    const candidates: BulkRow[] = [];
    let scanned = 0;
    for (const row of request.rows) {
      // Checking a row is synchronous work on the API's event loop: a 10,000-row dry run held
      // every other request (health included) for up to a second. Other requests run between
      // slices of rows.
      if (++scanned % ROWS_PER_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const before = errors.length;
      if (row.external_id !== null) {
        if (row.external_id.length > MAX_EXTERNAL_ID) {
          errors.push({ row: row.row, column: 'external_id', code: 'invalid_parameter', message: `Row ${row.row}: external_id must be at most ${MAX_EXTERNAL_ID} characters.` });
        } else if (externalIds.has(row.external_id)) {
          errors.push({ row: row.row, column: 'external_id', code: 'invalid_parameter', message: `Row ${row.row}: external_id "${row.external_id}" is also row ${externalIds.get(row.external_id)}'s; each row needs its own.` });
        } else externalIds.set(row.external_id, row.row);
      }
      // What an append would refuse is refused here, for the dry run and the job alike: a row that
      // passes never fails as unstorable in the worker.
      const unstorable = findUnstorableText({ roles: row.roles, variables: row.variables, values: row.values, metadata: row.metadata, external_id: row.external_id });
      if (unstorable) {
        const column = columnOf(unstorable.path) ?? null;
        errors.push({ row: row.row, column, code: 'invalid_parameter', message: `Row ${row.row}${column ? `, column ${column}` : ''}: holds ${unstorable.inKey ? 'a key with ' : ''}a control character (NUL or another C0 character other than tab, line feed or carriage return) or text that is not valid Unicode.` });
      }
      for (const [key, value] of Object.entries(row.metadata)) {
        if (isBuiltInKeyName(key)) {
          errors.push({ row: row.row, column: `metadata.${key}`, code: 'invalid_parameter', message: `Row ${row.row}: metadata key "${key}" is the name of a built-in property of JavaScript objects; choose another.` });
        } else if (key.length === 0 || key.length > MAX_METADATA_KEY || typeof value !== 'string' || value.length > MAX_METADATA_VALUE) {
          errors.push({ row: row.row, column: `metadata.${key}`, code: 'invalid_parameter', message: `Row ${row.row}: metadata keys are 1 to ${MAX_METADATA_KEY} characters, values strings of at most ${MAX_METADATA_VALUE}; "${key.slice(0, 60)}" is not.` });
        }
      }
      if (errors.length === before) candidates.push(row);
    }
    const checkRow = async (row: BulkRow) => {
      try {
        const send = bulkRowRequest(job, row);
        checked.set(row.row, org ? await this.sender.check(send, { template, org }, body) : await this.sender.prepare(template, send, body));
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        errors.push({ row: row.row, column: columnOf(err.param), code: err.code, message: `Row ${row.row}: ${err.message}` });
      }
    };
    // A dry run lays out a few rows at a time (the pool renders them side by side); a start only reads them.
    for (let i = 0; i < candidates.length; i += org ? DRY_RUN_CONCURRENCY : 1) await Promise.all(candidates.slice(i, i + (org ? DRY_RUN_CONCURRENCY : 1)).map(checkRow));
    errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
    return { template, row_count: request.rows.length, valid_rows: checked.size, errors, warnings: org ? duplicateRecipients(template, request.rows, checked) : [] };
  }

  /**
   * Validates, reserves nothing it cannot afford, and records the job; returns its id. `id` is the
   * job's (derived from the request's Idempotency-Key by the API, so that a retry names the job its
   * first attempt started rather than starting a second one); default: a new one.
   */
  async start(request: BulkSendRequest, context: CommandContext, id: string = newBulkSendId()): Promise<{ id: string; validation: BulkSendValidation; position: number | null }> {
    const validation = await this.validate(request);
    if (validation.errors.length > 0 && !request.skip_invalid_rows) throw new BulkInputError(validation.errors);
    const org = await this.sender.organization(request.organization_id);
    // Every valid row is a live document: the free signatures and credits left must cover them all
    // (checked here from the read model for a quick refusal; the reservation below decides).
    // A retry of a request whose first attempt reserved already (same id): its own hold is not
    // counted against it.
    const ownHold = org.reservations?.[id]?.count ?? 0;
    this.sender.assertAffordable(ownHold ? { ...org, credits_reserved: Math.max(0, (org.credits_reserved ?? 0) - ownHold) } : org, request.livemode, validation.valid_rows);
    // Held before the job exists, on the organization's stream (so two jobs cannot both count the
    // same credits): refused there with 402 when short, and nothing is recorded.
    if (request.livemode) await this.hold(request.organization_id, id, validation.valid_rows, context);
    const invalid_rows: RowFailure[] = validation.errors
      .filter((e, i, all) => e.row !== null && all.findIndex((x) => x.row === e.row) === i)
      .map((e) => ({ row: e.row as number, external_id: request.rows[(e.row as number) - 1]?.external_id ?? null, code: e.code, message: e.message, column: e.column }));
    const rowsBlob = await putBody(this.infra.blobs, JSON.stringify(request.rows));
    const command: BulkSendCommand = {
      type: 'StartBulkSend',
      bulk_send_id: id,
      organization_id: request.organization_id,
      livemode: request.livemode,
      template_id: validation.template.id,
      template_version: validation.template.version,
      row_count: request.rows.length,
      rows_blob: rowsBlob,
      title: request.title ?? null,
      message: request.message ?? null,
      expires_in_days: request.expires_in_days ?? null,
      invalid_rows,
      now: this.clock.now().toISOString(),
    };
    let decision;
    try {
      decision = await this.infra.commands.decide(bulkSendDecider, bulkSendStreamId(id), command, context, () => this.clock.now().toISOString(), { newStream: true });
    } catch (err) {
      // No job: its reservation is given back (every row settled).
      if (request.livemode) await this.settle(request.organization_id, id, request.rows.length, request.rows.length, context).catch(() => undefined);
      throw err;
    }
    return { id, validation, position: decision.position };
  }

  /**
   * Reserves the job's rows. Under an Idempotency-Key the reservation may be an earlier attempt's,
   * answered as landed; if that attempt never started its job, its own give-back (the catch in
   * start) may have released it since. The job this retry starts would then hold nothing: it holds
   * again. An id the worker's sweep abandoned is not held again: its start is refused.
   */
  private async hold(organizationId: string, bulkSendId: string, count: number, context: CommandContext): Promise<void> {
    let replayed = false;
    const watched: CommandContext = context.event_ids
      ? { ...context, event_ids: { next: (streamId) => context.event_ids!.next(streamId), replayed: () => ((replayed = true), context.event_ids!.replayed()) } }
      : context;
    await this.reserve(organizationId, bulkSendId, count, watched);
    if (!replayed) return;
    const current = (await this.infra.commands.load(organizationDecider, organizationStreamId(organizationId))).state;
    // Still held, or its job started (the job's rows settle it, or settled it all), or the sweep
    // abandoned the id (the start below is refused): nothing to hold.
    if (current.reservations?.[bulkSendId] || (await bulkSendRecorded(this.infra, bulkSendId))) return;
    // Not under the request's derived ids: its next ones on this stream may be the earlier
    // attempt's give-back, which would answer this reservation as landed. The state check above
    // keeps a further retry from holding twice.
    const { event_ids: _derived, ...fresh } = context;
    await this.reserve(organizationId, bulkSendId, count, fresh);
  }

  private async reserve(organizationId: string, reservationId: string, count: number, context: CommandContext): Promise<void> {
    const now = () => this.clock.now().toISOString();
    await this.infra.commands.decide(organizationDecider, organizationStreamId(organizationId), { type: 'ReserveCredits', reservation_id: reservationId, count, now: now() }, context, now);
  }

  /**
   * Frees what a job's settled rows held (sent: charged at completion like any document; failed or
   * canceled: free again). With the job's running totals, so repeating it changes nothing.
   */
  settle(organizationId: string, bulkSendId: string, done: number, rowCount: number, context: CommandContext) {
    return settleBulkReservation(this.infra, this.clock, organizationId, bulkSendId, done, rowCount, context).then((decision) => decision.position);
  }
}
