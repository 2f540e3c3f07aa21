import { WEBHOOK_DELIVERIES, WebhookDeliveryRow } from '@dojang/application';
import { MAX_WEBHOOK_ATTEMPTS, verifyWebhook, WEBHOOK_RETRY_SCHEDULE_MS } from '@dojang/webhooks';
import { client, expectStatus } from '../support/api-helpers';
import { TestApp, TestOrg } from '../support/test-app';
import { createEndpoint, deliverNow, Receiver, sendDocument, signAs, startDeliveryApp, startReceiver } from './webhook-test-kit';

const at = (t: TestApp) => t.clock!.now();

describe('webhook delivery', () => {
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

  const newOrg = () => t.createOrg(`수신 테스트 ${Math.random().toString(36).slice(2, 8)}`);

  it('delivers each public event with Standard Webhooks headers that verify, and the body GET /events shows', async () => {
    const org = await newOrg();
    const c = client(t, org.test);
    const endpoint = await createEndpoint(c, { url: receiver.url('/hook?src=dojang') });
    const doc = await sendDocument(c);
    const stats = await deliverNow(t);
    expect(stats).toMatchObject({ attempted: 1, succeeded: 1 });
    expect(receiver.hits).toHaveLength(1);
    const hit = receiver.hits[0];
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe('/hook?src=dojang');
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['user-agent']).toMatch(/^Dojang-Webhooks\//);
    expect(hit.headers['webhook-timestamp']).toBe(String(Math.floor(at(t).getTime() / 1000)));
    expect(hit.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // The receiver's check: signature over id.timestamp.body with the endpoint secret.
    const verified = verifyWebhook({ secret: endpoint.secret, headers: hit.headers, body: hit.body, now: at(t) });
    const body = JSON.parse(hit.body);
    expect(verified.id).toBe(body.id);
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      object: 'event',
      type: 'document.sent',
      created_at: at(t).toISOString(),
      livemode: false,
      // A document made without metadata or external_id (issue 32 item 3): {} and null, always there.
      data: { document_id: doc.id, metadata: {}, external_id: null, expires_at: expect.any(String) },
    });
    expect(expectStatus(await c.get(`/events/${body.id}`), 200).body).toEqual(body);
    // A wrong secret or a touched body does not verify.
    expect(() => verifyWebhook({ secret: 'whsec_' + Buffer.alloc(24, 1).toString('base64'), headers: hit.headers, body: hit.body, now: at(t) })).toThrow();
    expect(() => verifyWebhook({ secret: endpoint.secret, headers: hit.headers, body: hit.body.replace('document.sent', 'document.completed'), now: at(t) })).toThrow();

    // The rest of the lifecycle follows, in order.
    await signAs(t, doc.participants[0].token);
    await deliverNow(t);
    // document.sent went first; the other three were sent in parallel, so in any order.
    const types = receiver.hits.map((h) => JSON.parse(h.body).type);
    expect(types[0]).toBe('document.sent');
    expect(types.sort()).toEqual(['document.completed', 'document.sent', 'document.viewed', 'participant.signed']);
    for (const h of receiver.hits) verifyWebhook({ secret: endpoint.secret, headers: h.headers, body: h.body, now: at(t) });

    const log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body;
    expect(log.data).toHaveLength(4);
    expect(log.data[0]).toMatchObject({
      object: 'webhook_delivery',
      endpoint_id: endpoint.id,
      event_type: 'document.completed',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      attempts: [{ attempt: 1, status_code: 200, error_code: null, response_body: 'ok' }],
    });
    expect(log.data[0].webhook_id).toBe(log.data[0].event_id);
  });

  it('sends only the event types an endpoint subscribed to, to every matching endpoint', async () => {
    const org = await newOrg();
    const c = client(t, org.test);
    const other = await startReceiver();
    try {
      await createEndpoint(c, { url: receiver.url(), events: ['document.completed'] });
      const all = await createEndpoint(c, { url: other.url() });
      const doc = await sendDocument(c);
      await signAs(t, doc.participants[0].token);
      await deliverNow(t);
      expect(receiver.hits.map((h) => JSON.parse(h.body).type)).toEqual(['document.completed']);
      expect(other.hits.map((h) => JSON.parse(h.body).type).sort()).toEqual(['document.completed', 'document.sent', 'document.viewed', 'participant.signed']);
      // Same event, same webhook-id and bytes at both endpoints; each signed with its own secret.
      const completedAtOther = other.hits.find((h) => JSON.parse(h.body).type === 'document.completed')!;
      expect(completedAtOther.headers['webhook-id']).toBe(receiver.hits[0].headers['webhook-id']);
      expect(completedAtOther.body).toBe(receiver.hits[0].body);
      expect(() => verifyWebhook({ secret: all.secret, headers: receiver.hits[0].headers, body: receiver.hits[0].body, now: at(t) })).toThrow();
    } finally {
      await other.close();
    }
  });

  it("keeps worlds apart: a test key's endpoints get only test events, a live key's only live ones", async () => {
    const org = await newOrg();
    await t.admin.grantCredits(org.id, 5, 'test');
    const liveReceiver = await startReceiver();
    try {
      await createEndpoint(client(t, org.test), { url: receiver.url() });
      await createEndpoint(client(t, org.live), { url: liveReceiver.url() });
      const testDoc = await sendDocument(client(t, org.test));
      const liveDoc = await sendDocument(client(t, org.live), { participants: [{ name: '라이브', email: 'live@example.com' }] });
      await deliverNow(t);
      expect(receiver.hits.map((h) => JSON.parse(h.body))).toEqual([expect.objectContaining({ livemode: false, data: expect.objectContaining({ document_id: testDoc.id }) })]);
      expect(liveReceiver.hits.map((h) => JSON.parse(h.body))).toEqual([expect.objectContaining({ livemode: true, data: expect.objectContaining({ document_id: liveDoc.id }) })]);
    } finally {
      await liveReceiver.close();
    }
  });

  it('retries a failing receiver at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then gives up', async () => {
    const org = await newOrg();
    const c = client(t, org.test);
    receiver.replyWith([{ status: 500, body: '잠시 후 다시' }]);
    const endpoint = await createEndpoint(c, { url: receiver.url(), events: ['document.sent'] });
    await sendDocument(c);
    expect(await deliverNow(t)).toMatchObject({ attempted: 1, retrying: 1 });
    const firstBody = receiver.hits[0].body;
    const delivery = () => c.get(`/webhook_endpoints/${endpoint.id}/deliveries`).then((r) => expectStatus(r, 200).body.data[0]);

    for (let i = 0; i < WEBHOOK_RETRY_SCHEDULE_MS.length; i++) {
      const before = await delivery();
      expect(before.status).toBe('pending');
      // Jitter is pinned to its midpoint here: the retry is due exactly one schedule step later.
      expect(Date.parse(before.next_attempt_at) - at(t).getTime()).toBe(WEBHOOK_RETRY_SCHEDULE_MS[i]);
      t.clock!.advance(WEBHOOK_RETRY_SCHEDULE_MS[i] - 1);
      expect(await t.worker!.webhooks.dispatchDue()).toMatchObject({ attempted: 0 });
      expect(receiver.hits).toHaveLength(i + 1);
      t.clock!.advance(1);
      expect(await t.worker!.webhooks.dispatchDue()).toMatchObject({ attempted: 1 });
      expect(receiver.hits).toHaveLength(i + 2);
    }
    const final = await delivery();
    expect(final).toMatchObject({ status: 'failed', attempt_count: MAX_WEBHOOK_ATTEMPTS, next_attempt_at: null });
    expect(final.attempts.map((a: any) => a.status_code)).toEqual(Array(MAX_WEBHOOK_ATTEMPTS).fill(500));
    expect(final.attempts[0].response_body).toBe('잠시 후 다시');
    // Every attempt: the same webhook-id and the same bytes, freshly timestamped and signed.
    expect(new Set(receiver.hits.map((h) => h.headers['webhook-id'])).size).toBe(1);
    expect(receiver.hits.every((h) => h.body === firstBody)).toBe(true);
    expect(new Set(receiver.hits.map((h) => h.headers['webhook-timestamp'])).size).toBe(MAX_WEBHOOK_ATTEMPTS);
    t.clock!.advance(7 * 24 * 3600e3);
    expect(await t.worker!.webhooks.dispatchDue()).toMatchObject({ attempted: 0 });
    expect(receiver.hits).toHaveLength(MAX_WEBHOOK_ATTEMPTS);
  });

  it('recovers when the receiver comes back, and the log shows every attempt and the next one', async () => {
    const org = await newOrg();
    const c = client(t, org.test);
    receiver.replyWith([{ status: 503 }, { status: 302 }, { status: 204 }]);
    const endpoint = await createEndpoint(c, { url: receiver.url(), events: ['document.sent'] });
    await sendDocument(c);
    await deliverNow(t);
    const started = at(t).getTime();
    let log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body.data[0];
    expect(log).toMatchObject({ status: 'pending', attempt_count: 1, next_attempt_at: new Date(started + 5000).toISOString() });
    t.clock!.advance(5000);
    await t.worker!.webhooks.dispatchDue();
    log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries?status=pending`), 200).body.data[0];
    // A redirect is not followed and not a success.
    expect(log).toMatchObject({ attempt_count: 2, next_attempt_at: new Date(started + 5000 + 300_000).toISOString() });
    t.clock!.advance(300_000);
    await t.worker!.webhooks.dispatchDue();
    log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body.data[0];
    expect(log).toMatchObject({ status: 'succeeded', attempt_count: 3, next_attempt_at: null, completed_at: at(t).toISOString() });
    expect(log.attempts.map((a: any) => [a.attempt, a.status_code, a.started_at])).toEqual([
      [1, 503, new Date(started).toISOString()],
      [2, 302, new Date(started + 5000).toISOString()],
      [3, 204, new Date(started + 305_000).toISOString()],
    ]);
    expect(expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries?status=failed`), 200).body.data).toEqual([]);
  });

  it('disables the endpoint on 410 Gone and stops sending to it', async () => {
    const org = await newOrg();
    const c = client(t, org.test);
    receiver.replyWith([{ status: 410 }]);
    const endpoint = await createEndpoint(c, { url: receiver.url() });
    const doc = await sendDocument(c);
    expect(await deliverNow(t)).toMatchObject({ attempted: 1, failed: 1 });
    const read = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}`), 200).body;
    expect(read).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    const log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body.data;
    expect(log).toEqual([expect.objectContaining({ status: 'failed', attempt_count: 1, next_attempt_at: null, attempts: [expect.objectContaining({ status_code: 410 })] })]);
    // Later events are not even queued for a disabled endpoint.
    await signAs(t, doc.participants[0].token);
    await deliverNow(t);
    t.clock!.advance(24 * 3600e3);
    await t.worker!.webhooks.dispatchDue();
    expect(receiver.hits).toHaveLength(1);
    expect(expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body.data).toHaveLength(1);
    // Re-enabled by the integrator, it receives new events again.
    receiver.replyWith([{ status: 200 }]);
    expectStatus(await c.patch(`/webhook_endpoints/${endpoint.id}`, { status: 'enabled' }), 200);
    await sendDocument(c);
    await deliverNow(t);
    expect(receiver.hits.map((h) => JSON.parse(h.body).type)).toEqual(['document.sent', 'document.sent']);
  });

  it('cancels pending retries of an endpoint that was disabled or deleted meanwhile', async () => {
    const org = await newOrg();
    const c = client(t, org.test);
    receiver.replyWith([{ status: 500 }]);
    const disabled = await createEndpoint(c, { url: receiver.url('/a'), events: ['document.sent'] });
    const deleted = await createEndpoint(c, { url: receiver.url('/b'), events: ['document.sent'] });
    await sendDocument(c);
    await deliverNow(t);
    expect(receiver.hits).toHaveLength(2);
    expectStatus(await c.patch(`/webhook_endpoints/${disabled.id}`, { disabled: true }), 200);
    expectStatus(await c.del(`/webhook_endpoints/${deleted.id}`), 200);
    t.clock!.advance(5000);
    expect(await t.worker!.webhooks.dispatchDue()).toMatchObject({ attempted: 0, canceled: 2 });
    expect(receiver.hits).toHaveLength(2);
    const log = expectStatus(await c.get(`/webhook_endpoints/${disabled.id}/deliveries`), 200).body.data[0];
    expect(log).toMatchObject({ status: 'canceled', canceled_reason: 'endpoint_disabled', next_attempt_at: null });
    const rows = await t.infra.reads.find<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, { where: { endpoint_id: deleted.id } });
    expect(rows.map((r) => [r.status, r.canceled_reason])).toEqual([['canceled', 'endpoint_deleted']]);
  });

  it('does not send to endpoints registered after the event', async () => {
    const org = await newOrg();
    const c = client(t, org.test);
    await sendDocument(c);
    await t.infra.runner.trigger();
    await createEndpoint(c, { url: receiver.url() });
    await deliverNow(t);
    expect(receiver.hits).toHaveLength(0);
  });
});

describe('webhook delivery with WEBHOOK_ALLOW_PRIVATE_NETWORKS off', () => {
  it('refuses at connect time a public-looking name that resolves to loopback, and never connects', async () => {
    const receiver = await startReceiver();
    const resolveHost = jest.fn(async () => [{ address: '127.0.0.1', family: 4 }]);
    const t = await startDeliveryApp({ webhookAllowPrivateNetworks: false }, { webhooks: { resolveHost } });
    try {
      const org: TestOrg = await t.createOrg();
      const c = client(t, org.test);
      // Registration found no address for the name (no DNS answer then); the connect-time check refuses the one it gets later.
      const endpoint = await createEndpoint(c, { url: `http://rebind.example.com:${receiver.port}/hook`, events: ['document.sent'] });
      await sendDocument(c);
      expect(await deliverNow(t)).toMatchObject({ attempted: 1, retrying: 1 });
      expect(resolveHost).toHaveBeenCalledWith('rebind.example.com');
      expect(receiver.hits).toHaveLength(0);
      const log = expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}/deliveries`), 200).body.data[0];
      expect(log).toMatchObject({ status: 'pending', attempts: [expect.objectContaining({ status_code: null, error_code: 'blocked_address' })] });
      expect(log.attempts[0].error).toMatch(/127\.0\.0\.1/);
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
