import { createHash } from 'crypto';
import { Writable } from 'stream';
import { createLogger } from '@dojang/application';
import { client, expectStatus } from '../support/api-helpers';
import { SIGNATURE, outboxOf, sentWith, signer } from '../support/lifecycle';
import { TestApp, startTestApp } from '../support/test-app';
import { createEndpoint, deliverNow, startReceiver } from '../webhooks/webhook-test-kit';

/**
 * Operators ship logs to places with wider access than the database. A full lifecycle, with a
 * failing webhook and a wrong PIN, must leave no key, token, PIN, phone number, e-mail address
 * or webhook secret in any line — while the lines still say what happened.
 */
describe('logs: nothing secret in any line', () => {
  const lines: string[] = [];
  let t: TestApp;
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    t = await startTestApp({
      manualClock: true,
      config: { webhookAllowPrivateNetworks: true },
      worker: { tickIntervalMs: 0, webhooks: { random: () => 0.5 } },
      logger: createLogger({ level: 'trace', destination: sink }),
    });
  });
  afterAll(() => t.close());

  it('logs requests, failures and reactors without their secrets', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const receiver = await startReceiver([{ status: 500 }]);
    try {
      const endpoint = await createEndpoint(c, { url: receiver.url(), events: ['document.sent'] });
      const phone = '01098765432';
      const email = 'kim.signer@example.com';
      const built = await sentWith(c, [{ name: '김서명', auth: 'sms_pin', phone, email }]);
      const party = built.p['김서명'];
      const s = signer(t, party.token);
      expectStatus(await s.view(), 200);
      expectStatus(await s.pin(), 200);
      const pinMessage = (await outboxOf(t, c, built.id, '&channel=sms')).find((m) => m.pin);
      const pin: string = pinMessage.pin;
      const wrong = pin === '000000' ? '111111' : '000000';
      expect((await s.verify(wrong)).status).toBeGreaterThanOrEqual(400);
      expectStatus(await s.verify(pin), 200);
      expectStatus(await s.sign({ consent: true, signature: SIGNATURE }), 200);
      await deliverNow(t);
      expect(receiver.hits.length).toBeGreaterThan(0);

      const secrets: Record<string, string> = {
        'test key': org.test,
        'live key': org.live,
        'test key hash': createHash('sha256').update(org.test).digest('hex'),
        'signing token': party.token,
        'signing token hash': createHash('sha256').update(party.token).digest('hex'),
        'webhook secret': endpoint.secret,
        PIN: pin,
        'wrong PIN': wrong,
        phone,
        email,
      };
      const log = lines.join('\n');
      for (const [what, value] of Object.entries(secrets)) {
        expect(value).toBeTruthy();
        if (log.includes(value)) throw new Error(`the log contains the ${what}: ${lines.find((l) => l.includes(value))}`);
      }

      // …and still tells an operator what happened.
      const parsed = lines.map((l) => JSON.parse(l));
      const requests = parsed.filter((l) => l.msg === 'request');
      expect(requests.map((r) => r.route)).toEqual(
        expect.arrayContaining(['/v1/documents', '/v1/documents/:id/send', '/v1/signing/:token/verify', '/v1/signing/:token/sign']),
      );
      const send = requests.find((r) => r.route === '/v1/documents/:id/send');
      expect(send).toMatchObject({ method: 'POST', status: 200, organization_id: org.id });
      expect(send.key_id).toEqual(expect.any(String));
      expect(send.request_id).toMatch(/^req_/);
      expect(typeof send.duration_ms).toBe('number');
      expect(parsed.some((l) => l.msg === 'webhook delivery attempt failed' && l.status_code === 500)).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
