import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { BulkSendCommand, StartBulkSend, bulkSendDecider } from './bulk-send.decider';
import { BulkSendEvent, MAX_BULK_SEND_ROWS, bulkSendStreamId } from './bulk-send.events';

const spec = DeciderSpecification.for(bulkSendDecider);
const T0 = '2027-01-04T01:00:00.000Z';
const T1 = '2027-01-04T01:00:05.000Z';
const ID = 'bulk_0123456789abcdef01234567';
const BLOB = { sha256: 'c'.repeat(64), byte_size: 1234 };
const DOC = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const start = (over: Partial<StartBulkSend> = {}): BulkSendCommand => ({
  type: 'StartBulkSend',
  bulk_send_id: ID,
  organization_id: 'org_1',
  livemode: false,
  template_id: 'tmpl_0123456789abcdef01234567',
  template_version: 2,
  row_count: 3,
  rows_blob: BLOB,
  title: null,
  message: null,
  expires_in_days: null,
  invalid_rows: [],
  now: T0,
  ...over,
});
const started = (rows = 3): BulkSendEvent => ({
  type: 'BulkSendStarted',
  data: { bulk_send_id: ID, organization_id: 'org_1', livemode: false, template_id: 'tmpl_0123456789abcdef01234567', template_version: 2, row_count: rows, rows_blob: BLOB, title: null, message: null, expires_in_days: null, started_at: T0 },
});
const sent = (row: number): BulkSendEvent => ({ type: 'BulkSendRowSent', data: { row, document_id: DOC(row), external_id: null, sent_at: T1 } });
const failure = { row: 2, external_id: 'E-2', code: 'invalid_parameter', message: 'bad phone', column: 'employee.phone' };
const failed: BulkSendEvent = { type: 'BulkSendRowFailed', data: { ...failure, failed_at: T1 } };

describe('bulk send decider', () => {
  it('starts a job with its rows as a blob reference, and records rows refused at validation as failed in the same append', () => {
    spec.given([]).when(start()).then([started()]);
    spec.given([]).when(start({ invalid_rows: [failure] })).then([started(), { ...failed, data: { ...failed.data, failed_at: T0 } }]);
  });

  it('a retried start is not a second job', () => {
    spec.given([started()]).when(start()).thenNothing();
  });

  it.each([
    ['no rows', { row_count: 0 }, 'missing_parameter'],
    ['more rows than a job holds', { row_count: MAX_BULK_SEND_ROWS + 1 }, 'invalid_parameter'],
    ['only invalid rows', { row_count: 1, invalid_rows: [{ ...failure, row: 1 }] }, 'invalid_parameter'],
  ])('refuses %s', (_what, over, code) => {
    spec.given([]).when(start(over)).thenThrows(code, { param: 'rows' });
  });

  it('records each row once: a resumed worker recording a row again changes nothing', () => {
    spec.given([started()]).when({ type: 'RecordRowSent', row: 1, document_id: DOC(1), external_id: null, now: T1 }).then([sent(1)]);
    spec.given([started(), sent(1)]).when({ type: 'RecordRowSent', row: 1, document_id: DOC(1), external_id: null, now: T1 }).thenNothing();
    spec.given([started(), failed]).when({ type: 'RecordRowFailed', failure, now: T1 }).thenNothing();
  });

  it('the last row completes the job in the same append, with the counts and the template (for the bulk_send.completed webhook)', () => {
    const state = spec
      .given([started(), sent(1), failed])
      .when({ type: 'RecordRowSent', row: 3, document_id: DOC(3), external_id: null, now: T1 })
      .then([
        sent(3),
        { type: 'BulkSendCompleted', data: { sent: 2, failed: 1, completed_at: T1, template_id: 'tmpl_0123456789abcdef01234567', template_version: 2, row_count: 3 } },
      ]);
    expect(state).toMatchObject({ status: 'completed', sent_count: 2, failed_count: 1 });
  });

  it('refuses a row outside the job', () => {
    spec.given([started()]).when({ type: 'RecordRowSent', row: 4, document_id: DOC(4), external_id: null, now: T1 }).thenThrows('invalid_parameter', { param: 'row' });
    spec.given([]).when({ type: 'RecordRowSent', row: 1, document_id: DOC(1), external_id: null, now: T1 }).thenThrows('bulk_send_not_found', 'not_found');
  });

  it('cancels the rows not yet sent; a document that went out meanwhile is still recorded, a failure no longer', () => {
    const canceled: BulkSendEvent = { type: 'BulkSendCanceled', data: { sent: 1, failed: 0, canceled_rows: 2, canceled_at: T1 } };
    spec.given([started(), sent(1)]).when({ type: 'CancelBulkSend', now: T1 }).then([canceled]);
    spec.given([started(), sent(1), canceled]).when({ type: 'CancelBulkSend', now: T1 }).thenNothing();
    spec.given([started(), sent(1), canceled]).when({ type: 'RecordRowSent', row: 2, document_id: DOC(2), external_id: null, now: T1 }).then([sent(2)]);
    spec.given([started(), sent(1), canceled]).when({ type: 'RecordRowFailed', failure, now: T1 }).thenNothing();
  });

  it('a completed job cannot be canceled (its documents can)', () => {
    spec.given([started(1), sent(1), { type: 'BulkSendCompleted', data: { sent: 1, failed: 0, completed_at: T1 } }]).when({ type: 'CancelBulkSend', now: T1 }).thenThrows('bulk_send_not_running', 'conflict');
  });

  it('records a window of rows in one append, each once, and the row that finishes the job completes it', () => {
    const outcomes = [
      { row: 1, document_id: DOC(1), external_id: null },
      { failure },
      { row: 1, document_id: DOC(1), external_id: null },
    ];
    spec.given([started(), sent(3)]).when({ type: 'RecordRows', outcomes, now: T1 }).then([
      sent(1),
      failed,
      { type: 'BulkSendCompleted', data: { sent: 2, failed: 1, completed_at: T1, template_id: 'tmpl_0123456789abcdef01234567', template_version: 2, row_count: 3 } },
    ]);
    // Recorded already (a resumed worker): nothing; after a cancel the sent rows still count, the failures do not.
    spec.given([started(), sent(1)]).when({ type: 'RecordRows', outcomes: [{ row: 1, document_id: DOC(1), external_id: null }], now: T1 }).thenNothing();
    spec.given([started(), { type: 'BulkSendCanceled', data: { sent: 0, failed: 0, canceled_rows: 3, canceled_at: T1 } }])
      .when({ type: 'RecordRows', outcomes: [{ row: 1, document_id: DOC(1), external_id: null }, { failure }], now: T1 })
      .then([sent(1)]);
    spec.given([started()]).when({ type: 'RecordRows', outcomes: [{ row: 9, document_id: DOC(9), external_id: null }], now: T1 }).thenThrows('invalid_parameter', { param: 'row' });
  });

  it('folds a stream in one pass to the state evolve reaches event by event, without touching the state it starts from', () => {
    const events: BulkSendEvent[] = [started(5), sent(1), failed, sent(3), { type: 'BulkSendCanceled', data: { sent: 2, failed: 1, canceled_rows: 2, canceled_at: T1 } }, sent(4)];
    const byEvolve = events.reduce(bulkSendDecider.evolve, bulkSendDecider.initialState());
    expect(bulkSendDecider.foldFrom!(bulkSendDecider.initialState(), events)).toEqual(byEvolve);
    const middle = events.slice(0, 3).reduce(bulkSendDecider.evolve, bulkSendDecider.initialState());
    const copy = JSON.parse(JSON.stringify(middle));
    expect(bulkSendDecider.foldFrom!(middle, events.slice(3))).toEqual(byEvolve);
    expect(middle).toEqual(copy);
  });

  it('names its stream bulk-send-<id>', () => {
    expect(bulkSendStreamId(ID)).toBe(`bulk-send-${ID}`);
  });
  describe('an id under which no job was started in time (the worker\'s reservation sweep)', () => {
    const abandon: BulkSendCommand = { type: 'AbandonUnstartedBulkSend', bulk_send_id: ID, organization_id: 'org_1', now: T1 };
    const abandoned: BulkSendEvent = { type: 'BulkSendAbandoned', data: { bulk_send_id: ID, organization_id: 'org_1', reason: 'not_started', abandoned_at: T1 } };

    it('is fenced on an empty stream: a start on its way afterwards is refused, so no job runs on credits given back', () => {
      spec.given([]).when(abandon).then([abandoned]);
      spec.given([abandoned]).when(start()).thenThrows('bulk_send_abandoned', 'conflict');
    });

    it('a job that started is never abandoned, and a second sweep adds nothing', () => {
      spec.given([started()]).when(abandon).thenNothing();
      spec.given([started(), sent(1)]).when(abandon).thenNothing();
      spec.given([abandoned]).when(abandon).thenNothing();
    });

    it('an abandoned id is no job: nothing can be recorded on it or cancel it', () => {
      spec.given([abandoned]).when({ type: 'CancelBulkSend', now: T1 }).thenThrows('bulk_send_not_found', 'not_found');
      spec.given([abandoned]).when({ type: 'RecordRowSent', row: 1, document_id: DOC(1), external_id: null, now: T1 }).thenThrows('bulk_send_not_found', 'not_found');
    });
  });
});
