import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import {
  completionEmail,
  DeliveryError,
  isTransientDeliveryError,
  signingRequestEmail,
  SmtpEmailSender,
  withRetries,
} from '@dojang/notifications';

type Reply = { code: number; message: string } | null;

/** Senders made by the tests: each keeps a pooled connection open, which a server's close() would wait for. */
const senders: SmtpEmailSender[] = [];

/** A real SMTP server on loopback; `reply` decides each DATA answer (null = accept). */
async function startSmtp(reply: (attempt: number) => Reply = () => null) {
  const received: { raw: Buffer; envelope: SMTPServerSession['envelope'] }[] = [];
  let attempts = 0;
  let connections = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('bounce@')) {
        return callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      // The server resets the session envelope once the message is done.
      const envelope = structuredClone(session.envelope);
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        attempts += 1;
        const answer = reply(attempts);
        if (answer) return callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
        received.push({ raw: Buffer.concat(chunks), envelope });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    received,
    url: `smtp://127.0.0.1:${port}`,
    attempts: () => attempts,
    connections: () => connections,
    close: () => {
      senders.splice(0).forEach((s) => s.close());
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'), randomBytes(4096), Buffer.from('\n%%EOF\n')]);

describe('SmtpEmailSender', () => {
  const sender = (url: string, from?: string) => {
    const s = new SmtpEmailSender({ url, from, connectionTimeoutMs: 2000, greetingTimeoutMs: 2000, socketTimeoutMs: 5000 });
    senders.push(s);
    return s;
  };
  afterAll(() => senders.forEach((s) => s.close()));

  it('delivers an e-mail with a PDF attachment that survives byte for byte', async () => {
    const smtp = await startSmtp();
    try {
      const rendered = completionEmail({ documentTitle: '근로계약서 <2025>', participantName: '김철수', completedAt: '2025-03-01T06:30:00Z' });
      const result = await sender(smtp.url).send({
        to: 'chulsoo@example.com',
        ...rendered,
        attachments: [{ filename: '근로계약서.pdf', content: pdf, contentType: 'application/pdf' }],
      });
      expect(result.messageId).toMatch(/^<.+@.+>$/);
      expect(smtp.received).toHaveLength(1);
      const { raw, envelope } = smtp.received[0];
      expect(envelope.mailFrom && envelope.mailFrom.address).toBe('no-reply@dojang.local');
      expect(envelope.rcptTo.map((r) => r.address)).toEqual(['chulsoo@example.com']);

      const mail: ParsedMail = await simpleParser(raw);
      expect(mail.subject).toBe('[Dojang] 서명 완료: 근로계약서 <2025>');
      expect(mail.from?.value[0]).toEqual({ name: 'Dojang', address: 'no-reply@dojang.local' });
      expect(mail.messageId).toBe(result.messageId);
      expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
      expect(mail.text).toContain('김철수님, 안녕하세요.');
      expect(mail.text).toContain('「근로계약서 <2025>」 문서에 모든 참여자가 서명을 마쳤습니다.');
      expect(mail.text).toContain('2025년 3월 1일 오후 3:30 (KST)');
      expect(mail.html).toContain('근로계약서 &lt;2025&gt;');
      expect(mail.attachments).toHaveLength(1);
      const [attachment] = mail.attachments;
      expect(attachment.filename).toBe('근로계약서.pdf');
      expect(attachment.contentType).toBe('application/pdf');
      expect(Buffer.compare(attachment.content, pdf)).toBe(0);
    } finally {
      await smtp.close();
    }
  });

  it('uses a configured From address', async () => {
    const smtp = await startSmtp();
    try {
      const rendered = signingRequestEmail({
        documentTitle: '용역 계약서',
        senderName: '주식회사 도장',
        participantName: '이영희',
        signingUrl: 'https://dojang.example/sign/abc',
      });
      const fromEnv = SmtpEmailSender.fromEnv({ SMTP_URL: smtp.url, MAIL_FROM: '도장 알림 <notify@dojang.example>' });
      senders.push(fromEnv);
      await fromEnv.send({ to: 'y@example.com', ...rendered });
      const mail = await simpleParser(smtp.received[0].raw);
      expect(mail.from?.value[0]).toEqual({ name: '도장 알림', address: 'notify@dojang.example' });
      expect(mail.html).toContain('href="https://dojang.example/sign/abc"');
    } finally {
      await smtp.close();
    }
  });

  it('sends under the organization\'s name from the installation\'s address, with its Reply-To', async () => {
    const smtp = await startSmtp();
    try {
      const rendered = signingRequestEmail({ documentTitle: '계약서', senderName: '인사팀', participantName: '이영희', signingUrl: 'https://dojang.example/sign/abc', brandName: '도장상사 "본사"' });
      const fromEnv = SmtpEmailSender.fromEnv({ SMTP_URL: smtp.url, MAIL_FROM: '도장 알림 <notify@dojang.example>' });
      senders.push(fromEnv);
      await fromEnv.send({ to: 'y@example.com', ...rendered, fromName: '도장상사 "본사"', replyTo: 'hr@dojang-sangsa.example' });
      const mail = await simpleParser(smtp.received[0].raw);
      expect(smtp.received[0].envelope.mailFrom && smtp.received[0].envelope.mailFrom.address).toBe('notify@dojang.example');
      expect(mail.from?.value[0]).toEqual({ name: '도장상사 "본사"', address: 'notify@dojang.example' });
      expect(mail.replyTo?.value[0].address).toBe('hr@dojang-sangsa.example');
      expect(mail.subject).toBe('[도장상사 "본사"] 서명 요청: 계약서');
    } finally {
      await smtp.close();
    }
  });

  it('sends successive messages over one pooled connection (a relay greets each connection late: smtp-server after 100 ms)', async () => {
    const smtp = await startSmtp();
    try {
      const mail = sender(smtp.url);
      for (let i = 0; i < 5; i++) await mail.send({ to: `hire-${i}@example.com`, subject: `${i}`, text: 'x', html: '<p>x</p>' });
      expect(smtp.received.map((m) => m.envelope.rcptTo[0].address)).toEqual([0, 1, 2, 3, 4].map((i) => `hire-${i}@example.com`));
      expect(smtp.connections()).toBe(1);
    } finally {
      await smtp.close();
    }
  });

  it('classifies a 451 reply as transient, and a retry then succeeds', async () => {
    const smtp = await startSmtp((attempt) => (attempt <= 2 ? { code: 451, message: '4.3.0 Try again later' } : null));
    try {
      const s = sender(smtp.url);
      const email = { to: 'retry@example.com', subject: '재시도 테스트', text: '안녕하세요', html: '<p>안녕하세요</p>' };
      const firstError = await s.send(email).catch((e: unknown) => e);
      expect(firstError).toBeInstanceOf(DeliveryError);
      expect(isTransientDeliveryError(firstError)).toBe(true);
      expect((firstError as DeliveryError).providerCode).toBe(451);
      expect(smtp.received).toHaveLength(0);

      const sleeps: number[] = [];
      const result = await withRetries(() => s.send(email), {
        attempts: 3,
        baseDelayMs: 500,
        sleep: async (ms) => void sleeps.push(ms),
      });
      expect(result.messageId).toBeTruthy();
      expect(smtp.attempts()).toBe(3);
      expect(sleeps).toEqual([500]);
      expect(smtp.received).toHaveLength(1);
      expect((await simpleParser(smtp.received[0].raw)).subject).toBe('재시도 테스트');
    } finally {
      await smtp.close();
    }
  });

  it('sends every copy of one logical message under one Message-ID, on the From address\'s domain (issue 33: a resend got a new one)', async () => {
    const smtp = await startSmtp();
    try {
      const s = sender(smtp.url, 'Dojang <sign@dojang.example>');
      const email = { to: 'twice@example.com', subject: '서명 요청', text: '안녕하세요', html: '<p>안녕하세요</p>', messageId: 'msg_0123456789abcdef01234567' };
      const first = await s.send(email);
      const second = await s.send(email);
      const ids = await Promise.all(smtp.received.map(async (m) => (await simpleParser(m.raw)).messageId));
      expect(ids).toEqual(['<msg_0123456789abcdef01234567@dojang.example>', '<msg_0123456789abcdef01234567@dojang.example>']);
      expect([first.messageId, second.messageId]).toEqual(ids);
    } finally {
      await smtp.close();
    }
  });

  it('classifies a 5xx reply as permanent and does not retry it', async () => {
    const smtp = await startSmtp(() => ({ code: 554, message: '5.7.1 Message rejected' }));
    try {
      let calls = 0;
      const error = await withRetries(
        () => {
          calls += 1;
          return sender(smtp.url).send({ to: 'x@example.com', subject: 's', text: 't', html: '<p>t</p>' });
        },
        { attempts: 5, sleep: async () => undefined },
      ).catch((e: unknown) => e);
      expect(isTransientDeliveryError(error)).toBe(false);
      expect((error as DeliveryError).providerCode).toBe(554);
      expect(calls).toBe(1);

      const bounced = await sender(smtp.url)
        .send({ to: 'bounce@example.com', subject: 's', text: 't', html: '<p>t</p>' })
        .catch((e: unknown) => e);
      expect(bounced).toBeInstanceOf(DeliveryError);
      expect(isTransientDeliveryError(bounced)).toBe(false);
    } finally {
      await smtp.close();
    }
  });

  it('classifies a refused connection as transient', async () => {
    const smtp = await startSmtp();
    const url = smtp.url;
    await smtp.close();
    const error = await sender(url).send({ to: 'x@example.com', subject: 's', text: 't', html: '<p>t</p>' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect(isTransientDeliveryError(error)).toBe(true);
  });
});
