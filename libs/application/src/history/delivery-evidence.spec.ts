import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { deliveryStreamId } from '@dojang/domain';
import { EventStore, NewEvent, StoredEvent, verifyChain } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { RecordingEmailSender, RecordingSmsSender } from '@dojang/notifications';
import { ManualClock } from '../clock';
import { NotificationRequest, Notifier, messageId } from '../notifier';
import { DeliveryEvidence, DeliveryFact, DeliveryRecorder, deliveryEventId } from './delivery-evidence';
import { DocumentHistory } from './document-history';

const DOC = '3f0b6a52-8d0e-4c55-9d5e-2f6f2b0f7a11';
const PARTICIPANT = 'a1b2c3d4-0000-4000-8000-000000000001';

const request = (over: Partial<NotificationRequest> = {}): NotificationRequest => ({
  key: 'evt-1:p1:email',
  kind: 'signing_request',
  organization_id: 'org_1',
  livemode: true,
  document_id: DOC,
  participant_id: PARTICIPANT,
  channel: 'email',
  to: 'kim.chulsoo@example.com',
  subject: '서명 요청',
  body: 'please sign',
  causation_id: 'evt-1',
  ...over,
});

/** Fails the first `n` records, like an event store that is briefly down after the send. */
class FlakyRecorder implements DeliveryRecorder {
  constructor(
    private readonly inner: DeliveryRecorder,
    private n: number,
  ) {}
  async record(fact: DeliveryFact) {
    if (this.n-- > 0) throw new Error('event store unavailable');
    await this.inner.record(fact);
  }
}

describe('deliveries as hash-chained evidence', () => {
  let dir: string;
  let events: EventStore;
  let reads: SqliteReadStore;
  let clock: ManualClock;
  let email: RecordingEmailSender;
  let sms: RecordingSmsSender;

  const notifier = (recorder: DeliveryRecorder = new DeliveryEvidence(events)) =>
    new Notifier(reads, clock, email, sms, { attempts: 2, baseDelayMs: 0, sleep: async () => undefined }, () => undefined, recorder);
  const delivered = () => events.readStream(deliveryStreamId(DOC));

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-delivery-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
    email = new RecordingEmailSender();
    sms = new RecordingSmsSender();
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a live send becomes one MessageDelivered event with the provider id and the masked recipient', async () => {
    const n = notifier();
    await n.init();
    await n.send(request());
    const [event] = await delivered();
    expect(event).toMatchObject({
      event_id: deliveryEventId(messageId('evt-1:p1:email')),
      type: 'MessageDelivered',
      data: {
        message_id: messageId('evt-1:p1:email'),
        document_id: DOC,
        participant_id: PARTICIPANT,
        kind: 'signing_request',
        channel: 'email',
        recipient_masked: 'k**********@example.com',
        provider_message_id: '<recorded-1@dojang.local>',
        delivered_at: '2026-03-02T09:00:00.000Z',
      },
      metadata: { actor: 'system', organization_id: 'org_1', livemode: true, causation_id: 'evt-1' },
    });
    expect(JSON.stringify(event)).not.toContain('kim.chulsoo');
  });

  it('a message sent again under the same key is neither sent nor recorded twice', async () => {
    const n = notifier();
    await n.init();
    await n.send(request());
    clock.advance(60_000);
    await n.send(request());
    await notifier().send(request()); // another process
    expect(email.sent).toHaveLength(1);
    expect(await delivered()).toHaveLength(1);
  });

  it('a record lost after the send is retried until it is made, still once, without sending again', async () => {
    const n = notifier(new FlakyRecorder(new DeliveryEvidence(events), 3));
    await n.init();
    await n.send(request());
    expect(email.sent).toHaveLength(1);
    clock.advance(60_000);
    await n.send(request());
    expect(email.sent).toHaveLength(1);
    const [event] = await delivered();
    // The time of the send, not of the late record.
    expect(event.data.delivered_at).toBe('2026-03-02T09:00:00.000Z');
    expect(await delivered()).toHaveLength(1);
  });

  it('test mode records the outbox message with provider_message_id "outbox"; failed sends are not deliveries', async () => {
    const n = notifier();
    await n.init();
    await n.send(request({ livemode: false, key: 'k-test', channel: 'sms', to: '01012345678', kind: 'pin' }));
    await n.send(request({ livemode: false, key: 'k-test', channel: 'sms', to: '01012345678', kind: 'pin' }));
    email.failures.push(new Error('550 mailbox unavailable'));
    await n.send(request({ key: 'k-failed' }));
    const stored = await delivered();
    expect(stored.map((e) => [e.data.kind, e.data.channel, e.data.recipient_masked, e.data.provider_message_id])).toEqual([['pin', 'sms', '010-****-5678', 'outbox']]);
  });

  it('deliveries of one document chain like any stream, even when appended concurrently', async () => {
    const n = notifier();
    await n.init();
    await Promise.all(Array.from({ length: 6 }, (_, i) => n.send(request({ key: `k-${i}`, participant_id: `p-${i}` }))));
    const stored = await delivered();
    expect(stored).toHaveLength(6);
    expect(verifyChain(stored)).toMatchObject({ intact: true, events: 6 });
    // What the audit certificate can list: the facts with their chained hashes.
    const listed = await new DocumentHistory(events).deliveries(DOC);
    expect(listed.map((d) => d.participant_id).sort()).toEqual(['p-0', 'p-1', 'p-2', 'p-3', 'p-4', 'p-5']);
    expect(listed.map((d) => d.hash)).toEqual(stored.map((e) => e.metadata.hash));
  });

  it('records a message once even on a store that only catches a repeated event id among the latest events (EventStoreDB)', async () => {
    // An 'any' append on EventStoreDB checks a window of the stream's latest events for the id.
    const appended: StoredEvent[] = [];
    const forgetful = {
      readStream: async () => appended,
      append: async (streamId: string, batch: NewEvent[]) => {
        for (const e of batch) appended.push({ ...e, stream_id: streamId, stream_revision: appended.length, global_position: appended.length + 1 } as StoredEvent);
        return { next_expected_revision: appended.length - 1, position: appended.length };
      },
    } as unknown as EventStore;
    const recorder = new DeliveryEvidence(forgetful);
    const fact: DeliveryFact = { message_id: 'msg_1', kind: 'reminder', organization_id: 'org_1', livemode: true, document_id: DOC, participant_id: null, channel: 'sms', to: '01012345678', provider_message_id: 'SM1', delivered_at: '2026-03-02T09:00:00.000Z' };
    for (let i = 0; i < 20; i++) await recorder.record({ ...fact, message_id: `msg_other_${i}` });
    await recorder.record(fact);
    await recorder.record(fact);
    expect(appended.filter((e) => e.data.message_id === 'msg_1')).toHaveLength(1);
  });
});
