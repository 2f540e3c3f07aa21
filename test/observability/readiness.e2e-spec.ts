import { randomUUID } from 'crypto';
import { useTestApp } from '../support/test-app';

describe('GET /v1/health/ready', () => {
  const t = useTestApp({ config: { readyMaxLagEvents: 2 }, worker: false });

  it('answers 503 while the projections are held behind the log, 200 once they catch up', async () => {
    expect((await t.http.get('/v1/health/ready').expect(200)).body).toMatchObject({ status: 'ready', max_lag_events: 0 });

    await t.infra.runner.stop();
    const metadata = { occurred_at: new Date().toISOString(), actor: 'system', schema_version: 1 };
    await t.infra.events.append(
      `noise-${randomUUID()}`,
      [1, 2, 3].map(() => ({ event_id: randomUUID(), type: 'NoiseRecorded', data: {}, metadata })),
      'no_stream',
    );
    const held = await t.http.get('/v1/health/ready').expect(503);
    expect(held.body.error).toMatchObject({ type: 'api_error', code: 'not_ready' });
    expect(held.body.error.message).toMatch(/3 events .* behind the log; the limit is 2/);
    expect(held.body.error.request_id).toMatch(/^req_/);
    // Liveness is unaffected: the process is up, just not ready.
    await t.http.get('/v1/health').expect(200);

    await t.infra.runner.start();
    await t.infra.runner.catchUp();
    await t.http.get('/v1/health/ready').expect(200);
  });
});
