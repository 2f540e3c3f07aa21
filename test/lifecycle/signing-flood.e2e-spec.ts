import { randomBytes } from 'crypto';
import { ManualClock } from '@dojang/application';
import { Client, client, expectStatus } from '../support/api-helpers';
import { auditOf, expectApiError, outboxOf, sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

const PER_TOKEN = 12;
const PER_IP = 30;

/** A six-digit code guaranteed to differ from `pin`. */
const wrong = (pin: string, k = 1) => pin.slice(0, 5) + String((Number(pin[5]) + k) % 10);

/**
 * A signing link is a credential without an API key: a script holding one (or guessing them) must
 * be slowed down per link and per address, and must not grow the document's audit trail.
 */
describe('signing routes under a flood', () => {
  let t: TestApp;
  let clock: ManualClock;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true, config: { signingRateLimit: { perToken: PER_TOKEN, perIp: PER_IP } } });
    clock = t.clock!;
    c = client(t, (await t.createOrg()).test);
  });
  afterAll(() => t.close());
  // Every test starts in a fresh rate-limit window.
  beforeEach(() => clock.advance(60_000));

  const from = (ip: string) => ({ 'X-Forwarded-For': ip });
  const streamTypes = async (id: string) => (await t.infra.events.readStream(`document-${id}`)).map((e) => e.type);

  async function pinSigner(ip: string) {
    const d = await sentWith(c, [{ name: '김철수', auth: 'sms_pin', phone: '01012345678' }]);
    const token = d.p['김철수'].token;
    expectStatus(await t.http.post(`/v1/signing/${token}/pin`).set(from(ip)).send({}), 200);
    const pin = (await outboxOf(t, c, d.id)).find((m) => m.kind === 'pin').pin as string;
    const verify = (code: string) => t.http.post(`/v1/signing/${token}/verify`).set(from(ip)).send({ pin: code });
    return { d, token, pin, verify };
  }

  it('after the PIN locks, wrong attempts are refused without adding to the stream or the audit trail', async () => {
    const { d, pin, verify } = await pinSigner('198.51.100.10');
    for (let k = 1; k <= 4; k++) expectApiError(await verify(wrong(pin, k)), 400, 'pin_incorrect');
    expectApiError(await verify(wrong(pin, 5)), 409, 'pin_locked');
    const lockedAt = (await streamTypes(d.id)).length;
    // 1 pin + 5 verifies so far; the rest of the link's window is spent on a locked PIN.
    for (let i = 0; i < PER_TOKEN - 6; i++) expectApiError(await verify(i % 2 ? pin : wrong(pin, 6)), 409, 'pin_locked');
    expect((await streamTypes(d.id)).length).toBe(lockedAt);
    expect((await streamTypes(d.id)).filter((x) => x === 'PinVerificationFailed')).toHaveLength(5);
    expect((await auditOf(c, d.id)).filter((e) => e.event === 'pin_failed')).toHaveLength(5);
  });

  it('limits each signing link per minute with 429 rate_limit_error and Retry-After, then lets it through in the next window', async () => {
    const { d, token, pin, verify } = await pinSigner('198.51.100.11');
    // 40 s into the window that counted the PIN request.
    expect(clock.now().getTime() % 60_000).toBe(0);
    clock.advance(40_000);
    const statuses: number[] = [];
    for (let i = 0; i < PER_TOKEN - 1; i++) statuses.push((await verify(wrong(pin, 1 + (i % 3)))).status);
    // The PIN locked on the 5th wrong attempt; the request after the link's 12th in this window is refused.
    expect(statuses).toEqual([400, 400, 400, 400, 409, ...Array(PER_TOKEN - 6).fill(409)]);
    const refused = await verify(pin);
    const err = expectApiError(refused, 429, 'rate_limit_error', 'rate_limit_error');
    expect(err.message).toContain(`${PER_TOKEN} per minute per signing link`);
    expect(refused.headers['retry-after']).toBe('20');
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    // Another link from the same address is not held back by this one.
    expectStatus(await signer(t, (await sentWith(c, [{ name: '다른', auth: 'none' }])).p['다른'].token).view(), 200);
    // Nothing refused with 429 reached the document.
    expect((await streamTypes(d.id)).filter((x) => x === 'PinVerificationFailed')).toHaveLength(5);
    clock.advance(20_000);
    expectStatus(await t.http.get(`/v1/signing/${token}`).set(from('198.51.100.11')), 200);
  });

  it('limits each client address across links, valid or not, and counts other addresses apart', async () => {
    const guesses = Array.from({ length: PER_IP }, () => randomBytes(32).toString('base64url'));
    for (const g of guesses) expectApiError(await t.http.get(`/v1/signing/${g}`).set(from('203.0.113.50')), 404, 'signing_link_invalid');
    const refused = await t.http.post(`/v1/signing/${randomBytes(32).toString('base64url')}/verify`).set(from('203.0.113.50')).send({ pin: '123456' });
    expectApiError(refused, 429, 'rate_limit_error', 'rate_limit_error');
    expect(refused.body.error.message).toContain(`${PER_IP} per minute per client address`);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Case does not get around it (Express routes /V1/SIGNING/… to the same handler).
    expectApiError(await t.http.get(`/V1/Signing/${guesses[0]}`).set(from('203.0.113.50')), 429, 'rate_limit_error');
    // Nor does the legacy root.
    expectApiError(await t.http.get(`/api/v1/signing/${guesses[0]}`).set(from('203.0.113.50')), 429, 'rate_limit_error');
    expectApiError(await t.http.get(`/v1/signing/${guesses[0]}`).set(from('203.0.113.51')), 404, 'signing_link_invalid');
  });

  it('sixteen clients hammering one link at once get only 4xx answers, and the audit trail stays short', async () => {
    const { d, pin } = await pinSigner('198.51.100.12');
    const s = d.p['김철수'].token;
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        Promise.all(Array.from({ length: 3 }, (_, j) => t.http.post(`/v1/signing/${s}/verify`).set(from(`198.51.100.${20 + i}`)).send({ pin: wrong(pin, 1 + ((i + j) % 8)) }))),
      ),
    );
    const statuses = results.flat().map((r) => r.status);
    expect(statuses.filter((x) => x >= 500)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([400, 409, 429]));
    expect((await streamTypes(d.id)).filter((x) => x === 'PinVerificationFailed')).toHaveLength(5);
  });
});
