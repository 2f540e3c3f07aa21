import { createHmac } from 'crypto';
import { Schema } from 'effect';
import { detailGroupMessageResponseSchema } from 'solapi';
import { DeliveryError, SolapiSender, solapiAuthorization } from '@dojang/notifications';
import { SOLAPI_API_KEY, SOLAPI_API_SECRET, SOLAPI_FROM, startFakeSolapi } from '../../../test/support/fake-solapi';

describe('SolapiSender against a local SOLAPI', () => {
  let fake: Awaited<ReturnType<typeof startFakeSolapi>>;
  let sender: SolapiSender;
  beforeAll(async () => {
    fake = await startFakeSolapi();
    sender = new SolapiSender({ apiKey: SOLAPI_API_KEY, apiSecret: SOLAPI_API_SECRET, from: '02-1234-5678', apiBaseUrl: fake.baseUrl });
  });
  afterAll(() => fake.close());

  it('signs requests the documented way', () => {
    const header = solapiAuthorization('K', 'S', new Date('2026-01-01T00:00:00.000Z'), 'salt');
    expect(header).toBe(`HMAC-SHA256 apiKey=K, date=2026-01-01T00:00:00.000Z, salt=salt, signature=${createHmac('sha256', 'S').update('2026-01-01T00:00:00.000Zsalt').digest('hex')}`);
  });

  it('answers in the shape the official SDK decodes', async () => {
    const res = await fetch(`${fake.baseUrl}/messages/v4/send-many/detail`, {
      method: 'POST',
      headers: { authorization: solapiAuthorization(SOLAPI_API_KEY, SOLAPI_API_SECRET), 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ to: '01000000000', from: SOLAPI_FROM, type: 'SMS', text: 'x' }] }),
    });
    const json = await res.json();
    expect(() => Schema.decodeUnknownSync(detailGroupMessageResponseSchema)(json)).not.toThrow();
  });

  it('sends an 알림톡 with the template, variables and a link button, SOLAPI\'s own SMS substitution off', async () => {
    const result = await sender.send({
      to: '010-1111-2222',
      pfId: 'KA01PF0000000000000000000001',
      templateId: 'DOJANG_REQ',
      variables: { '#{문서명}': '근로계약서' },
      text: '[도장상사] …',
      buttonUrl: 'https://dojang.example/sign/abc',
    });
    expect(result.status).toBe('2000');
    const sent = fake.received.find((m) => m.messageId === result.messageId);
    expect(sent).toMatchObject({ type: 'ATA', to: '01011112222', from: SOLAPI_FROM, kakaoOptions: { pfId: 'KA01PF0000000000000000000001', templateId: 'DOJANG_REQ', disableSms: true } });
    expect(sent?.kakaoOptions?.variables).toEqual({ '#{문서명}': '근로계약서' });
    expect(sent?.kakaoOptions?.buttons).toEqual([{ buttonType: 'WL', buttonName: '문서 확인하기', linkMo: 'https://dojang.example/sign/abc', linkPc: 'https://dojang.example/sign/abc' }]);
  });

  it('sends a short text as SMS and a long one as LMS with its subject', async () => {
    const short = await sender.send({ to: '01011112222', body: '[도장] 인증번호 123456', subject: '[도장] 인증번호' });
    const long = await sender.send({ to: '01011112222', body: `[도장] ${'가'.repeat(60)}`, subject: '[도장] 서명 요청' });
    expect(fake.received.find((m) => m.messageId === short.messageId)).toMatchObject({ type: 'SMS', subject: null });
    expect(fake.received.find((m) => m.messageId === long.messageId)).toMatchObject({ type: 'LMS', subject: '[도장] 서명 요청' });
  });

  it('sends a Korean number as domestic digits with no country, SOLAPI\'s default being 82', async () => {
    const result = await sender.send({ to: '+82 10-1111-2222', body: '[도장] 인증번호 123456' });
    const sent = fake.received.find((m) => m.messageId === result.messageId);
    expect(sent).toMatchObject({ type: 'SMS', to: '01011112222', country: '82' });
  });

  it.each([
    ['+1 415 555 2671', '1', '4155552671'],
    ['+81 90-1234-5678', '81', '9012345678'],
    ['+84 91 234 56 78', '84', '912345678'],
  ])('sends SMS and LMS to %s with country %s and the national number %s', async (phone, country, national) => {
    const short = await sender.send({ to: phone, body: 'Dojang code 123456' });
    const long = await sender.send({ to: phone, body: `[도장] ${'가'.repeat(60)}`, subject: '[도장] 서명 요청' });
    expect(fake.received.find((m) => m.messageId === short.messageId)).toMatchObject({ type: 'SMS', to: national, country, from: SOLAPI_FROM });
    expect(fake.received.find((m) => m.messageId === long.messageId)).toMatchObject({ type: 'LMS', to: national, country, subject: '[도장] 서명 요청' });
  });

  it('refuses an 알림톡 to a foreign number before asking SOLAPI, finally, saying why and not the number', async () => {
    const before = fake.received.length;
    const err = await sender.send({ to: '+81 90-1234-5678', pfId: 'KA01PF0000000000000000000001', templateId: 'T', variables: {}, text: 't' }).catch((e) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect(err).toMatchObject({ transient: false, channel: 'kakao', message: "KakaoTalk 알림톡 reaches Korean (+82) numbers only; this recipient's number is +81 (JP)" });
    expect(err.message).not.toContain('9012345678');
    expect(fake.received).toHaveLength(before);
  });

  it('refuses, finally and without a request, numbers that cannot receive text (an old "1588-1234" stored as 015881234, a landline)', async () => {
    const before = fake.received.length;
    for (const to of ['015881234', '02-123-4567', '+1 555 0100']) {
      await expect(sender.send({ to, body: 'x' })).rejects.toMatchObject({ name: 'DeliveryError', transient: false, channel: 'sms' });
    }
    expect(fake.received).toHaveLength(before);
  });

  it('reports a refused 알림톡 as a final failure carrying SOLAPI\'s message id and code', async () => {
    fake.refuseKakaoTo('01099998888');
    const err = await sender.send({ to: '01099998888', pfId: 'KA01PF0000000000000000000001', templateId: 'T', variables: {}, text: 't' }).catch((e) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect(err).toMatchObject({ transient: false, channel: 'kakao', providerCode: '3104' });
    expect(err.providerMessageId).toMatch(/^M4V/);
  });

  it('treats a bad key as final and an unreachable server as transient', async () => {
    const badKey = new SolapiSender({ apiKey: SOLAPI_API_KEY, apiSecret: 'wrong', from: SOLAPI_FROM, apiBaseUrl: fake.baseUrl });
    await expect(badKey.send({ to: '01011112222', body: 'x' })).rejects.toMatchObject({ transient: false, providerCode: 'SignatureDoesNotMatch' });
    const down = new SolapiSender({ apiKey: SOLAPI_API_KEY, apiSecret: SOLAPI_API_SECRET, from: SOLAPI_FROM, apiBaseUrl: 'http://127.0.0.1:9' });
    await expect(down.send({ to: '01011112222', body: 'x' })).rejects.toMatchObject({ transient: true });
  });
});
