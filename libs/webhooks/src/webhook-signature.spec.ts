import { createHmac } from 'node:crypto';
import {
  buildWebhookHeaders,
  generateWebhookSecret,
  isValidWebhook,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '@dojang/webhooks';

describe('Standard Webhooks signatures', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = 1614265330;
  const body = '{"test": 2432232314}';
  const now = new Date(timestamp * 1000);

  it('matches the reference algorithm computed by hand', () => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    expect(signWebhook({ secret, id, timestamp, body })).toBe(`v1,${expected}`);
  });

  it('matches the example published with the Standard Webhooks spec', () => {
    expect(signWebhook({ secret, id, timestamp, body })).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs the exact body bytes, including Korean text', () => {
    const korean = '{"title":"근로계약서"}';
    const key = Buffer.from(secret.slice(6), 'base64');
    const expected = createHmac('sha256', key).update(Buffer.from(`${id}.${timestamp}.${korean}`, 'utf8')).digest('base64');
    expect(signWebhook({ secret, id, timestamp, body: korean })).toBe(`v1,${expected}`);
  });

  it('round-trips through verifyWebhook', () => {
    const fresh = generateWebhookSecret();
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(fresh.slice(6), 'base64')).toHaveLength(24);
    const headers = buildWebhookHeaders({ secret: fresh, id, timestamp, body });
    expect(headers['content-type']).toBe('application/json');
    expect(verifyWebhook({ secret: fresh, headers, body, now })).toEqual({ id, timestamp });
  });

  it('reads headers case-insensitively and from a Fetch Headers object', () => {
    const signature = signWebhook({ secret, id, timestamp, body });
    const upper = { 'Webhook-Id': id, 'Webhook-Timestamp': String(timestamp), 'Webhook-Signature': signature };
    expect(isValidWebhook({ secret, headers: upper, body, now })).toBe(true);
    expect(isValidWebhook({ secret, headers: new Headers(upper), body, now })).toBe(true);
  });

  it('accepts any one of several space-separated signatures (secret rotation)', () => {
    const old = generateWebhookSecret();
    const headers = buildWebhookHeaders({ secret: [old, secret], id, timestamp, body });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(isValidWebhook({ secret, headers, body, now })).toBe(true);
    expect(isValidWebhook({ secret: old, headers, body, now })).toBe(true);
    const withUnknownVersion = { ...headers, 'webhook-signature': `v1a,whatever ${signWebhook({ secret, id, timestamp, body })}` };
    expect(isValidWebhook({ secret, headers: withUnknownVersion, body, now })).toBe(true);
  });

  it('detects tampering with body, id, timestamp, signature or secret', () => {
    const headers = buildWebhookHeaders({ secret, id, timestamp, body });
    const ok = { secret, headers, body, now };
    expect(isValidWebhook(ok)).toBe(true);
    expect(isValidWebhook({ ...ok, body: '{"test": 2432232315}' })).toBe(false);
    expect(isValidWebhook({ ...ok, headers: { ...headers, 'webhook-id': 'msg_other' } })).toBe(false);
    expect(isValidWebhook({ ...ok, headers: { ...headers, 'webhook-timestamp': String(timestamp + 1) } })).toBe(false);
    const sig = headers['webhook-signature'];
    const flipped = sig.slice(0, -2) + (sig.at(-2) === 'A' ? 'B' : 'A') + sig.at(-1);
    expect(isValidWebhook({ ...ok, headers: { ...headers, 'webhook-signature': flipped } })).toBe(false);
    expect(isValidWebhook({ ...ok, headers: { ...headers, 'webhook-signature': sig.replace('v1,', 'v2,') } })).toBe(false);
    expect(isValidWebhook({ ...ok, secret: generateWebhookSecret() })).toBe(false);
    expect(() => verifyWebhook({ ...ok, body: 'x' })).toThrow(WebhookVerificationError);
  });

  it('rejects missing headers and timestamps outside the tolerance', () => {
    const headers = buildWebhookHeaders({ secret, id, timestamp, body });
    const { ['webhook-signature']: _omitted, ...unsigned } = headers;
    expect(() => verifyWebhook({ secret, headers: unsigned, body, now })).toThrow(/missing/);
    const late = new Date((timestamp + 301) * 1000);
    const early = new Date((timestamp - 301) * 1000);
    expect(() => verifyWebhook({ secret, headers, body, now: late })).toThrow(/too old/);
    expect(() => verifyWebhook({ secret, headers, body, now: early })).toThrow(/too new/);
    expect(isValidWebhook({ secret, headers, body, now: late, toleranceSeconds: 600 })).toBe(true);
    expect(isValidWebhook({ secret, headers: { ...headers, 'webhook-timestamp': '1e9' }, body, now })).toBe(false);
  });

  it('refuses malformed secrets instead of signing with a different key', () => {
    expect(() => signWebhook({ secret: 'whsec_not base64!', id, timestamp, body })).toThrow(TypeError);
    expect(() => signWebhook({ secret: '', id, timestamp, body })).toThrow(TypeError);
    expect(() => signWebhook({ secret, id: 'a\nb', timestamp, body })).toThrow(TypeError);
    expect(() => signWebhook({ secret, id, timestamp: 1.5, body })).toThrow(TypeError);
  });
});
