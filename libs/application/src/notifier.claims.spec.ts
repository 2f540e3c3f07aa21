import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { deliveryStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { DeliveryError, EmailSendResult, OutgoingEmail, RecordingEmailSender } from '@dojang/notifications';
import { ReadStore } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { ManualClock } from './clock';
import { DeliveryEvidence } from './history/delivery-evidence';
import { DroppedMessage, MESSAGE_LOG, MessageLogRow, NotificationRequest, Notifier, messageId } from './notifier';
import { REACTOR_FAILURES, Reactor, ReactorRunner } from './reactors/reactor-runner';

const DOC = '3f0b6a52-8d0e-4c55-9d5e-2f6f2b0f7a11';
const CLAIM_MS = 60_000;

/** A mail server that receives the message and never answers (the worker is killed before it does). */
class SilentSink extends RecordingEmailSender {
  async send(email: OutgoingEmail): Promise<EmailSendResult> {
    this.sent.push(email);
    return new Promise<EmailSendResult>(() => undefined);
  }
}

/**
 * A mail server whose first answer is held until the test gives it: the worker that sent the first
 * copy is as good as frozen (SIGSTOP) for as long as the test waits. Later copies are answered at once.
 */
class HeldSink extends RecordingEmailSender {
  private answer: { ok: () => void; fail: (err: unknown) => void } | null = null;
  async send(email: OutgoingEmail): Promise<EmailSendResult> {
    this.sent.push(email);
    if (this.sent.length > 1) return { messageId: `<${email.messageId}@dojang.test>` };
    return new Promise<EmailSendResult>((resolve, reject) => {
      this.answer = { ok: () => resolve({ messageId: `<${email.messageId}@dojang.test>` }), fail: reject };
    });
  }
  /** The SMTP server's 451 after the data, which the frozen worker reads on waking. */
  failFirst(): void {
    this.answer?.fail(new DeliveryError('451 4.3.0 try again later', { transient: true, channel: 'email', providerCode: 451 }));
  }
  answerFirst(): void {
    this.answer?.ok();
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

  /** A worker with retries (the notifier's real setting has 4 tries), telling what it dropped. */
  const retrying = (email: RecordingEmailSender, dropped: DroppedMessage[], owner: string) =>
    new Notifier(
      reads,
      clock,
      email,
      null,
      { attempts: 4, baseDelayMs: 0, sleep: async () => undefined, claimMs: CLAIM_MS, owner, onDropped: (d) => void dropped.push(d) },
      () => undefined,
      new DeliveryEvidence(events),
    );
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 1000 && !done(); i++) await new Promise((r) => setImmediate(r));
    expect(done()).toBe(true);
  };

  it('issue 33: a worker frozen mid-send wakes after its claim was taken over: its retry is fenced off, so two copies, both logged with one Message-ID', async () => {
    const frozenSink = new HeldSink();
    const dropped: DroppedMessage[] = [];
    const frozen = retrying(frozenSink, dropped, 'host-a:101');
    await frozen.init();
    const firstPass = frozen.send(request());
    await until(() => frozenSink.sent.length === 1);

    // Past the claim, the other worker takes it over (claim 2) and sends the second copy.
    clock.advance(CLAIM_MS + 1);
    const otherSink = new RecordingEmailSender();
    await retrying(otherSink, [], 'host-b:202').send(request());
    expect(otherSink.sent).toHaveLength(1);

    // The frozen worker wakes to the server's 451: before its retry, the fence finds claim 2.
    frozenSink.failFirst();
    await firstPass;
    expect(frozenSink.sent).toHaveLength(1);
    expect(dropped).toEqual([expect.objectContaining({ message_id: messageId(request().key), claim: 1, reason: 'claim_taken_over' })]);

    const id = messageId(request().key);
    expect([frozenSink.sent[0].messageId, otherSink.sent[0].messageId]).toEqual([id, id]);
    const row = await logRow();
    expect(row).toMatchObject({ status: 'sent', claims: 2 });
    expect(row?.sends?.map((a) => [a.claim, a.attempt, a.worker, a.outcome])).toEqual([
      [1, 1, 'host-a:101', 'failed'],
      [2, 1, 'host-b:202', 'sent'],
    ]);
    expect(row?.sends?.[0].error).toMatch(/451/);
    // The evidence shows both copies: the first unanswered when the second was recorded.
    const [record] = await delivered();
    expect((record.data as { sends: unknown[] }).sends).toEqual([
      expect.objectContaining({ claim: 1, attempt: 1, outcome: 'unanswered' }),
      expect.objectContaining({ claim: 2, attempt: 1, outcome: 'sent' }),
    ]);
    expect(await delivered()).toHaveLength(1);
  });

  it('issue 33: a frozen worker whose copy was accepted after the takeover logs that answer beside the other claim, and records the delivery once', async () => {
    const frozenSink = new HeldSink();
    const frozen = retrying(frozenSink, [], 'host-a:101');
    await frozen.init();
    const firstPass = frozen.send(request());
    await until(() => frozenSink.sent.length === 1);
    clock.advance(CLAIM_MS + 1);
    await retrying(new RecordingEmailSender(), [], 'host-b:202').send(request());
    frozenSink.answerFirst();
    await firstPass;
    const row = await logRow();
    expect(row).toMatchObject({ status: 'sent', claims: 2 });
    expect(row?.sends?.map((a) => [a.claim, a.outcome])).toEqual([
      [1, 'sent'],
      [2, 'sent'],
    ]);
    expect(await delivered()).toHaveLength(1);
  });

  it('issue 33: a signing request whose document concluded while its worker was frozen is dropped at the retry, not resent', async () => {
    const sink = new HeldSink();
    const dropped: DroppedMessage[] = [];
    let documentOpen = true;
    const n = retrying(sink, dropped, 'host-a:101');
    await n.init();
    const pass = n.send({ ...request(), stillWanted: async () => documentOpen });
    await until(() => sink.sent.length === 1);
    documentOpen = false; // the last signer signed: the document completed
    sink.failFirst();
    await pass;
    expect(sink.sent).toHaveLength(1);
    expect(dropped).toEqual([expect.objectContaining({ claim: 1, reason: 'no_longer_wanted' })]);
    const row = await logRow();
    expect(row).toMatchObject({ status: 'dropped', lease_until: null });
    expect(row?.sends?.map((a) => [a.claim, a.attempt, a.outcome])).toEqual([[1, 1, 'failed']]);
    // Nothing is handed back or sent later: a dropped message is finished.
    clock.advance(CLAIM_MS * 2);
    expect(await n.sweepStale()).toBe(0);
    await n.send(request());
    expect(sink.sent).toHaveLength(1);
  });

  it('issue 33: the store away at the fence sends nothing and answers a store error (fail closed); that claim does not count as a copy', async () => {
    const sink = new RecordingEmailSender();
    let armed = false;
    const flaky = new Proxy(reads, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver) as unknown;
        if (prop !== 'putIfVersion') return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
        return async (collection: string, doc: MessageLogRow, version: number | null) => {
          if (armed && collection === MESSAGE_LOG && doc.sends?.some((a) => a.outcome === 'sending')) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
          return obj.putIfVersion(collection, doc, version);
        };
      },
    });
    const n = notifier(sink, flaky);
    await n.init();
    armed = true;
    await expect(n.send(request())).rejects.toThrow(/ECONNREFUSED/);
    expect(sink.sent).toHaveLength(0);
    // Two more claims may still send: the one that sent nothing is not counted against "twice".
    armed = false;
    clock.advance(CLAIM_MS + 1);
    await notifier(sink).send(request());
    expect(sink.sent).toHaveLength(1);
    expect(await logRow()).toMatchObject({ status: 'sent', claims: 2 });
  });

  it('keeps the recipient masked in the errors the log records (transports name the address in theirs)', async () => {
    const sink = new RecordingEmailSender();
    sink.failures.push(
      new DeliveryError('e-mail to kim.chulsoo@example.com failed: 451 4.3.0 try later', { transient: true, channel: 'email' }),
      new DeliveryError('e-mail to kim.chulsoo@example.com failed: 550 5.1.1 no such user', { transient: false, channel: 'email' }),
    );
    const n = retrying(sink, [], 'host-a:101');
    await n.init();
    await n.send(request());
    const row = await logRow();
    expect(row).toMatchObject({ status: 'failed' });
    expect(row?.sends?.map((a) => a.outcome)).toEqual(['failed', 'failed']);
    expect(JSON.stringify(row)).not.toContain('kim.chulsoo@example.com');
    expect(row?.error).toContain(`e-mail to ${row?.to_masked} failed: 550`);
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
