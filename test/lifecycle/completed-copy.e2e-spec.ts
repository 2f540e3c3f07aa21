import { Client, client, expectStatus } from '../support/api-helpers';
import { expectApiError, outboxOf, sentWith, signer, tokenOf } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Every participant gets the completed contract (issue 21 item 8): e-mail with the PDF, and a
 * participant with only a phone an SMS whose link serves the signed PDF after the same PIN check
 * as signing, for a limited time.
 */
describe('the completed contract for a phone-only participant', () => {
  let t: TestApp;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true });
    c = client(t, (await t.createOrg('주식회사 도장')).test);
  });
  afterAll(() => t.close());

  it('the completion SMS link downloads the signed PDF after a PIN, and only for 30 days', async () => {
    const d = await sentWith(c, [
      { name: '근로자', phone: '01012345678', auth: 'sms_pin' },
      { name: '대표', email: 'ceo@example.com', signing_order: 2 },
      { name: '인사팀', role: 'cc', email: 'hr@example.com' },
    ]);
    const employee = signer(t, d.p['근로자'].token);
    expectStatus(await employee.pin(), 200);
    const signPin = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'pin').pop();
    expectStatus(await employee.verify(signPin.pin), 200);
    expectStatus(await employee.sign(), 200);
    // Before completion there is nothing to download.
    expectApiError(await t.http.get(`/v1/signing/${d.p['근로자'].token}/completed.pdf`), 409, 'document_not_completed');
    t.clock!.advance(2 * 60 * 60 * 1000);
    expect(expectStatus(await signer(t, d.p['대표'].token).sign(), 200).body.document.status).toBe('completed');

    const completed = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'completed');
    expect(completed.map((m) => `${m.channel} ${m.to}`).sort()).toEqual(['email ceo@example.com', 'email hr@example.com', 'sms 01012345678']);
    const sms = completed.find((m) => m.channel === 'sms');
    const link = sms.body.match(/https?:\/\/\S+/)[0];
    expect(link).toBe(sms.signing_url);
    const token = tokenOf(link);
    const owner = expectStatus(await c.get(`/documents/${d.id}/file`), 200).body as Buffer;

    // The signing PIN was used two hours ago: downloading needs a fresh PIN, as signing does.
    expectApiError(await t.http.get(`/v1/signing/${token}/completed.pdf`), 409, 'pin_verification_required');
    // The page's frame route serves the same bytes under the same check.
    expectApiError(await signer(t, token).file(), 409, 'pin_verification_required');
    // What the page reads to ask for the PIN before showing the signed PDF.
    expect(expectStatus(await signer(t, token).view(), 200).body).toMatchObject({ document: { status: 'completed' }, pin_required: true, pin_verified: false });
    expectStatus(await signer(t, token).pin(), 200);
    const pin = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'pin').pop();
    expect(pin.to).toBe('01012345678');
    expectApiError(await signer(t, token).verify(pin.pin === '000000' ? '111111' : '000000'), 400, 'pin_incorrect');
    expectStatus(await signer(t, token).verify(pin.pin), 200);
    expect(expectStatus(await signer(t, token).view(), 200).body.pin_verified).toBe(true);
    const pdf = await t.http.get(`/v1/signing/${token}/completed.pdf`).buffer(true);
    expectStatus(pdf, 200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(Buffer.compare(pdf.body as Buffer, owner)).toBe(0);
    expectStatus(await signer(t, token).file(), 200);

    const stream = await t.infra.events.readStream(`document-${d.id}`);
    expect(stream.filter((e) => e.type === 'PinIssued').map((e) => e.data.purpose ?? 'sign')).toEqual(['sign', 'download']);

    // Past the window the link no longer serves it, and no PIN is sent for it.
    t.clock!.advance(31 * DAY);
    expectApiError(await t.http.get(`/v1/signing/${token}/completed.pdf`), 410, 'download_expired');
    expectApiError(await signer(t, token).pin(), 410, 'download_expired');
  });

  it('the last signer sees the signed PDF at once: the PIN they just signed with counts', async () => {
    const d = await sentWith(c, [{ name: '을', phone: '01022223333', auth: 'sms_pin' }]);
    const s = signer(t, d.p['을'].token);
    expectStatus(await s.pin(), 200);
    const pin = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'pin').pop();
    expectStatus(await s.verify(pin.pin), 200);
    expect(expectStatus(await s.sign(), 200).body.document.status).toBe('completed');
    const res = await s.file();
    expectStatus(res, 200);
    expect(res.headers['content-type']).toBe('application/pdf');
    t.clock!.advance(31 * 60 * 1000);
    expectApiError(await s.file(), 409, 'pin_verification_required');
  });

  it('a participant without a PIN downloads with the link alone', async () => {
    const d = await sentWith(c, [{ name: '갑', phone: '01099998888' }]);
    expectStatus(await signer(t, d.p['갑'].token).sign(), 200);
    const sms = (await outboxOf(t, c, d.id)).find((m) => m.kind === 'completed');
    expect(sms).toMatchObject({ channel: 'sms', to: '01099998888' });
    const res = await t.http.get(`/v1/signing/${tokenOf(sms.signing_url)}/completed.pdf`).buffer(true);
    expectStatus(res, 200);
    expect((res.body as Buffer).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
