import { BulkSendCommand, BulkSendState, DomainError, RecordRows, bulkSendDecider, bulkSendStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { readBody } from '../bodies';
import { Clock } from '../clock';
import { CommandContext } from '../command-handler';
import { Infrastructure } from '../infrastructure';
import { Reactor } from '../reactor-runner';
import { TemplateSender } from '../templates/template-send.service';
import { BulkRow } from './bulk-rows';
import { bulkRowDocumentId, columnOf, settleBulkReservation, settledRows } from './bulk-send.service';

export interface BulkSendReactorOptions {
  /** Least time between two rows' sends (ms): a job is paced so the API and the PDF pool stay responsive. */
  paceMs?: number;
  /** Rows sent at once per reaction (default 16): their renders overlap in the PDF pool and their outcomes are one append. */
  window?: number;
}

const DEFAULT_WINDOW = 16;

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
  }

  async react(event: StoredEvent): Promise<void> {
    const streamId = event.stream_id;
    const known = this.latest.get(streamId);
    if (known !== undefined && event.global_position < known) return;
    const { state, events } = await this.infra.commands.load(bulkSendDecider, streamId);
    if (!state.exists) return;
    if (state.status !== 'running') {
      // Completed or canceled: whatever the job still held is given back (again, if a crash came
      // between its last append and its settlement).
      await this.settle(state, event);
      this.forget(streamId, state.id);
      return;
    }
    // A later row outcome of this job is in the log: its reaction carries the chain on.
    const last = [...events].reverse().find((e) => this.handles.has(e.type));
    if (last && last.global_position > event.global_position) {
      this.latest.set(streamId, last.global_position);
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
      next.map((row) =>
        this.sender.send(
          {
            organization_id: state.organization_id,
            livemode: state.livemode,
            template_id: state.template_id,
            template_version: state.template_version,
            roles: row.roles,
            variables: row.variables,
            values: row.values,
            metadata: row.metadata,
            ...(state.title ? { title: state.title } : {}),
            message: state.message,
            ...(state.expires_in_days ? { expires_in_days: state.expires_in_days } : {}),
            document_id: bulkRowDocumentId(state.id, row.row),
          },
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
      } else unexpected ??= result.reason;
    });
    // The rows decided are recorded even when another failed unexpectedly; that one is retried.
    if (outcomes.length > 0) {
      const command: BulkSendCommand = { type: 'RecordRows', outcomes, now: now() };
      const decision = await this.infra.commands.execute(bulkSendDecider, bulkSendStreamId(state.id), command, context, now);
      if (decision.position !== null) this.latest.set(streamId, decision.position);
      await this.settle(decision.state, event);
      if (decision.state.status !== 'running') this.forget(streamId, state.id);
    }
    if (unexpected) throw unexpected;
  }

  /** The rows settled so far no longer hold the organization's credits (live jobs only hold any). */
  private async settle(state: BulkSendState, event: StoredEvent): Promise<void> {
    if (!state.livemode) return;
    await settleBulkReservation(this.infra, this.clock, state.organization_id, state.id, settledRows(state), state.row_count, {
      actor: 'system',
      organization_id: state.organization_id,
      livemode: state.livemode,
      causation_id: event.event_id,
      ...(event.metadata.correlation_id ? { correlation_id: String(event.metadata.correlation_id) } : {}),
    });
  }
}
