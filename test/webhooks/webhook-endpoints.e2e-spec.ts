import { WebhookSecretBox } from '@dojang/application';
import { webhookEndpointStreamId } from '@dojang/domain';
import { client, expectError, expectStatus } from '../support/api-helpers';
import { startTestApp, TestOrg, useTestApp } from '../support/test-app';
import { createEndpoint } from './webhook-test-kit';

describe('webhook endpoints API', () => {
  const t = useTestApp({ manualClock: true, worker: { tickIntervalMs: 0 } });
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
  });

  it('creates an endpoint and shows its whsec_ secret only in the creation response', async () => {
    const c = client(t, org.test);
    const created = await createEndpoint(c, { url: 'https://hooks.example.com/dojang', events: ['document.completed', 'document.expired'], description: '운영 수신기' });
    expect(created).toEqual({
      id: expect.stringMatching(/^whe_[0-9a-f]{24}$/),
      object: 'webhook_endpoint',
      url: 'https://hooks.example.com/dojang',
      events: ['document.completed', 'document.expired'],
      description: '운영 수신기',
      status: 'enabled',
      disabled_reason: null,
      livemode: false,
      created_at: '2026-03-02T09:00:00.000Z',
      updated_at: '2026-03-02T09:00:00.000Z',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const read = expectStatus(await c.get(`/webhook_endpoints/${created.id}`), 200).body;
    const { secret, ...withoutSecret } = created;
    expect(read).toEqual(withoutSecret);
    const listed = expectStatus(await c.get('/webhook_endpoints'), 200).body;
    expect(JSON.stringify(listed)).not.toContain(secret);

    // The event log holds the secret only sealed; the server secret opens it (for the worker).
    const stream = await t.infra.events.readStream(webhookEndpointStreamId(created.id));
    expect(JSON.stringify(stream)).not.toContain(secret);
    expect(JSON.stringify(stream)).not.toContain(secret.slice('whsec_'.length));
    const sealed = String(stream[0].data.secret_ciphertext);
    expect(WebhookSecretBox.fromConfig(t.infra.config).open(created.id, sealed)).toBe(secret);
    // Bound to its endpoint: the same ciphertext does not open under another id.
    expect(() => WebhookSecretBox.fromConfig(t.infra.config).open('whe_000000000000000000000000', sealed)).toThrow();
  });

  it('subscribes to all events by default and lists newest first with a cursor', async () => {
    const c = client(t, org.test);
    const fresh = await t.createOrg('목록 테스트');
    const fc = client(t, fresh.test);
    const a = await createEndpoint(fc, { url: 'https://a.example.com/hook' });
    const b = await createEndpoint(fc, { url: 'https://b.example.com/hook' });
    const d = await createEndpoint(fc, { url: 'https://c.example.com/hook' });
    expect(a.events).toEqual(['*']);
    const page1 = expectStatus(await fc.get('/webhook_endpoints?limit=2'), 200).body;
    expect(page1).toMatchObject({ object: 'list', has_more: true });
    expect(page1.data.map((e: any) => e.id)).toEqual([d.id, b.id]);
    const page2 = expectStatus(await fc.get(`/webhook_endpoints?limit=2&starting_after=${b.id}`), 200).body;
    expect(page2.data.map((e: any) => e.id)).toEqual([a.id]);
    expect(page2.has_more).toBe(false);
    expectError(await fc.get('/webhook_endpoints?limit=0'), 400, 'invalid_parameter', 'limit');
    // Other organizations' endpoints are not in the list.
    expect(expectStatus(await c.get('/webhook_endpoints?limit=100'), 200).body.data.map((e: any) => e.id)).not.toContain(a.id);
  });

  it('updates events, url and description, disables and enables', async () => {
    const c = client(t, org.test);
    const e = await createEndpoint(c, { url: 'https://hooks.example.com/1', description: 'x' });
    t.clock!.advance(1000);
    const patched = expectStatus(await c.patch(`/webhook_endpoints/${e.id}`, { events: ['document.sent'], url: 'https://hooks.example.com/2', description: null }), 200).body;
    expect(patched).toMatchObject({ events: ['document.sent'], url: 'https://hooks.example.com/2', description: null, status: 'enabled', updated_at: '2026-03-02T09:00:01.000Z' });
    const off = expectStatus(await c.patch(`/webhook_endpoints/${e.id}`, { status: 'disabled' }), 200).body;
    expect(off).toMatchObject({ status: 'disabled', disabled_reason: 'requested' });
    const on = expectStatus(await c.patch(`/webhook_endpoints/${e.id}`, { disabled: false }), 200).body;
    expect(on).toMatchObject({ status: 'enabled', disabled_reason: null });
    expect(expectStatus(await c.patch(`/webhook_endpoints/${e.id}`, { disabled: true }), 200).body.status).toBe('disabled');
    expectError(await c.patch(`/webhook_endpoints/${e.id}`, { disabled: true, status: 'enabled' }), 400, 'invalid_parameter', 'disabled');
    expectError(await c.patch(`/webhook_endpoints/${e.id}`, { events: ['document.nope'] }), 400, 'invalid_parameter', 'events');
    expectError(await c.patch(`/webhook_endpoints/${e.id}`, { events: [] }), 400, 'invalid_parameter', 'events');
    expectError(await c.patch(`/webhook_endpoints/${e.id}`, { secret: 'whsec_AAAA' }), 400, 'invalid_parameter', 'secret');
  });

  it('deletes: the endpoint and its delivery log are gone', async () => {
    const c = client(t, org.test);
    const e = await createEndpoint(c, { url: 'https://hooks.example.com/del' });
    expect(expectStatus(await c.del(`/webhook_endpoints/${e.id}`), 200).body).toEqual({ id: e.id, object: 'webhook_endpoint', deleted: true });
    expectError(await c.get(`/webhook_endpoints/${e.id}`), 404, 'webhook_endpoint_not_found');
    expectError(await c.get(`/webhook_endpoints/${e.id}/deliveries`), 404, 'webhook_endpoint_not_found');
    expectError(await c.del(`/webhook_endpoints/${e.id}`), 404, 'webhook_endpoint_not_found');
    expectError(await c.patch(`/webhook_endpoints/${e.id}`, { disabled: true }), 404, 'webhook_endpoint_not_found');
  });

  it('keeps test and live endpoints apart, and other organizations out', async () => {
    const test = client(t, org.test);
    const live = client(t, org.live);
    const other = client(t, (await t.createOrg('남의 회사')).test);
    const e = await createEndpoint(test, { url: 'https://hooks.example.com/test' });
    const l = await createEndpoint(live, { url: 'https://hooks.example.com/live' });
    expect(l.livemode).toBe(true);
    for (const [c, id] of [[live, e.id], [other, e.id], [test, l.id]] as const) {
      expectError(await c.get(`/webhook_endpoints/${id}`), 404, 'webhook_endpoint_not_found');
      expectError(await c.patch(`/webhook_endpoints/${id}`, { disabled: true }), 404, 'webhook_endpoint_not_found');
      expectError(await c.del(`/webhook_endpoints/${id}`), 404, 'webhook_endpoint_not_found');
    }
    expect(expectStatus(await live.get('/webhook_endpoints?limit=100'), 200).body.data.map((x: any) => x.id)).toEqual([l.id]);
    expectError(await test.get('/webhook_endpoints/not-an-id'), 404, 'webhook_endpoint_not_found');
  });

  it('validates the body', async () => {
    const c = client(t, org.test);
    expectError(await c.post('/webhook_endpoints', {}), 400, 'missing_parameter', 'url');
    expectError(await c.post('/webhook_endpoints', { url: '   ' }), 400, 'missing_parameter', 'url');
    expectError(await c.post('/webhook_endpoints', { url: 'ftp://example.com/' }), 400, 'invalid_parameter', 'url');
    expectError(await c.post('/webhook_endpoints', { url: 'https://u:p@example.com/' }), 400, 'invalid_parameter', 'url');
    expectError(await c.post('/webhook_endpoints', { url: 'https://example.com/', events: ['document.sent', 'nope'] }), 400, 'invalid_parameter', 'events');
    expectError(await c.post('/webhook_endpoints', { url: 'https://example.com/', events: 'document.sent' }), 400, 'invalid_parameter', 'events');
    expectError(await c.post('/webhook_endpoints', { url: 'https://example.com/', description: 'x'.repeat(501) }), 400, 'invalid_parameter', 'description');
    expectError(await c.post('/webhook_endpoints', { url: 'https://example.com/', secret: 'whsec_mine' }), 400, 'invalid_parameter', 'secret');
  });

  it.each([
    'http://127.0.0.1/hook',
    'http://127.0.0.1:8080/hook',
    'http://[::1]/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/hook',
    'http://localhost:3000/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://metadata.google.internal/',
  ])('refuses the private target %s while WEBHOOK_ALLOW_PRIVATE_NETWORKS is off', async (url) => {
    expect(t.infra.config.webhookAllowPrivateNetworks).toBe(false);
    const err = expectError(await client(t, org.test).post('/webhook_endpoints', { url }), 400, 'invalid_parameter', 'url');
    expect(err.message).toMatch(/private|loopback|local|internal/i);
    // The refusal names the setting that allows it in development.
    expect(err.message).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
  });

  it('does not point at WEBHOOK_ALLOW_PRIVATE_NETWORKS for a URL it would not fix', async () => {
    const err = expectError(await client(t, org.test).post('/webhook_endpoints', { url: 'ftp://example.com/' }), 400, 'invalid_parameter', 'url');
    expect(err.message).not.toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  });

  it('accepts private targets when WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', async () => {
    const dev = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, worker: { tickIntervalMs: 0 } });
    try {
      expect(dev.infra.config.webhookAllowPrivateNetworks).toBe(true);
      const o = await dev.createOrg();
      const e = await createEndpoint(client(dev, o.test), { url: 'http://127.0.0.1:9/hook' });
      expect(e.url).toBe('http://127.0.0.1:9/hook');
    } finally {
      await dev.close();
    }
  });
});

/**
 * Issue 24 §22: names such as 127.0.0.1.nip.io and localtest.me are public DNS names that answer
 * loopback; they were accepted at registration. The answers are injected (no network in tests).
 */
describe('webhook endpoint registration resolves the host name', () => {
  const ANSWERS: Record<string, Array<{ address: string; family: number }>> = {
    '127.0.0.1.nip.io': [{ address: '127.0.0.1', family: 4 }],
    'localtest.me': [{ address: '127.0.0.1', family: 4 }],
    'v6.localtest.me': [{ address: '::1', family: 6 }],
    '10.0.0.5.sslip.io': [{ address: '10.0.0.5', family: 4 }],
    'hooks.example.com': [{ address: '93.184.216.34', family: 4 }],
  };
  const resolver = jest.fn(async (host: string) => {
    const answer = ANSWERS[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  });
  const t = useTestApp({ worker: false, webhookHostResolver: resolver });
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
  });

  it.each(['https://127.0.0.1.nip.io/hook', 'https://localtest.me/hook', 'http://v6.localtest.me:8080/hook', 'https://10.0.0.5.sslip.io/'])(
    'refuses %s, which resolves to a private address now',
    async (url) => {
      const err = expectError(await client(t, org.test).post('/webhook_endpoints', { url }), 400, 'invalid_parameter', 'url');
      expect(err.message).toMatch(/resolves to a private, loopback or link-local address \((127\.0\.0\.1|::1|10\.0\.0\.5)\)/);
      expect(resolver).toHaveBeenCalledWith(new URL(url).hostname);
    },
  );

  it('accepts a name resolving to a public address, or not resolving (yet): deliveries check every connection', async () => {
    const c = client(t, org.test);
    const endpoint = await createEndpoint(c, { url: 'https://hooks.example.com/dojang' });
    await createEndpoint(c, { url: 'https://not-yet.example.org/dojang' });
    // A change of URL is checked the same way.
    expectError(await c.patch(`/webhook_endpoints/${endpoint.id}`, { url: 'https://localtest.me/hook' }), 400, 'invalid_parameter', 'url');
    expect(expectStatus(await c.get(`/webhook_endpoints/${endpoint.id}`), 200).body.url).toBe('https://hooks.example.com/dojang');
  });
});
