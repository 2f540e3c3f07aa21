import { API_KEYS, DOCUMENTS, SEALS, TEMPLATES, WEBHOOK_ENDPOINTS } from '@dojang/projections';
import { IDEMPOTENCY_LEASE_MS } from '../../apps/api/src/idempotency/idempotency.store';
import { failNextRead, loseSettles as loseIdempotencySettles } from '../support/idempotency-faults';
import { API_TEST_OPTIONS, client, expectError, expectStatus, sendableDraft } from '../support/api-helpers';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { bearer, TestApp, TestOrg } from '../support/test-app';

/**
 * Issue 24 (fault suite: one title created twice under backend terminations): a retry with the
 * same Idempotency-Key ran a creation again after its first attempt had written, because the key
 * did not keep that attempt's answer — the read after the append failed (503, the key given back),
 * or the store lost the settle of the claim (the claim lapsed). The retry made up a fresh id and a
 * second document. Now the ids a request makes up derive from its key: the retry names the same
 * document (template, seal, webhook endpoint, participants), writes nothing and answers with it
 * (`Idempotent-Replayed: true`). The faults are
 * injected at the read-store port, on the embedded store and on PostgreSQL.
 */
describeOnEachStore('a creation retried with its Idempotency-Key after its first attempt wrote,', (store) => {
  const postgres = store === 'PostgreSQL';
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startTestAppOn(store, { manualClock: true, config: API_TEST_OPTIONS.config });
    org = await t.createOrg();
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const post = (path: string, key: string, body: object) => t.http.post(`/v1${path}`).set(bearer(org.test)).set('Idempotency-Key', key).send(body);
  const titled = async (title: string) =>
    (expectStatus(await t.http.get('/v1/documents?limit=100').set(bearer(org.test)), 200).body.data as Array<{ id: string; title: string }>).filter((d) => d.title === title).map((d) => d.id);

  const failNextDocumentRead = (target: string = DOCUMENTS) => failNextRead(t, target);
  const loseSettles = () => loseIdempotencySettles(t);

  it('POST /documents: the answer after the append failed (503, key given back); the retry answers that document and stores no second one', async () => {
    const body = { title: `재시도 문서 ${postgres}`, content: '<p>본문</p>' };
    failNextDocumentRead();
    expectError(await post('/documents', 'doc-answer-lost', body), 503, 'service_unavailable');
    const [first, ...others] = await titled(body.title);
    expect(others).toEqual([]);
    const retry = expectStatus(await post('/documents', 'doc-answer-lost', body), 201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({ id: first, title: body.title, status: 'draft' });
    expect(await titled(body.title)).toEqual([first]);
    // The answer is now kept: a third try is replayed from the key, with the same body.
    const third = expectStatus(await post('/documents', 'doc-answer-lost', body), 201);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.body).toEqual(retry.body);
  });

  it('an API key lookup that fails answers 503 + Retry-After and runs nothing (never "no key": no pass-through around the claim); the retry creates the one document', async () => {
    const body = { title: `키 조회 실패 ${postgres}`, content: '<p>본문</p>' };
    failNextRead(t, API_KEYS);
    const refused = await post('/documents', 'key-lookup-failed', body);
    expectError(refused, 503, 'service_unavailable');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await titled(body.title)).toEqual([]);
    const made = expectStatus(await post('/documents', 'key-lookup-failed', body), 201);
    expect(made.headers['idempotent-replayed']).toBeUndefined();
    expect(await titled(body.title)).toEqual([made.body.id]);
    // Without an Idempotency-Key the guard's lookup fails closed the same way (no second lookup).
    jest.restoreAllMocks();
    failNextRead(t, API_KEYS);
    const read = await t.http.get('/v1/documents').set(bearer(org.test));
    expectError(read, 503, 'service_unavailable');
    expect(Number(read.headers['retry-after'])).toBeGreaterThan(0);
    jest.restoreAllMocks();
    // A key that is truly unknown is still 401.
    expectError(await t.http.post('/v1/documents').set('Authorization', 'Bearer sk_test_unknownunknownunknown00').set('Idempotency-Key', 'k').send(body), 401, 'invalid_api_key');
  });

  it('POST /documents: the settle lost, the key stays in flight (409 + Retry-After); once its lease lapses the retry answers the first document', async () => {
    const body = { title: `정착 유실 ${postgres}`, content: '<p>본문</p>' };
    loseSettles();
    const first = expectStatus(await post('/documents', 'doc-settle-lost', body), 201);
    const held = await post('/documents', 'doc-settle-lost', body);
    expect({ status: held.status, error: held.body.error }).toMatchObject({ status: 409, error: { type: 'idempotency_error', code: 'idempotency_key_in_use', param: 'Idempotency-Key' } });
    expect(Number(held.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(held.headers['retry-after']) * 1000).toBeLessThanOrEqual(IDEMPOTENCY_LEASE_MS);
    jest.restoreAllMocks();
    t.clock!.advance(IDEMPOTENCY_LEASE_MS + 1);
    const retry = expectStatus(await post('/documents', 'doc-settle-lost', body), 201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    expect(await titled(body.title)).toEqual([first.body.id]);
  });

  it('the same key with a different request after the key was given back makes its own document, not a replay of the other', async () => {
    const one = { title: `다른 요청 1 ${postgres}`, content: '<p>본문</p>' };
    const two = { title: `다른 요청 2 ${postgres}`, content: '<p>본문</p>' };
    failNextDocumentRead();
    expectError(await post('/documents', 'doc-key-given-back', one), 503, 'service_unavailable');
    const made = expectStatus(await post('/documents', 'doc-key-given-back', two), 201);
    expect(made.headers['idempotent-replayed']).toBeUndefined();
    expect(made.body.title).toBe(two.title);
    expect(await titled(one.title)).toHaveLength(1);
    expect(await titled(two.title)).toEqual([made.body.id]);
  });

  it('POST /signature_requests: the retry answers the same document, participant and signing link', async () => {
    const body = { title: `서명 요청 재시도 ${postgres}`, content: '<p>계약 본문</p>', recipient: { email: 'hong@example.com', name: '홍길동' } };
    failNextDocumentRead();
    expectError(await post('/signature_requests', 'sr-answer-lost', body), 503, 'service_unavailable');
    const [first, ...others] = await titled(body.title);
    expect(others).toEqual([]);
    const retry = expectStatus(await post('/signature_requests', 'sr-answer-lost', body), 201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first);
    expect(retry.body.participant).toMatchObject({ name: '홍길동', email: 'hong@example.com' });
    expect(retry.body.signing_url).toMatch(/\/sign\//);
    expect(retry.body.participants.map((p: { id: string }) => p.id)).toEqual([retry.body.participant.id]);
    expect(await titled(body.title)).toEqual([first]);
  });

  it('POST /signature_requests from a template: the retry answers the same document, roles and links', async () => {
    const template = {
      name: `재시도 서식 발송 ${postgres}`,
      content: '<p>{{employee_name}} 님과 계약을 체결한다.</p>',
      roles: [{ role: 'employee', participant_role: 'signer', auth: 'none' }],
      fields: [{ role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 }],
    };
    const tmpl = expectStatus(await t.http.post('/v1/templates').set(bearer(org.test)).send(template), 201).body;
    const body = { template_id: tmpl.id, roles: { employee: { name: '김지원', email: 'kim@example.com' } }, variables: { employee_name: '김지원' } };
    failNextDocumentRead();
    expectError(await post('/signature_requests', 'sr-template-answer-lost', body), 503, 'service_unavailable');
    const [first, ...others] = await titled(template.name);
    expect(others).toEqual([]);
    const retry = expectStatus(await post('/signature_requests', 'sr-template-answer-lost', body), 201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({ id: first, status: 'sent', from_template: tmpl.id });
    expect(retry.body.roles).toEqual({ employee: retry.body.participant.id });
    expect(retry.body.signing_url).toMatch(/\/sign\//);
    expect(await titled(template.name)).toEqual([first]);
  });

  it('POST /documents/{id}/participants (and /batch): the retry answers the participants added, and adds none again', async () => {
    const doc = expectStatus(await t.http.post('/v1/documents').set(bearer(org.test)).send({ title: `참여자 재시도 ${postgres}`, content: '<p>본문</p>' }), 201).body;
    const one = { name: '김서명', email: 'kim@example.com', auth: 'none' };
    failNextDocumentRead();
    expectError(await post(`/documents/${doc.id}/participants`, 'participant-answer-lost', one), 503, 'service_unavailable');
    const retry = expectStatus(await post(`/documents/${doc.id}/participants`, 'participant-answer-lost', one), 201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({ name: '김서명', email: 'kim@example.com' });

    const batch = { participants: [{ name: '이서명', email: 'lee@example.com', auth: 'none' }, { name: '박참조', email: 'park@example.com', role: 'cc' }] };
    jest.restoreAllMocks();
    failNextDocumentRead();
    expectError(await post(`/documents/${doc.id}/participants/batch`, 'batch-answer-lost', batch), 503, 'service_unavailable');
    const batchRetry = expectStatus(await post(`/documents/${doc.id}/participants/batch`, 'batch-answer-lost', batch), 201);
    expect(batchRetry.headers['idempotent-replayed']).toBe('true');
    expect(batchRetry.body.data.map((p: { name: string }) => p.name)).toEqual(['이서명', '박참조']);

    const stored = expectStatus(await t.http.get(`/v1/documents/${doc.id}`).set(bearer(org.test)), 200).body;
    expect(stored.participants.map((p: { id: string; name: string }) => [p.id, p.name])).toEqual([
      [retry.body.id, '김서명'],
      ...batchRetry.body.data.map((p: { id: string; name: string }) => [p.id, p.name]),
    ]);
  });

  it('POST /documents/{id}/duplicate: the retry answers the same copy, with the same participant ids', async () => {
    const { doc } = await sendableDraft(client(t, org.test), { title: `복제 원본 ${postgres}` });
    const before = await titled(`복제 원본 ${postgres}`);
    failNextDocumentRead();
    // The source is read from its stream; the first document row read is the copy's, after its append.
    expectError(await post(`/documents/${doc.id}/duplicate`, 'dup-answer-lost', {}), 503, 'service_unavailable');
    const copies = (await titled(`복제 원본 ${postgres}`)).filter((id) => !before.includes(id));
    expect(copies).toHaveLength(1);
    const retry = expectStatus(await post(`/documents/${doc.id}/duplicate`, 'dup-answer-lost', {}), 201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(copies[0]);
    expect((await titled(`복제 원본 ${postgres}`)).filter((id) => !before.includes(id))).toEqual(copies);
  });
  it.each([
    ['templates', TEMPLATES, { name: `재시도 서식 ${postgres}`, content: '<p>{{name}} 님</p>' }, (x: Record<string, unknown>) => x.name === `재시도 서식 ${postgres}`],
    ['seals', SEALS, { source: 'generated', company_name: `재시도 도장 ${postgres}` }, (x: Record<string, unknown>) => x.name === `재시도 도장 ${postgres}`],
    ['webhook_endpoints', WEBHOOK_ENDPOINTS, { url: `https://hooks.example.com/retry-${postgres}` }, (x: Record<string, unknown>) => x.url === `https://hooks.example.com/retry-${postgres}`],
  ] as const)('POST /%s: the retry answers what the first attempt made, and there is one', async (path, collection, body, same) => {
    const list = async () => (expectStatus(await t.http.get(`/v1/${path}?limit=100`).set(bearer(org.test)), 200).body.data as Array<Record<string, unknown>>).filter(same);
    failNextDocumentRead(collection);
    expectError(await post(`/${path}`, `${path}-answer-lost`, body), 503, 'service_unavailable');
    const made = await list();
    expect(made).toHaveLength(1);
    const retry = expectStatus(await post(`/${path}`, `${path}-answer-lost`, body), 201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(made[0].id);
    expect((await list()).map((x) => x.id)).toEqual([made[0].id]);
    // A new endpoint's secret is in its creation answer only: the replay carries it too.
    if (path === 'webhook_endpoints') expect(retry.body.secret).toMatch(/^whsec_/);
  });
});
