import { createHmac } from 'crypto';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

// The delivery docs/WEBHOOKS.md shows (its signature is real).
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY =
  '{"id":"evt_0b9d5e3c1f7a4c2e9a513f0e8d6c2b11","object":"event","type":"document.completed","created_at":"2026-03-02T09:00:00.000Z","livemode":false,"data":{"document_id":"7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","completed_at":"2026-03-02T09:00:00.000Z"}}';
const HEADERS = {
  'webhook-id': 'evt_0b9d5e3c1f7a4c2e9a513f0e8d6c2b11',
  'webhook-timestamp': '1772442005',
  'webhook-signature': 'v1,GuKiJEEtvzlu+4MWXSbe/g2Q7GQXcrGH7n8tzTexWUo=',
};
const AT = { now: 1772442005 };

/** A signature made independently, with node:crypto, as docs/WEBHOOKS.md describes it. */
const sign = (secret: string, id: string, timestamp: string, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

describe('verifyWebhook (Standard Webhooks on WebCrypto)', () => {
  it('accepts the documented delivery and returns its event, from a record, a Headers or bytes', async () => {
    await expect(verifyWebhook(SECRET, HEADERS, BODY, AT)).resolves.toMatchObject({ type: 'document.completed', data: { document_id: '7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b' } });
    await expect(verifyWebhook(SECRET, new Headers(HEADERS), new TextEncoder().encode(BODY), AT)).resolves.toMatchObject({ id: HEADERS['webhook-id'] });
    const shouted = { 'Webhook-Id': HEADERS['webhook-id'], 'Webhook-Timestamp': HEADERS['webhook-timestamp'], 'Webhook-Signature': [HEADERS['webhook-signature']] };
    await expect(verifyWebhook(SECRET, shouted, BODY, AT)).resolves.toMatchObject({ type: 'document.completed' });
  });

  it('accepts any matching v1 signature among several (a secret rotation), ignoring other versions', async () => {
    const old = 'whsec_' + Buffer.from('an older secret of 24 b.').toString('base64');
    const both = { ...HEADERS, 'webhook-signature': `v1a,xyz ${sign(old, HEADERS['webhook-id'], HEADERS['webhook-timestamp'], BODY)} ${HEADERS['webhook-signature']}` };
    await expect(verifyWebhook(SECRET, both, BODY, AT)).resolves.toMatchObject({ type: 'document.completed' });
    await expect(verifyWebhook(old, both, BODY, AT)).resolves.toMatchObject({ type: 'document.completed' });
  });

  it.each([
    ['a changed body', HEADERS, BODY.replace('completed', 'canceled'), AT, /no webhook-signature matches/],
    ['another id', { ...HEADERS, 'webhook-id': 'evt_other' }, BODY, AT, /no webhook-signature matches/],
    ['a signature of another secret', { ...HEADERS, 'webhook-signature': sign('whsec_' + Buffer.from('x'.repeat(24)).toString('base64'), HEADERS['webhook-id'], HEADERS['webhook-timestamp'], BODY) }, BODY, AT, /no webhook-signature matches/],
    ['a signature that is not base64', { ...HEADERS, 'webhook-signature': 'v1,@@@' }, BODY, AT, /no webhook-signature matches/],
    ['a timestamp six minutes old', HEADERS, BODY, { now: AT.now + 360 }, /outside the tolerance/],
    ['a timestamp that is not a number', { ...HEADERS, 'webhook-timestamp': '17e8' }, BODY, AT, /outside the tolerance/],
    ['no signature header', { 'webhook-id': HEADERS['webhook-id'], 'webhook-timestamp': HEADERS['webhook-timestamp'] }, BODY, AT, /missing/],
  ])('refuses %s', async (_what, headers, body, options, message) => {
    const attempt = verifyWebhook(SECRET, headers, body, options);
    await expect(attempt).rejects.toThrow(WebhookVerificationError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('refuses a secret that is not a whsec_ value', async () => {
    await expect(verifyWebhook('whsec_', HEADERS, BODY, AT)).rejects.toThrow(/not a whsec_/);
  });

  it('uses the clock by default: the documented delivery, years later, is a replay', async () => {
    await expect(verifyWebhook(SECRET, HEADERS, BODY)).rejects.toThrow(/outside the tolerance/);
  });
});
