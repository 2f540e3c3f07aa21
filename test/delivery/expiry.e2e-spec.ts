import { TIMERS, TimerRow } from '@dojang/application';
import { DEFAULT_EXPIRY_DAYS } from '@dojang/domain';
import { verifyWebhook } from '@dojang/webhooks';
import { client, expectError, expectStatus } from '../support/api-helpers';
import { TestApp } from '../support/test-app';
import { createEndpoint, deliverNow, Receiver, sendDocument, signAs, startDeliveryApp, startReceiver } from '../webhooks/webhook-test-kit';

const DAY = 24 * 3600e3;

/** Expiry on a ManualClock: the worker's tick fires the timer written when the document was sent. */
describe('document expiry', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startDeliveryApp();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const settle = async () => {
    await t.infra.runner.trigger();
    await t.worker!.runner.trigger();
  };

  it('expires a sent document at expires_at: status expired, links dead, document.expired delivered, participants told', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const endpoint = await createEndpoint(c, { url: receiver.url('/expired'), events: ['document.expired'] });
    const sentAt = t.clock!.now().getTime();
    const doc = await sendDocument(c, { participants: [{ name: '만료 대상', email: 'late@example.com' }], send: { expires_in_days: 1 } });
    const read = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
    expect(read.expires_at).toBe(new Date(sentAt + DAY).toISOString());
    await settle();

    // One second early: nothing happens.
    t.clock!.advance(DAY - 1000);
    expect(await t.worker!.tick()).toMatchObject({ fired: 0 });
    await settle();
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.status).toBe('sent');
    expectStatus(await t.http.get(`/v1/signing/${doc.participants[0].token}`), 200);

    t.clock!.advance(2000); // 1 day + 1 s after sending
    expect(await t.worker!.tick()).toMatchObject({ fired: 1 });
    await settle();
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.status).toBe('expired');
    expectError(await t.http.get(`/v1/signing/${doc.participants[0].token}`), 410, 'signing_link_inactive');
    expectError(await t.http.post(`/v1/signing/${doc.participants[0].token}/sign`).send({ consent: true }), 410, 'signing_link_inactive');

    const events = expectStatus(await c.get(`/events?document_id=${doc.id}&type=document.expired`), 200).body.data;
    expect(events).toHaveLength(1);
    expect(await deliverNow(t)).toMatchObject({ succeeded: 1 });
    const hit = receiver.hits.find((h) => h.url === '/expired')!;
    verifyWebhook({ secret: endpoint.secret, headers: hit.headers, body: hit.body, now: t.clock!.now() });
    expect(JSON.parse(hit.body)).toMatchObject({ id: events[0].id, type: 'document.expired', data: { document_id: doc.id } });

    const outbox = expectStatus(await c.get(`/outbox?document_id=${doc.id}&channel=email`), 200).body.data;
    expect(outbox.map((m: any) => m.kind).sort()).toEqual(['expired', 'signing_request']);

    // Ticking again, or firing late, changes nothing.
    t.clock!.advance(DAY);
    expect(await t.worker!.tick()).toMatchObject({ fired: 0, noop: 0 });
    await settle();
    expect(expectStatus(await c.get(`/events?document_id=${doc.id}&type=document.expired`), 200).body.data).toHaveLength(1);
    const [timer] = await t.infra.reads.find<TimerRow>(TIMERS, { where: { document_id: doc.id, kind: 'expire_document' } });
    expect(timer).toMatchObject({ status: 'done', outcome: 'DocumentExpired', due_at: read.expires_at });
  });

  it(`defaults to the organization's expiry (${DEFAULT_EXPIRY_DAYS} days unless changed)`, async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const now = t.clock!.now().getTime();
    const a = await sendDocument(c);
    expect(expectStatus(await c.get(`/documents/${a.id}`), 200).body.expires_at).toBe(new Date(now + DEFAULT_EXPIRY_DAYS * DAY).toISOString());
    await t.admin.changeSettings(org.id, { default_expiry_days: 3 });
    const b = await sendDocument(c);
    expect(expectStatus(await c.get(`/documents/${b.id}`), 200).body.expires_at).toBe(new Date(now + 3 * DAY).toISOString());
    await settle();
    t.clock!.advance(3 * DAY);
    await t.worker!.tick();
    await settle();
    expect(expectStatus(await c.get(`/documents/${b.id}`), 200).body.status).toBe('expired');
    expect(expectStatus(await c.get(`/documents/${a.id}`), 200).body.status).toBe('sent');
    t.clock!.advance((DEFAULT_EXPIRY_DAYS - 3) * DAY);
    await t.worker!.tick();
    await settle();
    expect(expectStatus(await c.get(`/documents/${a.id}`), 200).body.status).toBe('expired');
  });

  it('never expires a document that was completed or canceled first', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const done = await sendDocument(c, { send: { expires_in_days: 1 } });
    const canceled = await sendDocument(c, { send: { expires_in_days: 1 } });
    await signAs(t, done.participants[0].token);
    expectStatus(await c.post(`/documents/${canceled.id}/cancel`), 200);
    await settle();
    const timers = await t.infra.reads.find<TimerRow>(TIMERS, { where: { document_id: { $in: [done.id, canceled.id] } } });
    expect(timers.map((x) => [x.kind, x.status])).toEqual([
      ['expire_document', 'canceled'],
      ['expire_document', 'canceled'],
    ]);
    t.clock!.advance(2 * DAY);
    expect(await t.worker!.tick()).toMatchObject({ fired: 0 });
    await settle();
    expect(expectStatus(await c.get(`/documents/${done.id}`), 200).body.status).toBe('completed');
    expect(expectStatus(await c.get(`/documents/${canceled.id}`), 200).body.status).toBe('canceled');
    expect(expectStatus(await c.get(`/events?type=document.expired`), 200).body.data).toEqual([]);
  });

  it('survives a restart: the timer is in the store, not in memory', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const doc = await sendDocument(c, { send: { expires_in_days: 2 } });
    await settle();
    await t.worker!.stop();
    const { startWorker } = await import('@dojang/application');
    const again = await startWorker(t.infra, { clock: t.clock!, tickIntervalMs: 0 });
    try {
      t.clock!.advance(2 * DAY);
      expect(await again.tick()).toMatchObject({ fired: 1 });
      await t.infra.runner.trigger();
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.status).toBe('expired');
    } finally {
      await again.stop();
    }
  });
});
