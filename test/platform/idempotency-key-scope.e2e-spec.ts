import { API_TEST_OPTIONS, client, expectStatus, sendableDraft } from '../support/api-helpers';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * Issue 24 §14: the idempotency replay ran before the guard's role check, so an auditor key that
 * repeated an integrator's request with its Idempotency-Key was handed the stored response — with
 * every signing link in it — and could sign. Stored responses belong to the API key that made them;
 * a key whose role refuses the request is refused before any replay; a refusal is never stored.
 */
describeOnEachStore('Idempotency-Key belongs to one API key,', (store) => {
  const postgres = store === 'PostgreSQL';
  let t: TestApp;
  let org: TestOrg;
  let auditorKey: string;
  beforeAll(async () => {
    t = await startTestAppOn(store, { config: API_TEST_OPTIONS.config });
    org = await t.createOrg();
    auditorKey = (await t.admin.issueKey(org.id, 'test', 'auditor')).secret;
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  const request = {
    title: '용역 계약서',
    content: '<p>갑과 을은 다음과 같이 용역 계약을 체결한다.</p>',
    recipient: { email: 'hong@example.com', name: '홍길동' },
  };
  const post = (path: string, apiKey: string, idempotencyKey: string, body: object) =>
    t.http.post(`/v1${path}`).set(bearer(apiKey)).set('Idempotency-Key', idempotencyKey).send(body);
  const expectAuditorRefused = (res: { status: number; headers: Record<string, string>; body: any; text: string }) => {
    expect(res.status).toBe(403);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
    expect(res.text).not.toMatch(/\/sign\//);
  };

  it("an auditor repeating an integrator's POST /signature_requests with its key gets 403, not the signing link", async () => {
    const first = expectStatus(await post('/signature_requests', org.test, 'contract-7781', request), 201);
    expect(first.body.signing_url).toMatch(/\/sign\//);
    const replayed = await post('/signature_requests', auditorKey, 'contract-7781', request);
    expectAuditorRefused(replayed);
    // The integrator's own repeat still replays.
    const again = expectStatus(await post('/signature_requests', org.test, 'contract-7781', request), 201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it("an auditor repeating an integrator's POST /documents/{id}/send with its key gets 403, not the participants' links", async () => {
    const { doc } = await sendableDraft(client(t, org.test));
    const sent = expectStatus(await post(`/documents/${doc.id}/send`, org.test, `send-${doc.id}`, {}), 200);
    expect(JSON.stringify(sent.body)).toMatch(/\/sign\//);
    expectAuditorRefused(await post(`/documents/${doc.id}/send`, auditorKey, `send-${doc.id}`, {}));
  });

  it('a signing link is never answered from a stored response, whatever key and Idempotency-Key come along', async () => {
    const { doc } = await sendableDraft(client(t, org.test));
    const sent = expectStatus(await post(`/documents/${doc.id}/send`, org.test, `send-link-${doc.id}`, {}), 200);
    const token = String(sent.body.participants[0].signing_url).split('/sign/')[1];
    expectStatus(await post(`/signing/${token}/pin`, org.test, 'pin-1', {}), 200);
    // A second PIN within the minute is refused by the link's own rule, not replayed as issued.
    const again = await post(`/signing/${token}/pin`, org.test, 'pin-1', {});
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).not.toBe(200);
  });

  it("an auditor's refusal is not stored: the integrator's later request with that key runs", async () => {
    expectAuditorRefused(await post('/signature_requests', auditorKey, 'contract-poisoned', request));
    expectAuditorRefused(await post('/signature_requests', auditorKey, 'contract-poisoned', request));
    const integrator = expectStatus(await post('/signature_requests', org.test, 'contract-poisoned', request), 201);
    expect(integrator.headers['idempotent-replayed']).toBeUndefined();
    expect(integrator.body.signing_url).toMatch(/\/sign\//);
  });

  it('another full key of the same organization and mode never sees the response: its request runs on its own', async () => {
    const second = (await t.admin.issueKey(org.id, 'test')).secret;
    const body = { title: '키마다 따로', content: '<p>x</p>' };
    const mine = expectStatus(await post('/documents', org.test, 'per-key-1', body), 201);
    const theirs = expectStatus(await post('/documents', second, 'per-key-1', body), 201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // Nor is another key told that the key was used with a different request.
    const different = expectStatus(await post('/documents', second, 'per-key-2', { ...body, title: '다른 것' }), 201);
    expect(different.headers['idempotent-replayed']).toBeUndefined();
    expectStatus(await post('/documents', org.test, 'per-key-2', body), 201);
    // Each key replays its own.
    const replay = expectStatus(await post('/documents', second, 'per-key-1', body), 201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(theirs.body.id);
  });
});
