import { signWebhook, verifyWebhook } from '@dojang/webhooks';
import { client, expectStatus } from '../support/api-helpers';
import { TestApp } from '../support/test-app';
import { createEndpoint, deliverNow, Hit, Receiver, sendDocument, startDeliveryApp, startReceiver } from './webhook-test-kit';

/** The integrator's webhook tools: a test delivery, redelivery of a past delivery, secret rotation. */
describe('webhook tools', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startDeliveryApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const now = () => t.clock!.now();
  const newOrg = () => t.createOrg(`웹훅 도구 ${Math.random().toString(36).slice(2, 8)}`);
  /** The v1 signatures of a hit, each checked with the Standard Webhooks algorithm against one secret. */
  const signatures = (hit: Hit) => String(hit.headers['webhook-signature']).split(' ');
  const expected = (secret: string, hit: Hit) =>
    signWebhook({ secret, id: String(hit.headers['webhook-id']), timestamp: Number(hit.headers['webhook-timestamp']), body: hit.body });

  it('sends a webhook.test event now and returns its delivery, listed in the log', async () => {
    const c = client(t, (await newOrg()).test);
    const endpoint = await createEndpoint(c, { url: receiver.url(), events: ['document.completed'] });
    const delivery = expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/test`), 201).body;
    expect(delivery).toMatchObject({ object: 'webhook_delivery', endpoint_id: endpoint.id, event_type: 'webhook.test', status: 'succeeded', attempt_count: 1 });
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, status_code: 200 });
    expect(receiver.hits).toHaveLength(1);
    const verified = verifyWebhook({ secret: endpoint.secret, headers: receiver.hits[0].headers, body: receiver.hits[0].body, now: now() });
    expect(verified.id).toBe(delivery.event_id);
    expect(JSON.parse(receiver.hits[0].body)).toMatchObject({ id: delivery.event_id, object: 'event', type: 'webhook.test', livemode: false, data: { object: { id: endpoint.id } } });
    const log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body;
    expect(log.data.map((d: any) => d.id)).toEqual([delivery.id]);

    // A failing receiver: the delivery says so, and is not retried on its own.
    receiver.replyWith([{ status: 500 }]);
    const failed = expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/test`), 201).body;
    expect(failed).toMatchObject({ status: 'failed', next_attempt_at: null, attempts: [expect.objectContaining({ status_code: 500 })] });
    t.clock!.advance(3600_000);
    expect((await deliverNow(t)).attempted).toBe(0);

    // Disabled endpoints, unknown ids and other organizations.
    expectStatus(await c.patch(`/webhook_endpoints/${endpoint.id}`, { status: 'disabled' }), 200);
    expect(expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/test`), 409).body.error.code).toBe('webhook_endpoint_disabled');
    const other = client(t, (await newOrg()).test);
    expectStatus(await other.post(`/webhook_endpoints/${endpoint.id}/test`), 404);
  });

  it('redelivers a past delivery now, with the same webhook-id and body', async () => {
    const c = client(t, (await newOrg()).test);
    const endpoint = await createEndpoint(c, { url: receiver.url() });
    await sendDocument(c);
    await deliverNow(t);
    const [first] = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body.data;
    expect(first.status).toBe('succeeded');

    const again = expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/deliveries/${first.id}/redeliver`), 200).body;
    expect(again).toMatchObject({ id: first.id, status: 'succeeded', attempt_count: 2 });
    expect(again.attempts.map((a: any) => a.status_code)).toEqual([200, 200]);
    expect(receiver.hits).toHaveLength(2);
    expect(receiver.hits[1].headers['webhook-id']).toBe(receiver.hits[0].headers['webhook-id']);
    expect(receiver.hits[1].body).toBe(receiver.hits[0].body);

    expect(expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/deliveries/del_000000000000000000000000/redeliver`), 404).body.error.code).toBe('webhook_delivery_not_found');
    const other = await createEndpoint(c, { url: receiver.url('/other') });
    expectStatus(await c.post(`/webhook_endpoints/${other.id}/deliveries/${first.id}/redeliver`), 404);
    expectStatus(await client(t, (await newOrg()).test).post(`/webhook_endpoints/${endpoint.id}/deliveries/${first.id}/redeliver`), 404);
  });

  it('rotates the secret: both sign during the grace period, only the new one after', async () => {
    const c = client(t, (await newOrg()).test);
    const endpoint = await createEndpoint(c, { url: receiver.url() });
    const oldSecret: string = endpoint.secret;

    const rotated = expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { grace_period_seconds: 3600 }), 200).body;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(rotated.previous_secret_expires_at).toBe(new Date(now().getTime() + 3600_000).toISOString());
    // Shown once: reading the endpoint never shows it.
    expect(expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}`), 200).body.secret).toBeUndefined();

    await sendDocument(c);
    await deliverNow(t);
    const during = receiver.hits[0];
    expect(signatures(during)).toEqual([expected(rotated.secret, during), expected(oldSecret, during)]);
    expect(verifyWebhook({ secret: rotated.secret, headers: during.headers, body: during.body, now: now() }).id).toBe(during.headers['webhook-id']);
    expect(verifyWebhook({ secret: oldSecret, headers: during.headers, body: during.body, now: now() }).id).toBe(during.headers['webhook-id']);

    t.clock!.advance(3600_000);
    const after = expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/test`), 201).body;
    expect(after.status).toBe('succeeded');
    const hit = receiver.hits[receiver.hits.length - 1];
    expect(signatures(hit)).toEqual([expected(rotated.secret, hit)]);
    expect(() => verifyWebhook({ secret: oldSecret, headers: hit.headers, body: hit.body, now: now() })).toThrow();

    // The default grace period is 24 hours; beyond 7 days is refused.
    const again = expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`), 200).body;
    expect(again.previous_secret_expires_at).toBe(new Date(now().getTime() + 24 * 3600_000).toISOString());
    const tooLong = expectStatus(await c.post(`/webhook_endpoints/${endpoint.id}/rotate_secret`, { grace_period_seconds: 8 * 24 * 3600 }), 400).body;
    expect(tooLong.error).toMatchObject({ code: 'invalid_parameter', param: 'grace_period_seconds' });
    expectStatus(await client(t, (await newOrg()).test).post(`/webhook_endpoints/${endpoint.id}/rotate_secret`), 404);
  });
});
