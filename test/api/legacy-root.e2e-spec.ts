import { bearer, TestOrg, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, Client, client, expectError, expectStatus, field, metadataOf, sendThroughDomain, UNKNOWN_UUID, UUID_RE } from '../support/api-helpers';

/** The legacy root /api/v1 serves the same paths, with the same behaviour and errors, on the same data. */
describe('the legacy root /api/v1', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  let legacy: Client;
  let modern: Client;
  beforeAll(async () => {
    org = await t.createOrg('레거시 주식회사');
    legacy = client(t, org.test, '/api/v1');
    modern = client(t, org.test, '/v1');
  });

  it('walks the whole draft API', async () => {
    const created = expectStatus(await legacy.post('/documents', { title: '레거시 계약', content: '<p>본문</p>', metadata: { a: '1' } }), 201).body;
    expect(created).toMatchObject({ object: 'document', status: 'draft', title: '레거시 계약', author_name: '레거시 주식회사' });
    expect(created.id).toMatch(UUID_RE);

    expect(expectStatus(await legacy.get(`/documents/${created.id}`), 200).body).toEqual(created);
    expect(expectStatus(await legacy.get('/documents?limit=1'), 200).body).toMatchObject({ object: 'list', data: [created], has_more: false });

    const patched = expectStatus(await legacy.patch(`/documents/${created.id}`, { title: '수정', metadata: { a: null, b: '2' } }), 200).body;
    expect(patched).toMatchObject({ title: '수정', metadata: { b: '2' } });

    const one = expectStatus(await legacy.post(`/documents/${created.id}/participants`, { name: '갑', phone: '01011112222' }), 201).body;
    const batch = expectStatus(await legacy.post(`/documents/${created.id}/participants/batch`, { participants: [{ name: '을', auth: 'none' }, { name: '병', auth: 'none', role: 'cc' }] }), 201).body;
    expect(batch.data.map((p: any) => p.name)).toEqual(['을', '병']);

    const fields = expectStatus(await legacy.put(`/documents/${created.id}/fields`, { fields: [field(one.id), field(batch.data[0].id, { y: 10 })] }), 200).body;
    expect(fields.data).toHaveLength(2);

    expect(expectStatus(await legacy.del(`/documents/${created.id}/participants/${batch.data[1].id}`), 200).body).toEqual({ id: batch.data[1].id, object: 'participant', deleted: true });

    const copy = expectStatus(await legacy.post(`/documents/${created.id}/duplicate`), 201).body;
    expect(copy).toMatchObject({ status: 'draft', title: '수정' });
    expect(copy.participants.map((p: any) => p.name)).toEqual(['갑', '을']);
    expect(copy.fields).toHaveLength(2);

    // The same data through the modern root.
    expect(expectStatus(await modern.get(`/documents/${created.id}`), 200).body).toEqual(expectStatus(await legacy.get(`/documents/${created.id}`), 200).body);

    expect(expectStatus(await legacy.del(`/documents/${created.id}`), 200).body).toEqual({ id: created.id, object: 'document', deleted: true });
    expectError(await modern.get(`/documents/${created.id}`), 404, 'document_not_found');
    expectError(await legacy.get(`/documents/${created.id}`), 404, 'document_not_found');
  });

  it('reads the organization, members and health', async () => {
    await t.admin.addMember(org.id, { name: '멤버', email: 'm@example.com', role: 'member' });
    expect(expectStatus(await legacy.get('/organization'), 200).body).toMatchObject({ id: org.id, object: 'organization', name: '레거시 주식회사', workspace_kind: 'personal', plan: 'business' });
    expect(expectStatus(await legacy.get('/members'), 200).body.data.map((m: any) => m.email)).toEqual(['m@example.com']);
    expect(expectStatus(await t.http.get('/api/v1/health'), 200).body.status).toBe('ok');
  });

  it('pages the same way, with query strings intact', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(expectStatus(await modern.post('/documents', { title: `p${i}`, content: 'x' }), 201).body.id);
    const p1 = expectStatus(await legacy.get('/documents?limit=2&status=draft'), 200).body;
    expect(p1.has_more).toBe(true);
    const p2 = expectStatus(await legacy.get(`/documents?limit=2&status=draft&starting_after=${p1.data[1].id}`), 200).body;
    const viaModern = expectStatus(await modern.get('/documents?limit=4&status=draft'), 200).body.data.map((d: any) => d.id);
    expect([...p1.data, ...p2.data].map((d: any) => d.id)).toEqual(viaModern);
  });

  it.each([
    ['401 missing key', () => t.http.get('/api/v1/documents'), 401, 'missing_api_key'],
    ['401 unknown key', () => t.http.get('/api/v1/documents').set(bearer(`sk_test_${'z'.repeat(30)}`)), 401, 'invalid_api_key'],
    ['400 missing_parameter', () => t.http.post('/api/v1/documents').set(bearer(org.test)).send({ content: 'x' }), 400, 'missing_parameter'],
    ['400 invalid_parameter', () => t.http.post('/api/v1/documents').set(bearer(org.test)).send({ title: 't', content: 'x', metadata: metadataOf(21) }), 400, 'invalid_parameter'],
    ['400 invalid_parameter (limit)', () => t.http.get('/api/v1/documents?limit=0').set(bearer(org.test)), 400, 'invalid_parameter'],
    ['400 invalid_parameter (mass assignment)', () => t.http.post('/api/v1/documents').set(bearer(org.test)).send({ title: 't', content: 'x', status: 'sent' }), 400, 'invalid_parameter'],
    ['400 invalid_json', () => t.http.post('/api/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').send('{nope'), 400, 'invalid_json'],
    ['404 document_not_found', () => t.http.get(`/api/v1/documents/${UNKNOWN_UUID}`).set(bearer(org.test)), 404, 'document_not_found'],
    ['404 unknown path', () => t.http.get('/api/v1/nothing_here').set(bearer(org.test)), 404, 'resource_not_found'],
    ['404 unknown version', () => t.http.get('/api/v2/documents').set(bearer(org.test)), 404, 'resource_not_found'],
  ])('errors have the same envelope: %s', async (_l, call, status, code) => {
    expectError(await (call as () => Promise<any>)(), status as number, code as string);
  });

  it('missing_phone, document_edit_locked and document_not_editable under the legacy root', async () => {
    const doc = expectStatus(await legacy.post('/documents', { title: 't', content: 'x' }), 201).body;
    expectError(await legacy.post(`/documents/${doc.id}/participants`, { name: '갑' }), 400, 'missing_phone', 'phone');
    expectError(await legacy.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '갑', auth: 'none' }, { name: '을' }] }), 400, 'missing_phone', 'participants[1].phone');
    await t.admin.setEditLock(doc.id, true);
    expectError(await legacy.patch(`/documents/${doc.id}`, { title: 'x' }), 409, 'document_edit_locked');
    await t.admin.setEditLock(doc.id, false);
    const p = expectStatus(await legacy.post(`/documents/${doc.id}/participants`, { name: '갑', phone: '01011112222' }), 201).body;
    expectStatus(await legacy.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    await sendThroughDomain(t, org.id, doc.id, [p.id]);
    expectError(await legacy.patch(`/documents/${doc.id}`, { title: 'x' }), 409, 'document_not_editable');
    expectError(await legacy.put(`/documents/${doc.id}/fields`, { fields: [] }), 409, 'document_not_editable');
    expectError(await legacy.post(`/documents/${doc.id}/participants`, { name: '을', auth: 'none' }), 409, 'document_not_editable');
    expectError(await legacy.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '을', auth: 'none' }] }), 409, 'document_not_editable');
    expectError(await legacy.del(`/documents/${doc.id}/participants/${p.id}`), 409, 'document_not_editable');
  });

  it('cross-organization and cross-mode reads are 404 there too', async () => {
    const doc = expectStatus(await legacy.post('/documents', { title: 't', content: 'x' }), 201).body;
    const other = await t.createOrg();
    expectError(await client(t, other.test, '/api/v1').get(`/documents/${doc.id}`), 404, 'document_not_found');
    expectError(await client(t, org.live, '/api/v1').get(`/documents/${doc.id}`), 404, 'document_not_found');
  });
});
