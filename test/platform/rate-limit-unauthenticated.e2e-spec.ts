import { loadConfig } from '@dojang/application';
import { client, expectError, expectStatus, sendableDraft } from '../support/api-helpers';
import { expectApiError } from '../support/lifecycle';
import { bearer, TestOrg, useTestApp } from '../support/test-app';

/**
 * Issue 24 §12: a request without a valid API key was neither counted nor told its limit, so a
 * script could try keys (or fetch the public pages) without end, and 401 answers lacked the rate
 * headers SPEC puts on every response. Such requests are counted per client address; every
 * counted response says where its count stands.
 */
describe('rate limit of requests without a valid API key (per client address)', () => {
  const t = useTestApp({
      manualClock: true,
      config: { rateLimitPerMinute: 5, unauthenticatedRateLimitPerMinute: 3, signingRateLimit: { perToken: 4, perIp: 50 } },
    });
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
  });
  // Every test starts 10 s into a fresh window.
  beforeEach(() => t.clock!.set(new Date(Math.ceil((t.clock!.now().getTime() + 1) / 60_000) * 60_000 + 10_000)));

  const from = (ip: string) => ({ 'X-Forwarded-For': ip });
  const headers = (res: { headers: Record<string, string> }) => [res.headers['ratelimit-limit'], res.headers['ratelimit-remaining'], res.headers['ratelimit-reset']];
  const windowEnd = () => String(Math.floor(t.clock!.now().getTime() / 60_000) * 60 + 60);

  it('counts 401 answers per client address, with the headers, then answers 429 with Retry-After', async () => {
    const noKey = await t.http.get('/v1/organization').set(from('198.51.100.1'));
    expectError(noKey, 401, 'missing_api_key');
    expect(headers(noKey)).toEqual(['3', '2', windowEnd()]);
    const wrongKey = await t.http.get('/v1/documents').set(from('198.51.100.1')).set(bearer('sk_test_' + 'x'.repeat(32)));
    expectError(wrongKey, 401, 'invalid_api_key');
    expect(headers(wrongKey)).toEqual(['3', '1', windowEnd()]);
    const malformed = await t.http.post('/v1/documents').set(from('198.51.100.1')).set('Authorization', 'Basic abc').send({});
    expectError(malformed, 401, 'invalid_api_key');
    expect(headers(malformed)).toEqual(['3', '0', windowEnd()]);
    const refused = await t.http.get('/v1/organization').set(from('198.51.100.1')).set(bearer('sk_live_' + 'y'.repeat(32)));
    const err = expectApiError(refused, 429, 'rate_limit_error', 'rate_limit_error');
    expect(err.message).toContain('3 per minute per client address');
    expect(refused.headers['retry-after']).toBe('50');
    expect(headers(refused)).toEqual(['3', '0', windowEnd()]);
    // Another address has its own count; a valid key from the refused address has its key's.
    expect(headers(await t.http.get('/v1/organization').set(from('198.51.100.2')))).toEqual(['3', '2', windowEnd()]);
    const keyed = expectStatus(await t.http.get('/v1/organization').set(from('198.51.100.1')).set(bearer(org.test)), 200);
    expect(headers(keyed)).toEqual(['5', '4', windowEnd()]);
  });

  it('counts the public documents (OpenAPI, the reference page) per address too', async () => {
    const doc = expectStatus(await t.http.get('/v1/openapi.json').set(from('198.51.100.3')), 200);
    expect(headers(doc)).toEqual(['3', '2', windowEnd()]);
    const page = expectStatus(await t.http.get('/docs').set(from('198.51.100.3')), 200);
    expect(headers(page)).toEqual(['3', '1', windowEnd()]);
  });

  it("puts the signing link's own count on signing-link responses", async () => {
    const c = client(t, org.test);
    const { doc } = await sendableDraft(c);
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200);
    const token = String(sent.body.participants[0].signing_url).split('/sign/')[1];
    const view = expectStatus(await t.http.get(`/v1/signing/${token}`).set(from('198.51.100.4')), 200);
    expect(headers(view)).toEqual(['4', '3', windowEnd()]);
    const missing = await t.http.get(`/v1/signing/${'z'.repeat(43)}`).set(from('198.51.100.4'));
    expect(missing.status).toBe(404);
    expect(headers(missing)).toEqual(['4', '3', windowEnd()]);
  });

  it('leaves health checks and metrics alone: probes must answer even while the store that keeps counts does not', async () => {
    for (let i = 0; i < 5; i++) {
      const health = expectStatus(await t.http.get('/v1/health').set(from('198.51.100.5')), 200);
      expect(health.headers['ratelimit-limit']).toBeUndefined();
    }
    expect(headers(await t.http.get('/v1/organization').set(from('198.51.100.5')))).toEqual(['3', '2', windowEnd()]);
  });

  it('documents the headers on 401 answers and on every counted public operation, and none on health checks', async () => {
    const doc = expectStatus(await t.http.get('/v1/openapi.json').set(from('198.51.100.6')), 200).body;
    const ops = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) => Object.values(item).filter((op) => op?.operationId));
    expect(ops.length).toBeGreaterThan(20);
    for (const op of ops) {
      const ok = Object.entries(op.responses as Record<string, any>).find(([status]) => status.startsWith('2'))![1];
      const counted = !/^(Health_|Metrics_)/.test(op.operationId);
      expect({ op: op.operationId, headers: Boolean(ok.headers?.['RateLimit-Remaining']) }).toEqual({ op: op.operationId, headers: counted });
      if (counted) expect({ op: op.operationId, codes: op.responses['429']?.['x-error-codes'] }).toEqual({ op: op.operationId, codes: expect.arrayContaining(['rate_limit_error']) });
      if (counted && op.responses['401']) expect(op.responses['401'].headers['RateLimit-Remaining']).toBeDefined();
    }
  });

  it('is 300 per minute unless UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE says otherwise (0: off)', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/x' }).unauthenticatedRateLimitPerMinute).toBe(300);
    expect(loadConfig({ DATA_DIR: '/tmp/x', UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '20' }).unauthenticatedRateLimitPerMinute).toBe(20);
    expect(loadConfig({ DATA_DIR: '/tmp/x', UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '0' }).unauthenticatedRateLimitPerMinute).toBe(0);
  });
});
