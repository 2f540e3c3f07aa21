import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeliveryError, isTransientDeliveryError, pinSms, TwilioSmsSender, withRetries } from '@dojang/notifications';

const ACCOUNT_SID = 'AC' + '0123456789abcdef'.repeat(2);
const AUTH_TOKEN = 'test-auth-token-secret';

interface ReceivedSms {
  path: string;
  authorization?: string;
  contentType?: string;
  form: URLSearchParams;
}

/**
 * Stand-in for Twilio's Messages endpoint: same path, form-encoded body,
 * basic auth and JSON answer as the real API, so the official client is
 * exercised end to end over loopback.
 */
async function startTwilioStandIn(answer: (n: number) => { status: number; body: object } | null = () => null) {
  const received: ReceivedSms[] = [];
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count += 1;
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      received.push({ path: req.url!, authorization: req.headers.authorization, contentType: req.headers['content-type'], form });
      const match = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/Messages\.json$/.exec(req.url ?? '');
      const expectedAuth = 'Basic ' + Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64');
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || !match) {
        res.writeHead(404).end(JSON.stringify({ code: 20404, message: 'Not found', status: 404 }));
        return;
      }
      if (req.headers.authorization !== expectedAuth) {
        res.writeHead(401).end(JSON.stringify({ code: 20003, message: 'Authenticate', status: 401 }));
        return;
      }
      const forced = answer(count);
      if (forced) {
        res.writeHead(forced.status).end(JSON.stringify(forced.body));
        return;
      }
      res.writeHead(201).end(
        JSON.stringify({
          sid: `SM${String(count).padStart(32, '0')}`,
          account_sid: match[1],
          status: 'queued',
          to: form.get('To'),
          from: form.get('From'),
          body: form.get('Body'),
          num_segments: '1',
          date_created: new Date().toUTCString(),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('TwilioSmsSender through the official twilio client', () => {
  it('posts To/From/Body with basic auth to the Messages endpoint', async () => {
    const twilioApi = await startTwilioStandIn();
    try {
      const sender = TwilioSmsSender.fromEnv({
        TWILIO_ACCOUNT_SID: ACCOUNT_SID,
        TWILIO_AUTH_TOKEN: AUTH_TOKEN,
        TWILIO_FROM: '+15005550006',
        TWILIO_API_BASE_URL: twilioApi.baseUrl,
      });
      const { body } = pinSms({ pin: '123456' });
      const result = await sender.send({ to: '01012345678', body });

      expect(result).toEqual({ messageId: `SM${'0'.repeat(31)}1`, status: 'queued' });
      expect(twilioApi.received).toHaveLength(1);
      const [sms] = twilioApi.received;
      expect(sms.path).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
      expect(sms.authorization).toBe('Basic ' + Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64'));
      expect(sms.contentType).toMatch(/^application\/x-www-form-urlencoded/);
      expect(sms.form.get('To')).toBe('+821012345678');
      expect(sms.form.get('From')).toBe('+15005550006');
      expect(sms.form.get('Body')).toBe('[Dojang] 인증번호 123456 (10분 내 입력)');
    } finally {
      await twilioApi.close();
    }
  });

  it('texts the international mobiles the service stores in E.164 (+1, +81, +84) to that very number (issue 32 item 1)', async () => {
    const twilioApi = await startTwilioStandIn();
    try {
      const sender = new TwilioSmsSender({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: '+15005550006', apiBaseUrl: twilioApi.baseUrl });
      for (const to of ['+14155552671', '+819012345678', '+84912345678']) await sender.send({ to, body: 'PIN 123456' });
      expect(twilioApi.received.map((sms) => sms.form.get('To'))).toEqual(['+14155552671', '+819012345678', '+84912345678']);
    } finally {
      await twilioApi.close();
    }
  });

  it('uses a Messaging Service SID as sender and accepts a base URL with a trailing slash', async () => {
    const twilioApi = await startTwilioStandIn();
    try {
      const messagingServiceSid = 'MG' + 'a'.repeat(32);
      const sender = new TwilioSmsSender({
        accountSid: ACCOUNT_SID,
        authToken: AUTH_TOKEN,
        from: messagingServiceSid,
        apiBaseUrl: `${twilioApi.baseUrl}/`,
        statusCallbackUrl: 'https://dojang.example/twilio/status',
      });
      await sender.send({ to: '010-9876-5432', body: '안녕하세요' });
      const { form } = twilioApi.received[0];
      expect(form.get('MessagingServiceSid')).toBe(messagingServiceSid);
      expect(form.get('From')).toBeNull();
      expect(form.get('To')).toBe('+821098765432');
      expect(form.get('StatusCallback')).toBe('https://dojang.example/twilio/status');
    } finally {
      await twilioApi.close();
    }
  });

  it('classifies 429 and 5xx as transient, retries them, and 4xx as permanent', async () => {
    const twilioApi = await startTwilioStandIn((n) => {
      if (n === 1) return { status: 429, body: { code: 20429, message: 'Too Many Requests', status: 429 } };
      if (n === 2) return { status: 503, body: { code: 20503, message: 'Service Unavailable', status: 503 } };
      if (n === 4) return { status: 400, body: { code: 21211, message: "The 'To' number is not a valid phone number.", status: 400 } };
      return null;
    });
    try {
      const sender = new TwilioSmsSender({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: '+15005550006', apiBaseUrl: twilioApi.baseUrl });
      const errors: unknown[] = [];
      const result = await withRetries(() => sender.send({ to: '01012345678', body: 'retry' }), {
        attempts: 3,
        baseDelayMs: 100,
        sleep: async () => undefined,
        onRetry: ({ error }) => errors.push(error),
      });
      expect(result.status).toBe('queued');
      expect(errors.map((e) => (e as DeliveryError).providerCode)).toEqual([20429, 20503]);
      expect(errors.every(isTransientDeliveryError)).toBe(true);
      expect((errors[0] as DeliveryError).message).not.toContain('01012345678');

      const invalid = await sender.send({ to: '01012345678', body: 'x' }).catch((e: unknown) => e);
      expect(invalid).toBeInstanceOf(DeliveryError);
      expect(isTransientDeliveryError(invalid)).toBe(false);
      expect((invalid as DeliveryError).providerCode).toBe(21211);
    } finally {
      await twilioApi.close();
    }
  });

  it('treats an unreachable API as transient and a bad number as permanent without calling Twilio', async () => {
    const twilioApi = await startTwilioStandIn();
    const baseUrl = twilioApi.baseUrl;
    await twilioApi.close();
    const sender = new TwilioSmsSender({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, from: '+15005550006', apiBaseUrl: baseUrl });
    const down = await sender.send({ to: '01012345678', body: 'x' }).catch((e: unknown) => e);
    expect(isTransientDeliveryError(down)).toBe(true);
    const bad = await sender.send({ to: '12', body: 'x' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(DeliveryError);
    expect(isTransientDeliveryError(bad)).toBe(false);
  });
});
