import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { deliveryStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { EmailSendResult, OutgoingEmail, RecordingEmailSender } from '@dojang/notifications';
import { ReadStore } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { ManualClock } from './clock';
import { DeliveryEvidence } from './history/delivery-evidence';
import { MESSAGE_LOG, MessageLogRow, NotificationRequest, Notifier, messageId } from './notifier';
import { REACTOR_FAILURES, Reactor, ReactorRunner } from './reactor-runner';

const DOC = '3f0b6a52-8d0e-4c55-9d5e-2f6f2b0f7a11';
const CLAIM_MS = 60_000;

/** A mail server that receives the message and never answers (the worker is killed before it does). */
class SilentSink extends RecordingEmailSender {
  async send(email: OutgoingEmail): Promise<EmailSendResult> {
    this.sent.push(email);
    return new Promise<EmailSendResult>(() => undefined);
  }
}

/** A read store whose `putIfVersion` on the message log fails `n` times once armed: the database went away after the send. */
function failingFinish(reads: ReadStore, state: { n: number }): ReadStore {
  return new Proxy(reads, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver) as unknown;
      if (prop !== 'putIfVersion') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
      return async (collection: string, doc: MessageLogRow, version: number | null) => {
        if (collection === MESSAGE_LOG && doc.status === 'sent' && state.n-- > 0) {
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        }
        return obj.putIfVersion(collection, doc, version);
      };
    },
  });
}

/**
 * Issue 24 §3: a worker SIGKILLed mid-send lost that e-mail for good. The message was claimed
 * `sending` for 5 minutes; the restarted worker replayed the event inside that window, skipped it,
 * and nothing ever revisited the claim. Now a stale claim is handed back to its reactor (a parked
 * event due now) and sent once more: at least once, at most twice, and recorded once.
 */
describe('message claims: at least once, at most twice, always recorded', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let clock: ManualClock;
  let eventId: string;
  let event: StoredEvent;

  const request = (): NotificationRequest => ({
    key: `${eventId}:p1:email`,
    kind: 'signing_request',
    organization_id: 'org_1',
    livemode: true,
    document_id: DOC,
    participant_id: 'p1',
    channel: 'email',
    to: 'kim.chulsoo@example.com',
    subject: '서명 요청',
    body: 'please sign',
    causation_id: eventId,
    origin: { reactor: 'mailer', stream_id: event.stream_id, event_id: eventId },
  });
  const notifier = (email: RecordingEmailSender, store: ReadStore = reads) =>
    new Notifier(store, clock, email, null, { attempts: 1, baseDelayMs: 0, sleep: async () => undefined, claimMs: CLAIM_MS }, () => undefined, new DeliveryEvidence(events));
  /** The reactor that asks for the message, as the signing notifications reactor does. */
  const mailer = (n: Notifier): Reactor => ({
    name: 'mailer',
    handles: new Set(['DocumentSent']),
    react: async () => n.send(request()),
  });
  const delivered = () => events.readStream(deliveryStreamId(DOC));
  const logRow = () => reads.get<MessageLogRow>(MESSAGE_LOG, messageId(request().key));

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-claims-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
    eventId = randomUUID();
    await events.append(`document-${DOC}`, [{ event_id: eventId, type: 'DocumentSent', data: {}, metadata: { occurred_at: clock.now().toISOString(), actor: 'test', schema_version: 1 } }], 'any');
    [event] = await events.readStream(`document-${DOC}`);
    await reads.ensureCollection({ name: REACTOR_FAILURES });
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a send cut off by a kill is sent once more after its claim ran out, and recorded once', async () => {
    const sink = new SilentSink();
    const killed = notifier(sink);
    await killed.init();
    // The first worker claims and sends; the sink has the message; the worker dies before the reply.
    void killed.send(request());
    await new Promise((r) => setImmediate(r));
    expect(sink.sent).toHaveLength(1);

    // The restarted worker replays the event inside the claim: the claim is someone else's.
    const survivorSink = new RecordingEmailSender();
    const survivor = notifier(survivorSink);
    await survivor.send(request());
    expect(survivorSink.sent).toHaveLength(0);
    expect(await survivor.sweepStale()).toBe(0);

    // Past the claim, the sweeper hands the message back to its reactor, and the parked retry sends it.
    clock.advance(CLAIM_MS + 1);
    expect(await survivor.sweepStale()).toBe(1);
    const runner = new ReactorRunner(events, reads, [mailer(survivor)], { clock, leaseRenewIntervalMs: 0 });
    expect(await runner.retryParked()).toMatchObject({ retried: 1, recovered: 1 });
    expect(survivorSink.sent).toHaveLength(1);
    expect(sink.sent.length + survivorSink.sent.length).toBe(2);
    expect(await logRow()).toMatchObject({ status: 'sent', claims: 2 });
    expect(await delivered()).toHaveLength(1);

    // Nothing is left to sweep, and no third send ever happens.
    clock.advance(CLAIM_MS * 10);
    expect(await survivor.sweepStale()).toBe(0);
    await survivor.send(request());
    expect(survivorSink.sent).toHaveLength(1);
    expect(await reads.find(REACTOR_FAILURES, {})).toEqual([]);
  });

  it('a message whose second send was cut off too is given up (never a third), for an operator to see', async () => {
    const first = notifier(new SilentSink());
    await first.init();
    void first.send(request());
    await new Promise((r) => setImmediate(r));
    clock.advance(CLAIM_MS + 1);
    const second = new SilentSink();
    void notifier(second).send(request());
    await new Promise((r) => setImmediate(r));
    expect(second.sent).toHaveLength(1);
    clock.advance(CLAIM_MS + 1);
    const third = new RecordingEmailSender();
    await notifier(third).send(request());
    expect(third.sent).toHaveLength(0);
    expect(await logRow()).toMatchObject({ status: 'failed', claims: 2 });
    expect((await logRow())?.error).toMatch(/sent 2 times without an answer/);
  });

  it('a send that finishes while the database is away is recorded once it is back, without sending again', async () => {
    const sink = new RecordingEmailSender();
    const down = { n: 3 };
    const n = notifier(sink, failingFinish(reads, down));
    await n.init();
    await n.send(request());
    expect(down.n).toBeLessThan(0);
    expect(sink.sent).toHaveLength(1);
    expect(await logRow()).toMatchObject({ status: 'sent', claims: 1 });
    const [record] = await delivered();
    expect(record).toMatchObject({ type: 'MessageDelivered', data: { message_id: messageId(request().key) } });
  });
});
