import { BulkSendCommand, BulkSendStarted, BulkSendState, DomainError, bulkSendDecider, bulkSendStreamId } from '@dojang/domain';
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
  /** How many rows are sent between two looks at the job (a cancel stops it within that many rows). */
  checkEvery?: number;
}

/**
 * Sends a bulk send's rows, one at a time, in the worker. At least once and resumable: each row's
 * document id is derived from the job and the row, so a row sent before a crash (its document made,
 * its BulkSendRowSent perhaps not) is found again, never made twice; the job's stream says which rows
 * are done; a cancel is seen between rows. A failure the client caused (the send was refused) is the
 * row's BulkSendRowFailed; anything else (a store away) fails the reaction, which is retried and
 * resumes where it stopped.
 */
export class BulkSendReactor implements Reactor {
  readonly name = 'bulk-send';
  readonly handles = new Set(['BulkSendStarted']);
  private readonly paceMs: number;
  private readonly checkEvery: number;

  constructor(
    private readonly infra: Infrastructure,
    private readonly sender: TemplateSender,
    private readonly clock: Clock,
    options: BulkSendReactorOptions = {},
  ) {
    this.paceMs = options.paceMs ?? 0;
    this.checkEvery = options.checkEvery ?? 20;
  }

  async react(event: StoredEvent): Promise<void> {
    const started = (event as unknown as BulkSendStarted).data;
    const streamId = bulkSendStreamId(started.bulk_send_id);
    const context: CommandContext = {
      actor: 'system',
      organization_id: started.organization_id,
      livemode: started.livemode,
      causation_id: event.event_id,
      ...(event.metadata.correlation_id ? { correlation_id: String(event.metadata.correlation_id) } : {}),
    };
    const load = async () => (await this.infra.commands.load(bulkSendDecider, streamId)).state;
    let state: BulkSendState = await load();
    if (!state.exists || state.status !== 'running') return;
    const text = await readBody(this.infra.blobs, { content_blob: started.rows_blob });
    const rows = JSON.parse(text ?? '[]') as BulkRow[];
    const record = (command: BulkSendCommand) => this.infra.commands.execute(bulkSendDecider, streamId, command, context, () => this.clock.now().toISOString());
    let sinceCheck = 0;
    for (const row of rows) {
      if (state.sent[row.row] !== undefined || state.failed[row.row]) continue;
      if (++sinceCheck >= this.checkEvery) {
        sinceCheck = 0;
        state = await load();
        if (state.status !== 'running') return;
      }
      const now = () => this.clock.now().toISOString();
      try {
        const result = await this.sender.send(
          {
            organization_id: started.organization_id,
            livemode: started.livemode,
            template_id: started.template_id,
            template_version: started.template_version,
            roles: row.roles,
            variables: row.variables,
            values: row.values,
            metadata: row.metadata,
            ...(started.title ? { title: started.title } : {}),
            message: started.message,
            ...(started.expires_in_days ? { expires_in_days: started.expires_in_days } : {}),
            document_id: bulkRowDocumentId(started.bulk_send_id, row.row),
          },
          { ...context, causation_id: `${event.event_id}:${row.row}` },
          // Credits were counted for the whole job when it started.
          { checkCredits: false },
        );
        const decision = await record({ type: 'RecordRowSent', row: row.row, document_id: result.document_id, external_id: row.external_id, now: now() });
        state = decision.state;
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const decision = await record({
          type: 'RecordRowFailed',
          failure: { row: row.row, external_id: row.external_id, code: err.code, message: `Row ${row.row}: ${err.message}`, column: columnOf(err.param) },
          now: now(),
        });
        state = decision.state;
      }
      if (state.status !== 'running') return;
      if (this.paceMs > 0) await new Promise((resolve) => setTimeout(resolve, this.paceMs));
    }
  }
}
