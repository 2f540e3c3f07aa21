import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { deliveryStreamId } from '@dojang/domain';
import { EventStore } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { AlimtalkSender, DeliveryError, OutgoingAlimtalk, RecordingSmsSender } from '@dojang/notifications';
import { ManualClock } from './clock';
import { DeliveryEvidence } from './history/delivery-evidence';
import { MESSAGE_LOG, MessageLogRow, NotificationRequest, Notifier, OUTBOX, OutboxRow, messageId } from './notifier';

const DOC = '3f0b6a52-8d0e-4c55-9d5e-2f6f2b0f7a12';

class ScriptedAlimtalk implements AlimtalkSender {
  readonly sent: OutgoingAlimtalk[] = [];
  constructor(private readonly refuse: boolean) {}
  async send(message: OutgoingAlimtalk) {
    this.sent.push(message);
    if (this.refuse) throw new DeliveryError('KakaoTalk message refused: 3104 카카오톡 미사용자', { transient: false, channel: 'kakao', providerCode: '3104', providerMessageId: 'M4V0001' });
    return { messageId: 'M4V0002', status: '2000' };
  }
}

const request = (over: Partial<NotificationRequest> = {}): NotificationRequest => ({
  key: 'evt-1:p1:sms',
  kind: 'signing_request',
  organization_id: 'org_1',
  livemode: true,
  document_id: DOC,
  participant_id: 'p1',
  channel: 'kakao',
  to: '01099998888',
  subject: '[도장상사] 서명 요청',
  body: `[도장상사] 인사팀님이 「근로계약서」 서명을 요청했습니다. https://dojang.example/sign/${'t'.repeat(40)}`,
  kakao: { pf_id: 'KA01PF1', template_id: 'DJ_REQ', variables: { '#{문서명}': '근로계약서' } },
  causation_id: 'evt-1',
  ...over,
});

describe('Notifier: KakaoTalk with SMS/LMS fallback', () => {
  let dir: string;
  let events: EventStore;
  let reads: SqliteReadStore;
  let sms: RecordingSmsSender;
  const notifier = (alimtalk: AlimtalkSender | null) =>
    new Notifier(reads, new ManualClock(new Date('2026-03-02T09:00:00.000Z')), null, sms, { attempts: 2, baseDelayMs: 0, sleep: async () => undefined }, () => undefined, new DeliveryEvidence(events), alimtalk);

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-kakao-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    sms = new RecordingSmsSender();
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a delivered 알림톡 is one MessageDelivered on channel kakao, and no SMS', async () => {
    const n = notifier(new ScriptedAlimtalk(false));
    await n.init();
    await n.send(request());
    const stream = await events.readStream(deliveryStreamId(DOC));
    expect(stream.map((e) => [e.type, (e.data as { channel: string }).channel, (e.data as { provider_status?: string }).provider_status])).toEqual([['MessageDelivered', 'kakao', '2000']]);
    expect(sms.sent).toEqual([]);
  });

  it('a refused 알림톡 is recorded as failed and replaced by one LMS, however often the message is replayed', async () => {
    const kakao = new ScriptedAlimtalk(true);
    const n = notifier(kakao);
    await n.init();
    await n.send(request());
    await n.send(request());
    await notifier(kakao).send(request());
    // Tried once by KakaoTalk (a refusal is final), sent once by text, as LMS with its subject.
    expect(kakao.sent).toHaveLength(1);
    expect(sms.sent).toEqual([{ to: '01099998888', body: request().body, type: 'LMS', subject: '[도장상사] 서명 요청' }]);
    const stream = await events.readStream(deliveryStreamId(DOC));
    expect(stream.map((e) => e.type)).toEqual(['MessageDeliveryFailed', 'MessageDelivered']);
    const id = messageId('evt-1:p1:sms');
    expect(stream[0].data).toMatchObject({ message_id: id, channel: 'kakao', provider_message_id: 'M4V0001', provider_status: '3104' });
    expect(stream[1].data).toMatchObject({ message_id: messageId('evt-1:p1:sms:fallback'), channel: 'sms', sms_type: 'LMS', fallback_of: id });
    expect((await reads.get<MessageLogRow>(MESSAGE_LOG, id))?.status).toBe('fell_back');
  });

  it('a message meant for KakaoTalk to a foreign mobile is an SMS from the start, in live mode and in the test-mode outbox alike (issue 32)', async () => {
    // 알림톡 reaches +82 numbers only. Live mode used to try KakaoTalk and fall back; the test-mode
    // outbox said `kakao` for a message that live mode never sends by KakaoTalk.
    const kakao = new ScriptedAlimtalk(false);
    const n = notifier(kakao);
    await n.init();
    const abroad = request({ to: '+819012345678' });
    await n.send(abroad);
    await n.send(abroad);
    expect(kakao.sent).toEqual([]);
    expect(sms.sent).toEqual([{ to: '+819012345678', body: abroad.body, type: 'LMS', subject: '[도장상사] 서명 요청' }]);
    const stream = await events.readStream(deliveryStreamId(DOC));
    expect(stream.map((e) => [e.type, (e.data as { channel: string }).channel, (e.data as { fallback_of?: string }).fallback_of])).toEqual([['MessageDelivered', 'sms', undefined]]);
    expect(stream[0].data).toMatchObject({ message_id: messageId(abroad.key), sms_type: 'LMS' });

    await n.send(request({ livemode: false, key: 'evt-2:p1:sms', to: '+819012345678' }));
    await n.send(request({ livemode: false, key: 'evt-2:p2:sms', participant_id: 'p2', to: '01099998888' }));
    const outbox = await reads.find<OutboxRow>(OUTBOX, {});
    const row = (participant: string) => outbox.find((m) => m.participant_id === participant);
    expect(row('p1')).toMatchObject({ channel: 'sms', sms_type: 'LMS', template_id: null, to: '+819012345678', body: abroad.body });
    // A Korean mobile keeps KakaoTalk in both modes.
    expect(row('p2')).toMatchObject({ channel: 'kakao', sms_type: null, template_id: 'DJ_REQ' });
    expect(kakao.sent).toEqual([]);
  });

  it('without a KakaoTalk provider the phone still gets the message, by SMS', async () => {
    const n = notifier(null);
    await n.init();
    await n.send(request());
    expect(sms.sent).toHaveLength(1);
    const stream = await events.readStream(deliveryStreamId(DOC));
    expect(stream.map((e) => [e.type, (e.data as { channel: string }).channel])).toEqual([['MessageDelivered', 'sms']]);
  });
});
