/**
 * Issue 23: every time carries the organization's zone, and its logo travels with its brand. An
 * organization in New York sends a live document: the e-mail (a real SMTP server), the KakaoTalk
 * 알림톡 (a fake SOLAPI), the completion SMS, the signing session the page reads and the audit
 * certificate (made in the PDF pool) all state times in EST; the test-mode outbox shows the logo
 * in the e-mail's header by its public URL.
 */
import { OUTBOX, OutboxRow } from '@dojang/application';
import { pdfimages, pdftotext } from '@dojang/pdf/testing/poppler';
import { binary } from '../files/file-helpers';
import { client, expectStatus } from '../support/api-helpers';
import { solidPngBytes } from '../support/png';
import { bearer, TestApp } from '../support/test-app';
import { sendDocument, signAs, MessagingApp, startMessagingApp } from '../webhooks/webhook-test-kit';

const KAKAO = { pf_id: 'KA01PF2612010900000000000001', templates: { signing_request: 'DJ_REQ_01' } };
const NY = { brand: { display_name: 'Acme', color: '#1a56db' }, time_zone: 'America/New_York', kakao: KAKAO };

describe('times in the organization\'s zone and its logo, end to end', () => {
  let m: MessagingApp;
  let t: TestApp;
  let smtp: MessagingApp['smtp'];
  let solapi: MessagingApp['solapi'];
  beforeAll(async () => {
    m = await startMessagingApp();
    ({ t, smtp, solapi } = m);
    // 1 December 2026, 22:00 in New York.
    t.clock!.set('2026-12-02T03:00:00.000Z');
  });
  afterAll(() => m.close());
  const settle = () => m.settle();

  it('an organization in New York: e-mail, KakaoTalk, SMS, the signing session and the certificate all read EST', async () => {
    const org = await t.createOrg('Acme Inc.');
    await t.admin.grantCredits(org.id, 5, 'test');
    const live = client(t, org.live);
    expectStatus(await live.patch('/organization', NY), 200);
    const logo = expectStatus(await t.http.put('/v1/organization/logo').set(bearer(org.live)).attach('file', solidPngBytes(160, 40, [26, 86, 219, 255]), 'logo.png'), 200).body.brand.logo;

    const doc = await sendDocument(live, {
      title: 'Offer letter',
      participants: [
        { name: '박메일', email: 'park@example.com' },
        { name: '김카톡', phone: '010-1111-2222' },
        { name: '최문자', phone: '01055556666', channel: 'sms' },
      ],
      send: { expires_on: '2026-12-10' },
    });
    const sent = expectStatus(await live.get(`/documents/${doc.id}`), 200).body;
    expect(sent.expires_at).toBe('2026-12-11T04:59:59.999Z'); // 23:59:59.999 EST
    await settle();

    const [mail] = smtp.received.filter((m) => m.to.includes('park@example.com'));
    expect(mail.text).toContain('서명 기한: 2026년 12월 10일 오후 11:59 (EST)');
    expect(mail.text).not.toContain('KST');
    const kakao = solapi.received.find((m) => m.type === 'ATA' && m.to === '01011112222')!;
    expect(kakao.kakaoOptions!.variables['#{기한}']).toBe('2026년 12월 10일 오후 11:59 (EST)');

    // The signing session names the zone and the logo the page shows.
    const session = expectStatus(await t.http.get(`/v1/signing/${doc.participants[1].token}`), 200).body;
    expect(session.sender).toEqual({ display_name: 'Acme', color: '#1a56db', time_zone: 'America/New_York', logo_url: new URL(logo.url).pathname });

    // Completed on 10 December at 20:00 in New York; the SMS-only participant gets the link by SMS, its time in EST.
    t.clock!.set('2026-12-11T01:00:00.000Z');
    for (const p of doc.participants) await signAs(t, p.token);
    await settle();
    const completed = solapi.received.filter((m) => m.type !== 'ATA' && m.to === '01055556666' && (m.text ?? '').includes('서명 완료'));
    expect(completed).toHaveLength(1);
    expect(completed[0].text).toMatch(/\(EST\)까지/);
    expect(completed[0].text).not.toContain('KST');

    // The certificate, rendered in the PDF pool: EST throughout, the zone named, the logo at its head.
    const certificate = (await t.http.get(`/v1/documents/${doc.id}/file?audit=true`).set(bearer(org.live)).buffer(true).parse(binary).expect(200)).body as Buffer;
    const printed = pdftotext(certificate);
    expect(printed).toContain('2026-12-10 23:59:59 EST'); // the expiry
    expect(printed).toContain('2026-12-10 20:00:00 EST'); // the signatures
    expect(printed).toContain('America/New_York');
    expect(printed).not.toContain('KST');
    expect(pdfimages(certificate)).toMatch(/\b160\s+40\b/);
  });

  it('the test-mode outbox shows the e-mail\'s header: the logo by its public URL, the display name as alt text', async () => {
    const org = await t.createOrg('Acme Inc.');
    const c = client(t, org.test);
    expectStatus(await c.patch('/organization', { brand: NY.brand }), 200);
    const logo = expectStatus(await t.http.put('/v1/organization/logo').set(bearer(org.test)).attach('file', solidPngBytes(400, 100), 'logo.png'), 200).body.brand.logo;
    const doc = await sendDocument(c, { participants: [{ name: '박메일', email: 'park@example.com' }] });
    await settle();
    // The HTML as the outbox stored it (the listing shows the text).
    const htmlOf = async (documentId: string) => {
      const [listed] = expectStatus(await c.get(`/outbox?document_id=${documentId}&limit=10`), 200).body.data;
      return (await t.infra.reads.get<OutboxRow>(OUTBOX, listed.id))!.html!;
    };
    expect(await htmlOf(doc.id)).toContain(`<img src="${logo.url}" width="192" height="48" alt="Acme"`);
    // The URL answers without a key, as a mail client fetches it.
    expect((await t.http.get(new URL(logo.url).pathname)).status).toBe(200);

    // Removed: the next e-mail has the name again and no image.
    expectStatus(await t.http.delete('/v1/organization/logo').set(bearer(org.test)), 200);
    const next = await sendDocument(c, { participants: [{ name: '박메일', email: 'park2@example.com' }] });
    await settle();
    const second = await htmlOf(next.id);
    expect(second).not.toContain('<img');
    expect(second).toContain('>Acme</div>');
  });
});
