import { verifyWebhook } from '@dojang/webhooks';
import { client, expectStatus } from '../support/api-helpers';
import { employeeTemplate } from '../support/lifecycle';
import { TestApp } from '../support/test-app';
import { createEndpoint, deliverNow, Receiver, startDeliveryApp, startReceiver } from './webhook-test-kit';

/**
 * bulk_send.completed (issue 23 item 1): the job-level event, delivered through the same webhook
 * machinery and signing as the document events, once per job.
 */
describe('bulk_send.completed webhook', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startDeliveryApp();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('a registered endpoint receives it once when a small job completes: job, template, counts per state, no document_id', async () => {
    const org = await t.createOrg('벌크 웹훅 회사');
    const c = client(t, org.test);
    const template = await employeeTemplate(c, { name: '동의서' });
    const endpoint = await createEndpoint(c, { url: receiver.url(), events: ['bulk_send.completed'] });
    const rows = [1, 2, 3].map((n) => ({ roles: { employee: { name: `직원${n}`, email: `e${n}@example.com` } }, variables: { name: `직원${n}` } }));
    // Row 3 is refused at validation (no name) and skipped: recorded failed at once.
    rows[2].roles.employee.name = '';
    const job = expectStatus(await c.post('/bulk_sends', { template_id: template.id, rows, skip_invalid_rows: true }), 200).body;

    // The worker sends a row per reaction: pass until the job is done, then deliver.
    for (let i = 0; i < 50; i++) {
      await t.worker!.runner.catchUp();
      if (expectStatus(await c.get(`/bulk_sends/${job.id}`), 200).body.status !== 'running') break;
    }
    const done = expectStatus(await c.get(`/bulk_sends/${job.id}`), 200).body;
    expect(done).toMatchObject({ status: 'completed', counts: { pending: 0, sent: 2, failed: 1, canceled: 0 } });
    await deliverNow(t);
    // Delivered again (another pass, a replay) it is still one delivery.
    await deliverNow(t);

    expect(receiver.hits).toHaveLength(1);
    const hit = receiver.hits[0];
    const verified = verifyWebhook({ secret: endpoint.secret, headers: hit.headers, body: hit.body, now: t.clock!.now() });
    const body = JSON.parse(hit.body);
    expect(verified.id).toBe(body.id);
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      object: 'event',
      type: 'bulk_send.completed',
      created_at: done.finished_at,
      livemode: false,
      data: {
        bulk_send_id: job.id,
        template_id: template.id,
        template_version: 1,
        row_count: 3,
        counts: { pending: 0, sent: 2, failed: 1, canceled: 0 },
        finished_at: done.finished_at,
      },
    });
    expect(body.data).not.toHaveProperty('document_id');
    // The same object GET /events shows, filterable by its type.
    expect(expectStatus(await c.get(`/events/${body.id}`), 200).body).toEqual(body);
    expect(expectStatus(await c.get('/events?type=bulk_send.completed'), 200).body.data).toEqual([body]);
  });
});
