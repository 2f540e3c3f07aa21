import { BULK_SEND_EVENT_TYPES, BulkSendEvent } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowKey, RowLookup } from './projection';

export const BULK_SENDS = 'bulk_sends';
export const BULK_SEND_ROWS = 'bulk_send_rows';

/** A bulk send's progress: counts per state (pending = row_count − sent − failed − canceled). */
export interface BulkSendRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
  status: 'running' | 'completed' | 'canceled';
  template_id: string;
  template_version: number;
  row_count: number;
  sent: number;
  failed: number;
  canceled: number;
  created_at: string;
  finished_at: string | null;
}

/** One row's outcome once it has one (`<job id>:<row number padded>`, so ids sort by row). */
export interface BulkSendRowOutcome extends ReadDoc {
  bulk_send_id: string;
  row: number;
  state: 'sent' | 'failed';
  document_id: string | null;
  external_id: string | null;
  error: { code: string; message: string; column: string | null } | null;
  at: string;
}

export const bulkSendRowId = (jobId: string, row: number) => `${jobId}:${String(row).padStart(6, '0')}`;
const jobIdOf = (event: StoredEvent) => event.stream_id.slice('bulk-send-'.length);

/**
 * Bulk send progress and row outcomes. Counts are set from the row's own row (a replayed event
 * finds its outcome written and changes nothing), so replaying gives the same rows.
 */
export const bulkSendProjection: Projection = {
  name: 'bulk_sends',
  collections: [
    { name: BULK_SENDS },
    { name: BULK_SEND_ROWS, indexes: [['bulk_send_id', 'row']] },
  ],
  handles: new Set(BULK_SEND_EVENT_TYPES),
  keys(event): RowKey[] {
    const id = jobIdOf(event);
    const keys: RowKey[] = [{ collection: BULK_SENDS, id }];
    if (event.type === 'BulkSendRowSent' || event.type === 'BulkSendRowFailed') keys.push({ collection: BULK_SEND_ROWS, id: bulkSendRowId(id, Number((event.data as { row: number }).row)) });
    return keys;
  },
  evolve(stored: StoredEvent, rows: RowLookup): Write[] {
    const event = stored as unknown as BulkSendEvent;
    const id = jobIdOf(stored);
    if (event.type === 'BulkSendStarted') {
      const d = event.data;
      const job: BulkSendRow = {
        id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        status: 'running',
        template_id: d.template_id,
        template_version: d.template_version,
        row_count: d.row_count,
        sent: 0,
        failed: 0,
        canceled: 0,
        created_at: d.started_at,
        finished_at: null,
      };
      return [{ op: 'put', collection: BULK_SENDS, doc: job }];
    }
    const job = rows(BULK_SENDS, id) as BulkSendRow | null;
    if (!job) return [];
    switch (event.type) {
      case 'BulkSendRowSent':
      case 'BulkSendRowFailed': {
        const rowId = bulkSendRowId(id, event.data.row);
        if (rows(BULK_SEND_ROWS, rowId)) return [];
        const sent = event.type === 'BulkSendRowSent';
        const outcome: BulkSendRowOutcome = {
          id: rowId,
          bulk_send_id: id,
          row: event.data.row,
          state: sent ? 'sent' : 'failed',
          document_id: sent ? event.data.document_id : null,
          external_id: event.data.external_id,
          error: sent ? null : { code: event.data.code, message: event.data.message, column: event.data.column },
          at: sent ? event.data.sent_at : event.data.failed_at,
        };
        // A row sent after a cancel was counted canceled: it moves to sent.
        const wasCanceled = job.status === 'canceled' && sent;
        const next: BulkSendRow = {
          ...job,
          sent: job.sent + (sent ? 1 : 0),
          failed: job.failed + (sent ? 0 : 1),
          canceled: wasCanceled ? Math.max(0, job.canceled - 1) : job.canceled,
        };
        return [
          { op: 'put', collection: BULK_SEND_ROWS, doc: outcome },
          { op: 'put', collection: BULK_SENDS, doc: next },
        ];
      }
      case 'BulkSendCompleted':
        return [{ op: 'put', collection: BULK_SENDS, doc: { ...job, status: 'completed', finished_at: event.data.completed_at } }];
      case 'BulkSendCanceled':
        return [{ op: 'put', collection: BULK_SENDS, doc: { ...job, status: 'canceled', canceled: event.data.canceled_rows, finished_at: event.data.canceled_at } }];
      default:
        return [];
    }
  },
};
