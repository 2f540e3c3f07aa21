/**
 * Issue 23 items 2–4 end to end: a live document whose phone messages go by KakaoTalk 알림톡
 * (SOLAPI, a local fake of its HTTP API), one refused at the fake and replaced by an LMS, both
 * attempts in the hash-chained delivery evidence; the organization's brand in e-mail (a real SMTP
 * server) and SMS; a deadline given as a day, ending at midnight in the organization's zone; and
 * the test-mode outbox naming the channel that carried each message.
 */
import { DeliveryEvent, deliveryStreamId } from '@dojang/domain';
import { verifyDeliveryChain } from '@dojang/verifier';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { binary } from '../files/file-helpers';
import { client, expectError, expectStatus } from '../support/api-helpers';
import { bearer, TestApp } from '../support/test-app';
import { sendDocument, MessagingApp, startMessagingApp } from '../webhooks/webhook-test-kit';

const KAKAO = { pf_id: 'KA01PF2603020900000000000001', templates: { signing_request: 'DJ_REQ_01', reminder: 'DJ_REM_01' } };
const BRAND = { display_name: '도장상사', color: '#1A56DB', reply_to: 'hr@dojang-sangsa.example' };

describe('KakaoTalk with SMS fallback, the sender\'s brand and time zone', () => {
  let m: MessagingApp;
  let t: TestApp;
  let smtp: MessagingApp['smtp'];
  let solapi: MessagingApp['solapi'];
  beforeAll(async () => {
    m = await startMessagingApp();
    ({ t, smtp, solapi } = m);
  });
  afterAll(() => m.close());
  const settle = () => m.settle();

  it('configures brand, zone and KakaoTalk per organization, refusing bad parts without recording any', async () => {
    const org = await t.createOrg('주식회사 도장상사');
    const c = client(t, org.live);
    const before = expectStatus(await c.get('/organization'), 200).body;
    expect(before).toMatchObject({ brand: { display_name: null, color: null, reply_to: null }, time_zone: 'Asia/Seoul', quiet_hours: { start: '21:00', end: '08:00' }, kakao: null });
    expectError(await c.patch('/organization', { brand: { color: 'blue' } }), 400, 'invalid_parameter', 'color');
    expectError(await c.patch('/organization', { time_zone: 'Seoul' }), 400, 'invalid_parameter', 'time_zone');
    // The brand part is fine, the kakao part is not: nothing is recorded.
    expectError(await c.patch('/organization', { brand: BRAND, kakao: { pf_id: KAKAO.pf_id, templates: { pin: 'X' } } }), 400, 'invalid_parameter', 'kakao.templates.pin');
    expect(expectStatus(await c.get('/organization'), 200).body.brand.display_name).toBeNull();
    const after = expectStatus(await c.patch('/organization', { brand: BRAND, time_zone: 'Asia/Seoul', quiet_hours: { start: '22:00', end: '07:30' }, kakao: KAKAO }), 200).body;
    expect(after).toMatchObject({ brand: { ...BRAND, color: '#1a56db' }, quiet_hours: { start: '22:00', end: '07:30' }, kakao: KAKAO });
  });

  it('sends by KakaoTalk, falls back to LMS when KakaoTalk refuses, and chains both attempts; e-mail and SMS carry the brand and a zoned deadline', async () => {
    const org = await t.createOrg('주식회사 도장상사');
    await t.admin.grantCredits(org.id, 5, 'test');
    const live = client(t, org.live);
    expectStatus(await live.patch('/organization', { brand: BRAND, kakao: KAKAO }), 200);
    solapi.refuseKakaoTo('01099998888');
    const doc = await sendDocument(live, {
      title: '2026년 근로계약서',
      participants: [
        { name: '김카톡', phone: '010-1111-2222' },
        { name: '이대체', phone: '010-9999-8888', channel: 'kakao' },
        { name: '박메일', email: 'park@example.com', phone: '01033334444', channel: 'email' },
        { name: '최문자', phone: '01055556666', channel: 'sms' },
      ],
      // The clock reads 2026-03-02 18:00 KST: the request holds through 5 March in Seoul.
      send: { expires_on: '2026-03-05' },
    });
    const sent = expectStatus(await live.get(`/documents/${doc.id}`), 200).body;
    expect(sent.expires_at).toBe('2026-03-05T14:59:59.999Z');
    expect(sent.participants.map((p: any) => p.channel)).toEqual(['auto', 'kakao', 'email', 'sms']);
    await settle();

    // KakaoTalk: the approved template with Dojang's variables and a button to the signing page.
    const ata = solapi.received.filter((m) => m.type === 'ATA');
    expect(ata.map((m) => [m.to, m.accepted])).toEqual(expect.arrayContaining([['01011112222', true], ['01099998888', false]]));
    expect(ata).toHaveLength(2);
    const kim = ata.find((m) => m.to === '01011112222')!;
    expect(kim.kakaoOptions).toMatchObject({ pfId: KAKAO.pf_id, templateId: 'DJ_REQ_01', disableSms: true });
    expect(kim.kakaoOptions!.variables).toMatchObject({ '#{회사명}': '도장상사', '#{이름}': '김카톡', '#{문서명}': '2026년 근로계약서', '#{기한}': '2026년 3월 5일 오후 11:59 (KST)', '#{링크}': doc.participants[0].signing_url });

    // The refused one went again as text; so did the participant who chose SMS. Korean, branded, long enough for LMS.
    const texts = solapi.received.filter((m) => m.type !== 'ATA');
    expect(texts.map((m) => m.to).sort()).toEqual(['01055556666', '01099998888']);
    for (const m of texts) {
      expect(m.type).toBe('LMS');
      expect(m.subject).toBe('[도장상사] 서명 요청');
      expect(m.text).toMatch(/^\[도장상사\] 주식회사 도장상사님이 「2026년 근로계약서」 서명을 요청했습니다\. https?:\/\//);
      expect(m.text).not.toContain('Dojang');
    }

    // E-mail only to the one who chose e-mail: From the brand at the installation's address, its Reply-To, its deadline in KST.
    const mails = smtp.received.filter((m) => m.to.includes('park@example.com'));
    expect(mails).toHaveLength(1);
    expect(mails[0].from).toEqual({ name: '도장상사', address: 'sign@dojang.test' });
    expect(mails[0].replyTo).toBe(BRAND.reply_to);
    expect(mails[0].subject).toBe('[도장상사] 서명 요청: 2026년 근로계약서');
    expect(mails[0].text).toContain('서명 기한: 2026년 3월 5일 오후 11:59 (KST)');
    expect(mails[0].text).not.toContain('Please sign');

    // Evidence: the failed KakaoTalk attempt and the LMS that replaced it, both in the chain.
    const stream = await t.infra.events.readStream(deliveryStreamId(doc.id));
    const events = stream.map((e) => ({ type: e.type, data: e.data }) as DeliveryEvent);
    const failed = events.filter((e) => e.type === 'MessageDeliveryFailed');
    expect(failed).toHaveLength(1);
    const refusedAt = solapi.received.find((m) => m.to === '01099998888' && m.type === 'ATA')!;
    expect(failed[0].data).toMatchObject({ channel: 'kakao', kind: 'signing_request', provider_message_id: refusedAt.messageId, provider_status: '3104', recipient_masked: expect.stringContaining('*') });
    const fallback = events.find((e) => e.type === 'MessageDelivered' && e.data.fallback_of === failed[0].data.message_id);
    expect(fallback?.data).toMatchObject({ channel: 'sms', sms_type: 'LMS', provider_message_id: texts.find((m) => m.to === '01099998888')!.messageId });
    expect(events.filter((e) => e.type === 'MessageDelivered').map((e) => e.data.channel).sort()).toEqual(['email', 'kakao', 'sms', 'sms']);
    expect(verifyDeliveryChain(doc.id, stream as never)).toMatchObject({ intact: true, events: 5 });

    // The audit list (what the certificate prints) has both attempts.
    const history = expectStatus(await live.get(`/documents/${doc.id}/history?include=deliveries`), 200).body;
    expect(history.deliveries.data.map((e: any) => e.type)).toEqual(expect.arrayContaining(['MessageDeliveryFailed', 'MessageDelivered']));
    expect(history.deliveries.chain).toMatchObject({ verified: true });

    // The audit certificate lists the KakaoTalk attempt, its failure and the fallback.
    const certificate = (await t.http.get(`/v1/documents/${doc.id}/file?audit=true`).set(bearer(org.live)).buffer(true).parse(binary).expect(200)).body as Buffer;
    const printed = pdftotext(certificate).replace(/\s+/g, ' ');
    expect(printed).toContain('카카오 알림톡 (KakaoTalk)');
    expect(printed).toContain('알림톡 미전달');
    expect(printed).toContain('알림톡 대체');

    // Replaying the reactors sends nothing twice.
    const count = solapi.received.length;
    await settle();
    expect(solapi.received.length).toBe(count);
  });

  it('texts foreign mobiles (+81, +1, +84) through SOLAPI with their country code, a KakaoTalk organization\'s 알림톡 to them sent as SMS from the start (issue 32)', async () => {
    const org = await t.createOrg('주식회사 도장상사');
    await t.admin.grantCredits(org.id, 5, 'test');
    const live = client(t, org.live);
    expectStatus(await live.patch('/organization', { brand: BRAND, kakao: KAKAO }), 200);
    const doc = await sendDocument(live, {
      title: 'Employment contract',
      participants: [
        { name: 'Sato Hanako', phone: '+81 90-1234-5678' },
        { name: 'Jane Doe', phone: '+1 415 555 2671', channel: 'sms' },
        { name: 'Nguyen Van An', phone: '+84 91 234 56 78', channel: 'kakao' },
        { name: '김카톡', phone: '010-1212-3434' },
      ],
    });
    await settle();

    // 알림톡 only to the Korean number: SOLAPI never saw one for a foreign number.
    const phones = ['01012123434', '9012345678', '4155552671', '912345678'];
    expect(solapi.received.filter((m) => m.type === 'ATA' && phones.includes(m.to)).map((m) => [m.to, m.country])).toEqual([['01012123434', '82']]);
    // Each foreign mobile got its request as text, with its calling code and national number.
    const abroad = solapi.received.filter((m) => m.country !== '82');
    expect(abroad.map((m) => [m.country, m.to]).sort()).toEqual([['1', '4155552671'], ['81', '9012345678'], ['84', '912345678']]);
    for (const m of abroad) {
      expect(['SMS', 'LMS']).toContain(m.type);
      expect(m.text).toContain('asks you to sign');
      expect(m.text).toContain(doc.participants.find((p) => m.text!.includes(p.signing_url))!.signing_url);
    }

    // Evidence: the notifier chose SMS for the foreign numbers (알림톡 reaches +82 numbers only), so
    // no KakaoTalk attempt was made, none is recorded as failed, and no SMS is a fallback.
    const stream = await t.infra.events.readStream(deliveryStreamId(doc.id));
    const events = stream.map((e) => ({ type: e.type, data: e.data }) as DeliveryEvent);
    expect(events.filter((e) => e.type === 'MessageDeliveryFailed')).toEqual([]);
    const delivered = events.filter((e) => e.type === 'MessageDelivered');
    const carried = (participant: string) => delivered.filter((e) => e.data.participant_id === participant).map((e) => [e.data.channel, e.data.fallback_of ?? null]);
    for (const p of doc.participants.slice(0, 3)) expect(carried(p.id)).toEqual([['sms', null]]);
    expect(carried(doc.participants[3].id)).toEqual([['kakao', null]]);
    expect(verifyDeliveryChain(doc.id, stream as never)).toMatchObject({ intact: true });
  });

  it('shows in the test-mode outbox which channel carried each message, and brands the PIN', async () => {
    const org = await t.createOrg('주식회사 도장상사');
    const c = client(t, org.test);
    expectStatus(await c.patch('/organization', { brand: BRAND, kakao: KAKAO }), 200);
    const doc = await sendDocument(c, {
      participants: [
        { name: 'Jane Doe', phone: '+1 415 555 2671', email: 'jane@example.com' },
        { name: '김카톡', phone: '01011112222', auth: 'sms_pin' },
        { name: 'Sato Hanako', phone: '+81 90-1234-5678', channel: 'kakao' },
      ],
    });
    await settle();
    const outbox = expectStatus(await c.get(`/outbox?document_id=${doc.id}&limit=100`), 200).body.data;
    const byTo = (to: string) => outbox.filter((m: any) => m.to === to);
    expect(byTo('01011112222').map((m: any) => [m.channel, m.template_id])).toEqual([['kakao', 'DJ_REQ_01']]);
    // A foreign number gets English; the e-mail carries the brand.
    const [mail] = byTo('jane@example.com');
    expect(mail).toMatchObject({ channel: 'email', from_name: '도장상사', reply_to: BRAND.reply_to, subject: '[도장상사] Please sign: 용역 계약서' });
    // Foreign mobiles get what live mode sends them: SMS/LMS, 알림톡 reaching +82 numbers only
    // (issue 32), whether KakaoTalk came from the organization's setting or was asked for.
    for (const p of [doc.participants[0], doc.participants[2]]) {
      const phoned = outbox.filter((m: any) => m.participant_id === p.id && m.channel !== 'email');
      expect(phoned.map((m: any) => [m.channel, m.template_id])).toEqual([['sms', null]]);
      expect(['SMS', 'LMS']).toContain(phoned[0].sms_type);
      expect(phoned[0].body).toContain('asks you to sign');
    }

    expectStatus(await t.http.post(`/v1/signing/${doc.participants[1].token}/pin`).send({}), 200);
    await settle();
    const pins = expectStatus(await c.get(`/outbox?document_id=${doc.id}&channel=sms&limit=100`), 200).body.data.filter((m: any) => m.kind === 'pin');
    expect(pins).toHaveLength(1);
    expect(pins[0]).toMatchObject({ channel: 'sms', sms_type: 'SMS', subject: '[도장상사] 인증번호' });
    expect(pins[0].body).toMatch(/^\[도장상사\] 인증번호 \d{6} \(10분 내 입력\)$/);
  });

  it('refuses an expires_on in the past, malformed, or given with expires_in_days', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const doc = expectStatus(await c.post('/documents', { title: 't', content: '<p>x</p>' }), 201).body;
    expectError(await c.post(`/documents/${doc.id}/send`, { expires_on: '2026-03-01' }), 400, 'invalid_parameter', 'expires_on');
    expectError(await c.post(`/documents/${doc.id}/send`, { expires_on: '2026-02-30' }), 400, 'invalid_parameter', 'expires_on');
    expectError(await c.post(`/documents/${doc.id}/send`, { expires_on: '2026-03-09', expires_in_days: 3 }), 400, 'invalid_parameter', 'expires_on');
  });
});
