import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MESSAGE_LOG, MessageLogRow } from '@dojang/application';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { client, expectStatus } from '../support/api-helpers';
import { TestApp } from '../support/test-app';
import { sendDocument, signAs, startDeliveryApp } from '../webhooks/webhook-test-kit';

/** A real SMTP server on loopback. The first DATA is answered 451 (try again later). */
async function startSmtp() {
  const received: Array<{ to: string[]; mail: ParsedMail }> = [];
  let dataCommands = 0;
  const server = new SMTPServer({
    // A worker's pooled connection may still be open when a test ends: close() ends it at once.
    closeTimeout: 500,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((r) => r.address);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        dataCommands += 1;
        if (dataCommands === 1) return callback(Object.assign(new Error('4.3.0 Mailbox temporarily unavailable'), { responseCode: 451 }));
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            received.push({ to, mail });
            callback();
          },
          (err) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    dataCommands: () => dataCommands,
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const ACCOUNT_SID = 'AC' + 'feedface'.repeat(4);
const AUTH_TOKEN = 'twilio-token-for-tests';

/** Twilio's Messages endpoint over loopback; the first request gets 503. */
async function startTwilio() {
  const received: URLSearchParams[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      res.setHeader('content-type', 'application/json');
      if (requests === 1) return void res.writeHead(503).end(JSON.stringify({ code: 20500, message: 'Service unavailable', status: 503 }));
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      received.push(form);
      res.writeHead(201).end(JSON.stringify({ sid: `SM${String(requests).padStart(32, '0')}`, account_sid: ACCOUNT_SID, status: 'queued', to: form.get('To'), from: form.get('From'), body: form.get('Body') }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    requests: () => requests,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const HANGUL = /[\uac00-\ud7a3]/;

describe('live e-mail and SMS through real servers', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let twilio: Awaited<ReturnType<typeof startTwilio>>;
  beforeAll(async () => {
    smtp = await startSmtp();
    twilio = await startTwilio();
    t = await startDeliveryApp({
      smtpUrl: smtp.url,
      mailFrom: 'Dojang <sign@dojang.test>',
      twilio: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: '+15005550006', apiBaseUrl: twilio.baseUrl },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
    await twilio.close();
  });

  const settle = async () => {
    await t.infra.runner.trigger();
    await t.worker!.runner.trigger();
  };
  const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address)).map((m) => m.mail);

  it('sends the signing request, a reminder and the completion mail with the final PDF; retries 451 and 503; audits masked', async () => {
    const org = await t.createOrg('주식회사 도장');
    await t.admin.grantCredits(org.id, 5, 'test');
    const live = client(t, org.live);
    const doc = await sendDocument(live, {
      title: '물품 공급 계약서',
      participants: [
        { name: '김서명', email: 'signer@example.com', phone: '01098765432' },
        { name: '이참조', email: 'copy@example.com', role: 'cc' },
      ],
    });
    await settle();

    // Signing request: e-mail (after one 451) and SMS (after one 503), to the signer only.
    const [request] = mailsTo('signer@example.com');
    expect(smtp.dataCommands()).toBe(2);
    expect(request.subject).toBe('[주식회사 도장] 서명 요청: 물품 공급 계약서');
    // The organization's name (its brand, by default) on the installation's address.
    expect(request.from?.value).toEqual([{ name: '주식회사 도장', address: 'sign@dojang.test' }]);
    expect(request.text).toMatch(HANGUL);
    expect(request.text).not.toContain('Please sign');
    expect(request.text).toContain(doc.participants[0].signing_url);
    expect(request.html).toContain(doc.participants[0].signing_url);
    expect(request.html).toMatch(HANGUL);
    expect(mailsTo('copy@example.com')).toEqual([]);
    expect(twilio.requests()).toBe(2);
    expect(twilio.received.map((f) => [f.get('To'), f.get('From')])).toEqual([['+821098765432', '+15005550006']]);
    expect(twilio.received[0].get('Body')).toContain(doc.participants[0].signing_url);

    // Manual reminder.
    expectStatus(await live.post(`/documents/${doc.id}/remind`), 200);
    await settle();
    const reminder = mailsTo('signer@example.com')[1];
    expect(reminder.subject).toBe('[주식회사 도장] 서명 요청 알림: 물품 공급 계약서');
    expect(reminder.text).toContain(doc.participants[0].signing_url);

    // Completion: signer and cc each get the final PDF.
    await signAs(t, doc.participants[0].token);
    await settle();
    const finalSha = expectStatus(await live.get(`/documents/${doc.id}`), 200).body.final_pdf_sha256;
    expect(finalSha).toMatch(/^[0-9a-f]{64}$/);
    for (const address of ['signer@example.com', 'copy@example.com']) {
      const completion = mailsTo(address).find((m) => m.subject?.includes('서명 완료'))!;
      expect(completion.subject).toBe('[주식회사 도장] 서명 완료: 물품 공급 계약서');
      expect(completion.text).toMatch(HANGUL);
      expect(completion.text).toContain('모든 서명이 완료되었습니다');
      expect(completion.html).toMatch(HANGUL);
      expect(completion.attachments).toHaveLength(1);
      const [pdf] = completion.attachments;
      expect(pdf.contentType).toBe('application/pdf');
      expect(pdf.filename).toBe('물품 공급 계약서.pdf');
      expect(pdf.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(createHash('sha256').update(pdf.content).digest('hex')).toBe(finalSha);
    }

    // Replaying the reactors sends nothing twice.
    const before = smtp.received.length;
    await settle();
    expect(smtp.received.length).toBe(before);

    // Every live send is in the message log, masked.
    const log = await t.infra.reads.find<MessageLogRow>(MESSAGE_LOG, { where: { document_id: doc.id }, orderBy: [{ field: 'at', direction: 'asc' }] });
    expect(log.map((r) => [r.kind, r.channel, r.status])).toEqual(
      expect.arrayContaining([
        ['signing_request', 'email', 'sent'],
        ['signing_request', 'sms', 'sent'],
        ['reminder', 'email', 'sent'],
        ['reminder', 'sms', 'sent'],
        ['completed', 'email', 'sent'],
        ['completed', 'email', 'sent'],
      ]),
    );
    expect(log).toHaveLength(6);
    expect(log.find((r) => r.kind === 'signing_request' && r.channel === 'email')!.attempts).toBe(2);
    expect(log.find((r) => r.kind === 'signing_request' && r.channel === 'sms')!.attempts).toBe(2);
    const dump = JSON.stringify(log);
    for (const secret of ['signer@example.com', 'copy@example.com', '01098765432', '+821098765432']) expect(dump).not.toContain(secret);
    for (const row of log) expect(row.to_masked).toMatch(/\*/);
    // Live mode writes no outbox.
    expect((await live.get('/outbox')).status).toBe(403);
  });
});
