import { Decider, assertNever } from '../shared/decider';
import { DomainError, invalid, notFound } from '../shared/domain-error';
import { BlobPointer } from '../document/document.events';
import { BulkSendEvent, MAX_BULK_SEND_ROWS } from './bulk-send.events';

export type BulkSendStatus = 'running' | 'completed' | 'canceled';

export interface BulkSendState {
  exists: boolean;
  /** No job was started under this id in time (BulkSendAbandoned): none ever will be. */
  abandoned: boolean;
  id: string;
  organization_id: string;
  livemode: boolean;
  status: BulkSendStatus;
  template_id: string;
  template_version: number;
  row_count: number;
  rows_blob: BlobPointer | null;
  title: string | null;
  message: string | null;
  expires_in_days: number | null;
  /** Row number → document id, for rows sent. */
  sent: Record<number, string>;
  /** Rows failed. */
  failed: Record<number, true>;
  sent_count: number;
  failed_count: number;
  started_at: string;
  finished_at: string | null;
}

export const initialBulkSendState = (): BulkSendState => ({
  exists: false,
  abandoned: false,
  id: '',
  organization_id: '',
  livemode: false,
  status: 'running',
  template_id: '',
  template_version: 0,
  row_count: 0,
  rows_blob: null,
  title: null,
  message: null,
  expires_in_days: null,
  sent: {},
  failed: {},
  sent_count: 0,
  failed_count: 0,
  started_at: '',
  finished_at: null,
});

export interface RowFailure {
  row: number;
  external_id: string | null;
  code: string;
  message: string;
  column: string | null;
}

export type StartBulkSend = {
  type: 'StartBulkSend';
  bulk_send_id: string;
  organization_id: string;
  livemode: boolean;
  template_id: string;
  template_version: number;
  row_count: number;
  rows_blob: BlobPointer;
  title: string | null;
  message: string | null;
  expires_in_days: number | null;
  /** Rows refused at validation that the job records as failed at once (skip_invalid_rows). */
  invalid_rows: RowFailure[];
  now: string;
};
export type RecordRowSent = { type: 'RecordRowSent'; row: number; document_id: string; external_id: string | null; now: string };
export type RecordRowFailed = { type: 'RecordRowFailed'; failure: RowFailure; now: string };
export type CancelBulkSend = { type: 'CancelBulkSend'; now: string };
/**
 * The worker's reservation sweep, for a credit reservation past its grace period: fences the id
 * so that no job can start under it any more, unless one did already (then nothing changes).
 */
export type AbandonUnstartedBulkSend = { type: 'AbandonUnstartedBulkSend'; bulk_send_id: string; organization_id: string; now: string };
/**
 * Several rows' outcomes in one append (the worker sends a window of rows at a time): each is
 * decided as its RecordRowSent / RecordRowFailed alone would be, in order, and the last one that
 * finishes the job completes it in the same append.
 */
export type RecordRows = {
  type: 'RecordRows';
  outcomes: Array<{ row: number; document_id: string; external_id: string | null } | { failure: RowFailure }>;
  now: string;
};

export type BulkSendCommand = StartBulkSend | RecordRowSent | RecordRowFailed | RecordRows | CancelBulkSend | AbandonUnstartedBulkSend;

const done = (s: BulkSendState, row: number) => s.sent[row] !== undefined || s.failed[row] === true;

export function evolveBulkSend(state: BulkSendState, event: BulkSendEvent): BulkSendState {
  switch (event.type) {
    case 'BulkSendStarted': {
      const d = event.data;
      return {
        ...initialBulkSendState(),
        exists: true,
        id: d.bulk_send_id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        template_id: d.template_id,
        template_version: d.template_version,
        row_count: d.row_count,
        rows_blob: d.rows_blob,
        title: d.title,
        message: d.message,
        expires_in_days: d.expires_in_days,
        started_at: d.started_at,
      };
    }
    case 'BulkSendRowSent':
      return { ...state, sent: { ...state.sent, [event.data.row]: event.data.document_id }, sent_count: state.sent_count + 1 };
    case 'BulkSendRowFailed':
      return { ...state, failed: { ...state.failed, [event.data.row]: true }, failed_count: state.failed_count + 1 };
    case 'BulkSendCompleted':
      return { ...state, status: 'completed', finished_at: event.data.completed_at };
    case 'BulkSendCanceled':
      return { ...state, status: 'canceled', finished_at: event.data.canceled_at };
    case 'BulkSendAbandoned':
      return { ...state, abandoned: true, id: event.data.bulk_send_id, organization_id: event.data.organization_id };
    default:
      return assertNever(event);
  }
}

/**
 * evolveBulkSend over many events with the row maps copied once, not once per event: a job of
 * 10,000 rows is a stream of 10,000 events, and folding it by evolve alone copies 5·10⁷ entries.
 */
export function foldBulkSend(state: BulkSendState, events: readonly BulkSendEvent[]): BulkSendState {
  let current = state;
  let owned = false;
  for (const event of events) {
    if (event.type === 'BulkSendRowSent' || event.type === 'BulkSendRowFailed') {
      if (!owned) {
        current = { ...current, sent: { ...current.sent }, failed: { ...current.failed } };
        owned = true;
      }
      if (event.type === 'BulkSendRowSent') {
        current.sent[event.data.row] = event.data.document_id;
        current.sent_count++;
      } else {
        current.failed[event.data.row] = true;
        current.failed_count++;
      }
    } else {
      current = evolveBulkSend(current, event);
      // Started resets the maps to fresh ones; the others keep them (owned stays as it was).
      if (event.type === 'BulkSendStarted') owned = false;
    }
  }
  return current;
}

/**
 * The last row's outcome completes the job in the same append. `events` are new row outcomes of a
 * running job (each a row not done yet), so the counts after them are enough: folding them would
 * copy the job's per-row maps once more per decision.
 */
function withCompletion(state: BulkSendState, events: BulkSendEvent[], now: string): BulkSendEvent[] {
  let sent = state.sent_count;
  let failed = state.failed_count;
  for (const event of events) {
    if (event.type === 'BulkSendRowSent') sent++;
    else if (event.type === 'BulkSendRowFailed') failed++;
  }
  if (state.status === 'running' && sent + failed >= state.row_count) {
    events.push({
      type: 'BulkSendCompleted',
      data: {
        sent,
        failed,
        completed_at: now,
        template_id: state.template_id,
        template_version: state.template_version,
        row_count: state.row_count,
      },
    });
  }
  return events;
}

const missing = () => notFound('bulk_send_not_found', 'No such bulk send.');

export function decideBulkSend(command: BulkSendCommand, state: BulkSendState): BulkSendEvent[] {
  switch (command.type) {
    case 'StartBulkSend': {
      // A retried start (same id) is not a second job.
      if (state.exists) return [];
      // Its credit hold was given back: a job now would run holding nothing.
      if (state.abandoned) {
        throw new DomainError(
          'conflict',
          'bulk_send_abandoned',
          'This bulk send was not started in time and the credits held for it were given back; send it again (with a new Idempotency-Key).',
        );
      }
      if (!Number.isInteger(command.row_count) || command.row_count < 1) throw invalid('missing_parameter', 'A bulk send needs at least one row.', 'rows');
      if (command.row_count > MAX_BULK_SEND_ROWS) throw invalid('invalid_parameter', `A bulk send holds at most ${MAX_BULK_SEND_ROWS} rows; this one has ${command.row_count}.`, 'rows');
      if (command.invalid_rows.length >= command.row_count) throw invalid('invalid_parameter', 'Every row is invalid: nothing would be sent.', 'rows');
      const events: BulkSendEvent[] = [
        {
          type: 'BulkSendStarted',
          data: {
            bulk_send_id: command.bulk_send_id,
            organization_id: command.organization_id,
            livemode: command.livemode,
            template_id: command.template_id,
            template_version: command.template_version,
            row_count: command.row_count,
            rows_blob: { sha256: command.rows_blob.sha256, byte_size: command.rows_blob.byte_size },
            title: command.title,
            message: command.message,
            expires_in_days: command.expires_in_days,
            started_at: command.now,
          },
        },
      ];
      const seen = new Set<number>();
      for (const f of command.invalid_rows) {
        if (!Number.isInteger(f.row) || f.row < 1 || f.row > command.row_count || seen.has(f.row)) throw invalid('invalid_parameter', `Row ${f.row} cannot fail twice or outside the job.`, 'rows');
        seen.add(f.row);
        events.push({ type: 'BulkSendRowFailed', data: { ...f, failed_at: command.now } });
      }
      return events;
    }
    case 'RecordRowSent':
    case 'RecordRowFailed': {
      if (!state.exists) throw missing();
      const row = command.type === 'RecordRowSent' ? command.row : command.failure.row;
      if (!Number.isInteger(row) || row < 1 || row > state.row_count) throw invalid('invalid_parameter', `Row ${row} is not in this job (1 to ${state.row_count}).`, 'row');
      // At least once: a row recorded already (a resumed worker) changes nothing.
      if (done(state, row)) return [];
      // A row whose document went out before a cancel landed is still recorded: it was sent.
      if (state.status === 'completed') return [];
      if (state.status === 'canceled' && command.type === 'RecordRowFailed') return [];
      const event: BulkSendEvent =
        command.type === 'RecordRowSent'
          ? { type: 'BulkSendRowSent', data: { row, document_id: command.document_id, external_id: command.external_id, sent_at: command.now } }
          : { type: 'BulkSendRowFailed', data: { ...command.failure, failed_at: command.now } };
      return state.status === 'canceled' ? [event] : withCompletion(state, [event], command.now);
    }
    case 'RecordRows': {
      if (!state.exists) throw missing();
      if (state.status === 'completed') return [];
      const events: BulkSendEvent[] = [];
      const recorded = new Set<number>();
      for (const outcome of command.outcomes) {
        const row = 'failure' in outcome ? outcome.failure.row : outcome.row;
        if (!Number.isInteger(row) || row < 1 || row > state.row_count) throw invalid('invalid_parameter', `Row ${row} is not in this job (1 to ${state.row_count}).`, 'row');
        if (done(state, row) || recorded.has(row)) continue;
        if (state.status === 'canceled' && 'failure' in outcome) continue;
        recorded.add(row);
        events.push(
          'failure' in outcome
            ? { type: 'BulkSendRowFailed', data: { ...outcome.failure, failed_at: command.now } }
            : { type: 'BulkSendRowSent', data: { row, document_id: outcome.document_id, external_id: outcome.external_id, sent_at: command.now } },
        );
      }
      return state.status === 'canceled' || events.length === 0 ? events : withCompletion(state, events, command.now);
    }
    case 'CancelBulkSend': {
      if (!state.exists) throw missing();
      if (state.status === 'canceled') return [];
      if (state.status === 'completed') throw new DomainError('conflict', 'bulk_send_not_running', 'The bulk send has completed: every row was sent or failed; cancel its documents instead (POST /v1/bulk_sends/{id}/documents/cancel).');
      const remaining = state.row_count - state.sent_count - state.failed_count;
      return [{ type: 'BulkSendCanceled', data: { sent: state.sent_count, failed: state.failed_count, canceled_rows: remaining, canceled_at: command.now } }];
    }
    case 'AbandonUnstartedBulkSend':
      // A job that started keeps its hold (its rows settle it); a repeat (another sweep) adds nothing.
      if (state.exists || state.abandoned) return [];
      return [{ type: 'BulkSendAbandoned', data: { bulk_send_id: command.bulk_send_id, organization_id: command.organization_id, reason: 'not_started', abandoned_at: command.now } }];
    default:
      return assertNever(command);
  }
}

export const bulkSendDecider: Decider<BulkSendState, BulkSendCommand, BulkSendEvent> = {
  initialState: initialBulkSendState,
  evolve: evolveBulkSend,
  decide: decideBulkSend,
  foldFrom: foldBulkSend,
};
