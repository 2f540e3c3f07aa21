import { randomUUID } from 'crypto';
import { startWorker } from '@dojang/application';
import { TestApp, startTestApp } from '../support/test-app';

/**
 * Issue 24 §7: readiness covered only the API. With ROLE=api the reactors run in workers; with
 * every worker dead or stopped, or the projections frozen behind a few events, it still said 200.
 */
describe('GET /v1/health/ready covers the roles the API depends on', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('ROLE=api: 503 naming the missing worker until one runs the reactors, 503 again once it stops', async () => {
    t = await startTestApp({ config: { role: 'api' }, worker: false });
    const none = await t.http.get('/v1/health/ready').expect(503);
    expect(none.body.error).toMatchObject({ code: 'not_ready' });
    expect(none.body.error.message).toMatch(/No live worker runs the reactors/);
    await t.http.get('/v1/health').expect(200);

    const worker = await startWorker(t.infra, { tickIntervalMs: 0 });
    await t.http.get('/v1/health/ready').expect(200);
    await worker.stop();
    const stopped = await t.http.get('/v1/health/ready').expect(503);
    expect(stopped.body.error.message).toMatch(/No live worker/);
  });

  it('503 when a few events have waited longer than READY_MAX_LAG_SECONDS (the projector is frozen)', async () => {
    t = await startTestApp({ config: { readyMaxLagEvents: 1000, readyMaxLagSeconds: 1 }, worker: false });
    await t.http.get('/v1/health/ready').expect(200);
    await t.infra.runner.stop();
    const metadata = { occurred_at: new Date(Date.now() - 5000).toISOString(), actor: 'system', schema_version: 1 };
    await t.infra.events.append(`noise-${randomUUID()}`, [{ event_id: randomUUID(), type: 'NoiseRecorded', data: {}, metadata }], 'no_stream');
    const frozen = await t.http.get('/v1/health/ready').expect(503);
    expect(frozen.body.error.message).toMatch(/waiting for \d+ s .*stalled or gone/);
    await t.infra.runner.start();
    await t.infra.runner.catchUp();
    await t.http.get('/v1/health/ready').expect(200);
  });
});
