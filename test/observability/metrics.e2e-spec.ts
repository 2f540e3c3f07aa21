import { client, createDoc } from '../support/api-helpers';
import { useTestApp } from '../support/test-app';
import { sentWith } from '../support/lifecycle';

/** One series' value from the text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  const t = useTestApp({ config: { metricsToken: 'metrics-secret' } });

  const scrape = async () => {
    const res = await t.http.get('/metrics').set('Authorization', 'Bearer metrics-secret').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.text;
  };

  it('requires METRICS_TOKEN when one is set', async () => {
    const none = await t.http.get('/metrics').expect(401);
    expect(none.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_metrics_token' });
    await t.http.get('/metrics').set('Authorization', 'Bearer wrong').expect(401);
  });

  it('counts requests by route template, appends, messages, and reports projection lag', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const created = { method: 'POST', route: '/v1/documents', status: '201' };
    const before = await scrape();
    for (let i = 0; i < 3; i++) await createDoc(c);
    const after = await scrape();
    expect(sample(after, 'dojang_http_request_duration_seconds_count', created) - sample(before, 'dojang_http_request_duration_seconds_count', created)).toBe(3);
    expect(sample(after, 'dojang_event_store_append_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(
      sample(before, 'dojang_event_store_append_duration_seconds_count', { outcome: 'ok' }),
    );
    // Caught up: read-your-writes waited for the projections before answering.
    expect(after).toMatch(/^dojang_projection_lag_events\{projection="documents"\} 0$/m);
    expect(after).toMatch(/^dojang_projection_lag_seconds\{projection="documents"\} 0$/m);
    expect(after).toMatch(/^dojang_reactor_parked 0$/m);
    expect(after).toMatch(/^dojang_reactor_dead 0$/m);
    // Default process metrics too.
    expect(after).toMatch(/^process_cpu_user_seconds_total /m);

    // A route template, never the raw path (ids and tokens live in paths).
    const doc = await createDoc(c);
    await c.get(`/documents/${doc.id}`);
    const withGet = await scrape();
    expect(sample(withGet, 'dojang_http_request_duration_seconds_count', { method: 'GET', route: '/v1/documents/:id', status: '200' })).toBeGreaterThan(0);
    expect(withGet).not.toContain(doc.id);

    // Test mode sends to the outbox: counted by channel and outcome.
    await sentWith(c, [{ name: '김서명', auth: 'none', email: 'kim@example.com' }]);
    await t.infra.runner.catchUp();
    await t.worker!.runner.catchUp();
    const afterSend = await scrape();
    expect(sample(afterSend, 'dojang_messages_total', { channel: 'email', outcome: 'outbox' })).toBeGreaterThan(0);
    // Send fixed the original: rendered in the PDF pool, counted by kind and outcome.
    expect(sample(afterSend, 'dojang_pdf_jobs_total', { kind: 'render-document', outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(afterSend, 'dojang_pdf_job_duration_seconds_count', { kind: 'render-document' })).toBeGreaterThan(0);
  });
});
