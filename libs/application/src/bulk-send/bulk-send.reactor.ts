import { BulkSendCommand, BulkSendState, DomainError, OrganizationState, RecordRows, bulkSendDecider } from '@dojang/domain';
import { isStorableText, StoredEvent, UnstorableEventError } from '@dojang/event-store';
import { readBody } from '../bodies';
import { Clock } from '../clock';
import { CommandContext, FoldedStream } from '../commands/command-context';
import { Infrastructure } from '../runtime/infrastructure';
import { Reactor } from '../reactors/reactor-runner';
import { TemplateSender } from '../templates/template-send.service';
import { BulkRow } from './bulk-rows';
import { bulkRowDocumentId, bulkRowRequest, columnOf, settleBulkReservation, settledRows } from './bulk-send.service';

export interface BulkSendReactorOptions {
  /** Least time between two rows' sends (ms): a job is paced so the API and the PDF pool stay responsive. */
  paceMs?: number;
  /** Rows sent at once per reaction (default 16): their renders overlap in the PDF pool and their outcomes are one append. */
  window?: number;
}

const DEFAULT_WINDOW = 16;
/** Jobs whose folded state is kept between windows (a 10,000-row job's state is about 1 MB). */
const FOLDED_JOBS = 8;

/** A job's state at a revision of its stream, and the global position of the latest event there this reactor handles. */
type FoldedJob = FoldedStream<BulkSendState> & { lastHandled: number };

/**
 * Sends a bulk send's rows in the worker, a window of rows per reaction: BulkSendStarted sends the
 * first rows not done, and the append recording their outcomes (one BulkSendRowSent / RowFailed
 * each) the next window, so a job is a chain of short reactions and the runner's other reactors
 * (the signing requests of the documents the job makes, webhooks) take their turns between windows.
 * A window's rows are sent concurrently: one row's render in the PDF pool overlaps another's
 * store writes, which is most of a row's time when they run one after another.
 *
 * Only the last row outcome of a job in the log carries the chain on: every earlier one (the rest
 * of a window's append, or outcomes a resumed worker sees again) is skipped, by the position this
 * reactor last wrote or saw for the job, without reading the job's stream, so a job costs one
 * stream read per window, not per row.
 *
 * The job's state is kept between windows with the revision it was folded to: a window reads only
 * the events appended since (its own last append, another worker's, a cancel) and records its rows
 * expecting the revision it read last, so a window's cost does not grow with the rows done (a
 * 10,000-row job's stream is 10,000 events; reading it whole per window made the job quadratic).
 * The state kept is only a starting point: what is stored after it is always read before deciding,
 * and a worker that starts (or lost it) reads the whole stream once.
 *
 * At least once and resumable: each row's document id is derived from the job and the row, so a row
 * sent before a crash (its document made, its outcome perhaps not recorded) is found again, never
 * made twice, and an event delivered again only sends the rows that are next by then. A cancel (read
 * from the stream) stops the chain. A refused send is the row's BulkSendRowFailed; anything else (a
 * store away) fails the reaction after the window's decided outcomes are recorded, and is retried.
 */
export class BulkSendReactor implements Reactor {
  readonly name = 'bulk-send';
  readonly handles = new Set(['BulkSendStarted', 'BulkSendRowSent', 'BulkSendRowFailed', 'BulkSendCanceled']);
  private readonly paceMs: number;
  private readonly window: number;
  /** Parsed rows of the jobs in progress (a 10,000-row job is parsed once, not once per row). */
  private readonly rowsCache = new Map<string, BulkRow[]>();
  /** Per job stream: the global position of its latest row outcome known here; older events are skipped. */
  private readonly latest = new Map<string, number>();
  /** Per job stream: its state as this reactor last read or wrote it, read on from there. */
  private readonly folded = new Map<string, FoldedJob>();
  /**
   * The organizations' streams as the last settle left them, so that a window's settle reads only
   * what was appended since: an organization's stream gains an event per window of every live job
   * (and its other facts), and reading it whole each window grew with the organization's history.
   */
  private readonly organizations = new Map<string, FoldedStream<OrganizationState>>();

  constructor(
    private readonly infra: Infrastructure,
    private readonly sender: TemplateSender,
    private readonly clock: Clock,
    options: BulkSendReactorOptions = {},
  ) {
    this.paceMs = options.paceMs ?? 0;
    this.window = Math.max(1, options.window ?? DEFAULT_WINDOW);
  }

  private async rowsOf(state: BulkSendState): Promise<BulkRow[]> {
    const cached = this.rowsCache.get(state.id);
    if (cached) return cached;
    const text = await readBody(this.infra.blobs, { content_blob: state.rows_blob });
    const rows = JSON.parse(text ?? '[]') as BulkRow[];
    if (this.rowsCache.size >= 4) this.rowsCache.delete(this.rowsCache.keys().next().value as string);
    this.rowsCache.set(state.id, rows);
    return rows;
  }

  private forget(streamId: string, jobId: string): void {
    this.rowsCache.delete(jobId);
    this.latest.delete(streamId);
    this.folded.delete(streamId);
  }

  private keep(streamId: string, job: FoldedJob): void {
    this.folded.delete(streamId);
    if (this.folded.size >= FOLDED_JOBS) this.folded.delete(this.folded.keys().next().value as string);
    this.folded.set(streamId, job);
  }

  /** The job as stored now: the events after the state kept (the whole stream without one) folded onto it. */
  private async read(streamId: string): Promise<FoldedJob> {
    const kept = this.folded.get(streamId) ?? null;
    const read = await this.infra.commands.loadFrom(bulkSendDecider, streamId, kept);
    let lastHandled = kept?.lastHandled ?? 0;
    for (const e of read.events) if (this.handles.has(e.type)) lastHandled = Math.max(lastHandled, e.global_position);
    const job: FoldedJob = { state: read.state, revision: read.revision, lastHandled };
    if (job.state.exists) this.keep(streamId, job);
    return job;
  }

  async react(event: StoredEvent): Promise<void> {
    const streamId = event.stream_id;
    const known = this.latest.get(streamId);
    if (known !== undefined && event.global_position < known) return;
    const job = await this.read(streamId);
    const state = job.state;
    if (!state.exists) return;
    if (state.status !== 'running') {
      // Completed or canceled: whatever the job still held is given back (again, if a crash came
      // between its last append and its settlement).
      await this.settle(state, event);
      this.forget(streamId, state.id);
      return;
    }
    // A later row outcome of this job is in the log: its reaction carries the chain on.
    if (job.lastHandled > event.global_position) {
      this.latest.set(streamId, job.lastHandled);
      return;
    }
    const rows = await this.rowsOf(state);
    const next: BulkRow[] = [];
    for (const r of rows) {
      if (state.sent[r.row] === undefined && !state.failed[r.row]) next.push(r);
      if (next.length >= this.window) break;
    }
    if (next.length === 0) return;
    const context: CommandContext = {
      actor: 'system',
      organization_id: state.organization_id,
      livemode: state.livemode,
      causation_id: event.event_id,
      ...(event.metadata.correlation_id ? { correlation_id: String(event.metadata.correlation_id) } : {}),
    };
    const now = () => this.clock.now().toISOString();
    if (this.paceMs > 0) await new Promise((resolve) => setTimeout(resolve, this.paceMs * next.length));
    // The template at the job's version and the organization: read once per window, not per row.
    const loaded = {
      template: await this.sender.loadTemplate(state.organization_id, state.livemode, state.template_id, state.template_version),
      org: await this.sender.organization(state.organization_id),
    };
    const settled = await Promise.allSettled(
      // The very request the dry run checked (bulkRowRequest); async, so a row's refusal is its own.
      next.map(async (row) =>
        this.sender.send(
          bulkRowRequest(state, row, bulkRowDocumentId(state.id, row.row)),
          context,
          // Credits were reserved for the whole job when it started.
          { checkCredits: false, loaded },
        ),
      ),
    );
    const outcomes: RecordRows['outcomes'] = [];
    let unexpected: unknown = null;
    settled.forEach((result, i) => {
      const row = next[i];
      if (result.status === 'fulfilled') outcomes.push({ row: row.row, document_id: result.value.document_id, external_id: row.external_id });
      else if (result.reason instanceof DomainError) {
        const err = result.reason;
        outcomes.push({ failure: { row: row.row, external_id: row.external_id, code: err.code, message: `Row ${row.row}: ${err.message}`, column: columnOf(err.param) } });
      } else if (result.reason instanceof UnstorableEventError) {
        // The row's own text cannot be stored (a job recorded before its rows were checked for it):
        // retrying can never succeed, so the row fails and the job goes on to complete.
        const external_id = row.external_id !== null && isStorableText(row.external_id) ? row.external_id : null;
        outcomes.push({ failure: { row: row.row, external_id, code: 'invalid_parameter', message: `Row ${row.row}: holds text no store can keep (a control character such as NUL, or an unpaired surrogate).`, column: null } });
      } else unexpected ??= result.reason;
    });
    // The rows decided are recorded even when another failed unexpectedly; that one is retried.
    if (outcomes.length > 0) {
      const command: BulkSendCommand = { type: 'RecordRows', outcomes, now: now() };
      const decision = await this.infra.commands.decide(bulkSendDecider, streamId, command, context, now, { known: job });
      if (decision.position !== null) {
        this.latest.set(streamId, decision.position);
        // Our append is the stream's last event, a row outcome while the job runs (one that
        // completes it ends the job, forgotten below).
        this.keep(streamId, { state: decision.state, revision: decision.revision, lastHandled: decision.position });
      } else {
        // Nothing written (another worker recorded these rows): the outcomes it read on the way
        // are not known here, so the next window reads the whole stream again.
        this.folded.delete(streamId);
      }
      await this.settle(decision.state, event);
      if (decision.state.status !== 'running') this.forget(streamId, state.id);
    }
    if (unexpected) throw unexpected;
  }

  /** The rows settled so far no longer hold the organization's credits (live jobs only hold any). */
  private async settle(state: BulkSendState, event: StoredEvent): Promise<void> {
    if (!state.livemode) return;
    const organizationId = state.organization_id;
    const known = this.organizations.get(organizationId) ?? null;
    // Dropped while the settle runs: after a failure the next one reads the stream whole.
    this.organizations.delete(organizationId);
    const decision = await settleBulkReservation(
      this.infra,
      this.clock,
      organizationId,
      state.id,
      settledRows(state),
      state.row_count,
      {
        actor: 'system',
        organization_id: organizationId,
        livemode: state.livemode,
        causation_id: event.event_id,
        ...(event.metadata.correlation_id ? { correlation_id: String(event.metadata.correlation_id) } : {}),
      },
      known,
    );
    if (this.organizations.size >= FOLDED_JOBS) this.organizations.delete(this.organizations.keys().next().value as string);
    this.organizations.set(organizationId, { state: decision.state, revision: decision.revision });
  }
}
