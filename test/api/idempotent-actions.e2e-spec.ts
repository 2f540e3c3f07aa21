import { bulkSendStreamId, documentStreamId, organizationStreamId, webhookEndpointStreamId } from '@dojang/domain';
import { BULK_SENDS, BulkSendRow, DOCUMENTS } from '@dojang/projections';
import { IDEMPOTENCY_LEASE_MS } from '../../apps/api/src/idempotency/idempotency.store';
import { API_TEST_OPTIONS, client, expectError, expectStatus, sendableDraft } from '../support/api-helpers';
import { failNextRead, loseSettles } from '../support/idempotency-faults';
import { employeeTemplate } from '../support/lifecycle';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * Actions retried with their Idempotency-Key after the first attempt wrote (the same class as the
 * creations of idempotent-creation.e2e-spec.ts, issue 24): the key's settle lost, or the read
 * after the write failed (503, the key given back), so the route runs again. Before, a retried
 * send was refused as document_not_editable although it had been sent, a retried reminder was
 * refused by the cooldown (or, past it, sent twice), a retried cancel was refused, and a retried
 * bulk send started a second job: every row's contract sent twice. Now a request's events have ids
 * derived from its key: the retry finds its own events and answers with them, writing nothing.
 */
describeOnEachStore('an action retried with its Idempotency-Key after its first attempt wrote,', (store) => {
  const postgres = store === 'PostgreSQL';
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    // No worker: what the API wrote is what is counted (the reactors would add their own events).
    t = await startTestAppOn(store, { manualClock: true, worker: false, config: API_TEST_OPTIONS.config });
    org = await t.createOrg();
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const post = (key: string, path: string, idempotencyKey: string, body: object = {}) => t.http.post(`/v1${path}`).set(bearer(key)).set('Idempotency-Key', idempotencyKey).send(body);
  const typesOf = async (stream: string) => (await t.infra.events.readStream(stream)).map((e) => e.type);

  /** The first attempt answers, its settle is lost (409 while its lease runs), and the retry after the lease answers what it wrote. */
  async function retriedAfterLostSettle(key: string, path: string, idempotencyKey: string, body: object = {}) {
    loseSettles(t);
    const first = await post(key, path, idempotencyKey, body);
    expect(first.status).toBeLessThan(300);
    const held = await post(key, path, idempotencyKey, body);
    expect({ status: held.status, code: held.body.error?.code }).toEqual({ status: 409, code: 'idempotency_key_in_use' });
    jest.restoreAllMocks();
    t.clock!.advance(IDEMPOTENCY_LEASE_MS + 1);
    const retry = await post(key, path, idempotencyKey, body);
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([first.status, 'true']);
    return { first, retry };
  }

  it('POST /documents/{id}/send: the retry answers the sent document; it is sent once', async () => {
    const { doc } = await sendableDraft(client(t, org.test), { title: `보내기 재시도 ${postgres}` });
    const { first, retry } = await retriedAfterLostSettle(org.test, `/documents/${doc.id}/send`, `send-${doc.id}`);
    expect(retry.body).toMatchObject({ id: doc.id, status: 'sent' });
    expect(retry.body.participants.map((p: { signing_url: string }) => p.signing_url)).toEqual(first.body.participants.map((p: { signing_url: string }) => p.signing_url));
    expect((await typesOf(documentStreamId(doc.id))).filter((type) => type === 'DocumentSent')).toHaveLength(1);
  });

  it('POST /documents/{id}/send: the answer lost after the write (503, key given back); the retry answers the sent document', async () => {
    const { doc } = await sendableDraft(client(t, org.test), { title: `보내기 응답 유실 ${postgres}` });
    failNextRead(t, DOCUMENTS);
    expectError(await post(org.test, `/documents/${doc.id}/send`, `send-lost-${doc.id}`), 503, 'service_unavailable');
    const retry = expectStatus(await post(org.test, `/documents/${doc.id}/send`, `send-lost-${doc.id}`), 200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.status).toBe('sent');
    expect((await typesOf(documentStreamId(doc.id))).filter((type) => type === 'DocumentSent')).toHaveLength(1);
  });

  it('POST /documents/{id}/remind: the retry answers the reminder it sent, and none is sent again', async () => {
    const { doc } = await sendableDraft(client(t, org.test), { title: `알림 재시도 ${postgres}` });
    expectStatus(await post(org.test, `/documents/${doc.id}/send`, `remind-send-${doc.id}`), 200);
    const { first, retry } = await retriedAfterLostSettle(org.test, `/documents/${doc.id}/remind`, `remind-${doc.id}`);
    expect(first.body.participant_ids).toHaveLength(1);
    expect(retry.body.participant_ids).toEqual(first.body.participant_ids);
    expect((await typesOf(documentStreamId(doc.id))).filter((type) => type === 'ReminderSent')).toHaveLength(1);
    // A new request (another key) is a new reminder, held to the cooldown as before.
    const again = await post(org.test, `/documents/${doc.id}/remind`, `remind-again-${doc.id}`);
    expect({ status: again.status, code: again.body.error?.code }).toEqual({ status: 429, code: 'reminder_cooldown' });
  });

  it('POST /documents/{id}/cancel: the retry answers the canceled document with its reason', async () => {
    const { doc } = await sendableDraft(client(t, org.test), { title: `취소 재시도 ${postgres}` });
    expectStatus(await post(org.test, `/documents/${doc.id}/send`, `cancel-send-${doc.id}`), 200);
    const { retry } = await retriedAfterLostSettle(org.test, `/documents/${doc.id}/cancel`, `cancel-${doc.id}`, { reason: '조건 변경' });
    expect(retry.body).toMatchObject({ id: doc.id, status: 'canceled' });
    expect((await typesOf(documentStreamId(doc.id))).filter((type) => type === 'DocumentCanceled')).toHaveLength(1);
  });

  it('POST /webhook_endpoints and /{id}/rotate_secret: a retry answers the secret that was stored, not one made up again', async () => {
    const url = `https://hooks.example.com/idem-${postgres}`;
    const { first, retry } = await retriedAfterLostSettle(org.test, '/webhook_endpoints', `whe-${postgres}`, { url });
    expect(retry.body.id).toBe(first.body.id);
    expect(retry.body.secret).toBe(first.body.secret);
    const rotation = await retriedAfterLostSettle(org.test, `/webhook_endpoints/${first.body.id}/rotate_secret`, `rotate-${postgres}`);
    expect(rotation.first.body.secret).not.toBe(first.body.secret);
    // The secret deliveries are signed with: the one both answers gave.
    expect(rotation.retry.body.secret).toBe(rotation.first.body.secret);
    expect((await typesOf(webhookEndpointStreamId(first.body.id))).filter((type) => type === 'WebhookEndpointSecretRotated')).toHaveLength(1);
  });

  it('POST /bulk_sends (live): the retry answers the job its first attempt started; one job, one credit reservation', async () => {
    const live = await t.createOrg(`대량 재시도 ${postgres}`, 'team');
    // Exactly enough for one job of 3: a retry that counted its own hold against itself was refused (402).
    await t.admin.grantCredits(live.id, 3, 'purchase');
    const template = await employeeTemplate(client(t, live.live), { roles: [{ role: 'employee', auth: 'none' }] });
    const rows = [1, 2, 3].map((n) => ({ roles: { employee: { name: `직원${n}`, email: `bulk${n}@example.com` } }, variables: { name: `직원${n}` } }));
    const { first, retry } = await retriedAfterLostSettle(live.live, '/bulk_sends', `bulk-${postgres}`, { template_id: template.id, rows });
    expect(retry.body.id).toBe(first.body.id);
    const jobs = await t.infra.reads.find<BulkSendRow>(BULK_SENDS, { where: { organization_id: live.id }, limit: 10 });
    expect(jobs.map((j) => j.id)).toEqual([first.body.id]);
    expect(await typesOf(bulkSendStreamId(first.body.id))).toEqual(['BulkSendStarted']);
    expect((await typesOf(organizationStreamId(live.id))).filter((type) => type === 'CreditsReserved')).toHaveLength(1);
  });
});
