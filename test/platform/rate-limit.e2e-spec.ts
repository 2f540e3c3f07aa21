import { bearer, startTestApp, TestOrg, useTestApp } from '../support/test-app';

describe('rate limit (fixed window per API key, injected clock)', () => {
  const t = useTestApp({ manualClock: true, worker: false, config: { rateLimitPerMinute: 3 } });
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
    // The test clock starts at 09:00:00.000; stay clear of a minute boundary.
    t.clock!.set('2026-03-02T09:00:10.000Z');
  });

  const get = (key = org.test) => t.http.get('/v1/organization').set(bearer(key));
  const windowEnd = (iso: string) => String(Math.ceil((Math.floor(Date.parse(iso) / 60_000) * 60_000 + 60_000) / 1000));

  it('counts per key, puts the headers on every response including errors, and answers 429 with Retry-After', async () => {
    const reset = windowEnd('2026-03-02T09:00:10.000Z');
    const r1 = await get();
    expect(r1.status).toBe(200);
    expect([r1.headers['ratelimit-limit'], r1.headers['ratelimit-remaining'], r1.headers['ratelimit-reset']]).toEqual(['3', '2', reset]);
    // An error response (404) is counted and carries the headers too.
    const r2 = await t.http.get('/v1/documents/00000000-0000-4000-8000-000000000000').set(bearer(org.test));
    expect(r2.status).toBe(404);
    expect(r2.headers['ratelimit-remaining']).toBe('1');
    // So is malformed JSON, answered before any route runs.
    const r3 = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').send('{"title":');
    expect(r3.status).toBe(400);
    expect(r3.headers['ratelimit-remaining']).toBe('0');
    const r4 = await get();
    expect(r4.status).toBe(429);
    expect(r4.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_error' });
    expect(r4.body.error.request_id).toBe(r4.headers['request-id']);
    expect(r4.headers['retry-after']).toBe('50');
    expect([r4.headers['ratelimit-limit'], r4.headers['ratelimit-remaining'], r4.headers['ratelimit-reset']]).toEqual(['3', '0', reset]);
    // Another key of the same organization has its own count.
    const live = await get(org.live);
    expect(live.status).toBe(200);
    expect(live.headers['ratelimit-remaining']).toBe('2');
  });

  it('starts a fresh window when the clock reaches the next minute', async () => {
    t.clock!.set('2026-03-02T09:00:59.000Z');
    const still = await get();
    expect(still.status).toBe(429);
    expect(still.headers['retry-after']).toBe('1');
    t.clock!.set('2026-03-02T09:01:00.000Z');
    const fresh = await get();
    expect(fresh.status).toBe(200);
    expect(fresh.headers['ratelimit-remaining']).toBe('2');
    expect(fresh.headers['ratelimit-reset']).toBe(windowEnd('2026-03-02T09:01:00.000Z'));
  });

  it("does not count requests without a valid key, health checks or signing links against any key", async () => {
    t.clock!.set('2026-03-02T09:05:00.000Z');
    // Counted per client address instead (rate-limit-unauthenticated.e2e-spec.ts).
    const anon = await t.http.get('/v1/organization');
    expect(anon.status).toBe(401);
    expect(anon.headers['ratelimit-limit']).toBe('300');
    const wrong = await t.http.get('/v1/organization').set(bearer('sk_test_' + 'x'.repeat(32)));
    expect(wrong.status).toBe(401);
    expect(wrong.headers['ratelimit-remaining']).toBe('298');
    const health = await t.http.get('/v1/health');
    expect(health.status).toBe(200);
    expect(health.headers['ratelimit-limit']).toBeUndefined();
    expect((await get()).headers['ratelimit-remaining']).toBe('2');
  });

  it('counts legacy-root requests against the same key', async () => {
    t.clock!.set('2026-03-02T09:06:00.000Z');
    await get();
    const legacy = await t.http.get('/api/v1/organization').set(bearer(org.test));
    expect(legacy.status).toBe(200);
    expect(legacy.headers['ratelimit-remaining']).toBe('1');
  });
});

describe('rate limit default', () => {
  it('is 600 per minute unless RATE_LIMIT_PER_MINUTE says otherwise', async () => {
    const t = await startTestApp({ worker: false });
    try {
      const org = await t.createOrg();
      const res = await t.http.get('/v1/organization').set(bearer(org.test));
      expect(res.headers['ratelimit-limit']).toBe('600');
      expect(res.headers['ratelimit-remaining']).toBe('599');
    } finally {
      await t.close();
    }
    const custom = await startTestApp({ worker: false, env: { RATE_LIMIT_PER_MINUTE: '42' } });
    try {
      const org = await custom.createOrg();
      expect((await custom.http.get('/v1/organization').set(bearer(org.test))).headers['ratelimit-limit']).toBe('42');
    } finally {
      await custom.close();
    }
  });
});
