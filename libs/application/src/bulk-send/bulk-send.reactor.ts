import { BulkSendCommand, BulkSendState, DomainError, bulkSendDecider, bulkSendStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { readBody } from '../bodies';
import { Clock } from '../clock';
import { CommandContext } from '../command-handler';
import { Infrastructure } from '../infrastructure';
import { Reactor } from '../reactor-runner';
import { TemplateSender } from '../templates/template-send.service';
import { BulkRow } from './bulk-rows';
import { bulkRowDocumentId, columnOf } from './bulk-send.service';

export interface BulkSendReactorOptions {
  /** Least time between two rows' sends (ms): a job is paced so the API and the PDF pool stay responsive. */
  paceMs?: number;
}

/**
 * Sends a bulk send's rows in the worker, one row per event: BulkSendStarted sends the first row
 * not done, and each BulkSendRowSent / BulkSendRowFailed the next, so a job is a chain of short
 * reactions and the runner's other reactors (the signing requests of the documents the job makes,
 * webhooks) take their turns between rows instead of waiting for the whole job.
 *
 * At least once and resumable: each row's document id is derived from the job and the row, so a row
 * sent before a crash (its document made, its BulkSendRowSent perhaps not) is found again, never made
 * twice, and an event delivered again only sends the row that is next by then. A cancel (read from
 * the stream) stops the chain. A refused send is the row's BulkSendRowFailed; anything else (a store
 * away) fails the reaction, which is retried.
 */
export class BulkSendReactor implements Reactor {
  readonly name = 'bulk-send';
  readonly handles = new Set(['BulkSendStarted', 'BulkSendRowSent', 'BulkSendRowFailed']);
  private readonly paceMs: number;
  /** Parsed rows of the jobs in progress (a 10,000-row job is parsed once, not once per row). */
  private readonly rowsCache = new Map<string, BulkRow[]>();

  constructor(
    private readonly infra: Infrastructure,
    private readonly sender: TemplateSender,
    private readonly clock: Clock,
    options: BulkSendReactorOptions = {},
  ) {
    this.paceMs = options.paceMs ?? 0;
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

  async react(event: StoredEvent): Promise<void> {
    const streamId = event.stream_id;
    const state: BulkSendState = (await this.infra.commands.load(bulkSendDecider, streamId)).state;
    if (!state.exists || state.status !== 'running') {
      this.rowsCache.delete(state.id);
      return;
    }
    const rows = await this.rowsOf(state);
    const row = rows.find((r) => state.sent[r.row] === undefined && !state.failed[r.row]);
    if (!row) return;
    const context: CommandContext = {
      actor: 'system',
      organization_id: state.organization_id,
      livemode: state.livemode,
      causation_id: event.event_id,
      ...(event.metadata.correlation_id ? { correlation_id: String(event.metadata.correlation_id) } : {}),
    };
    const record = (command: BulkSendCommand) => this.infra.commands.execute(bulkSendDecider, bulkSendStreamId(state.id), command, context, () => this.clock.now().toISOString());
    const now = () => this.clock.now().toISOString();
    if (this.paceMs > 0) await new Promise((resolve) => setTimeout(resolve, this.paceMs));
    try {
      const result = await this.sender.send(
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
        // Credits were counted for the whole job when it started.
        { checkCredits: false },
      );
      await record({ type: 'RecordRowSent', row: row.row, document_id: result.document_id, external_id: row.external_id, now: now() });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      await record({
        type: 'RecordRowFailed',
        failure: { row: row.row, external_id: row.external_id, code: err.code, message: `Row ${row.row}: ${err.message}`, column: columnOf(err.param) },
        now: now(),
      });
    }
  }
}
