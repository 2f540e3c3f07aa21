import { documentStreamId } from '@dojang/domain';
import { Client, client, expectStatus } from '../support/api-helpers';
import { Built, expectApiError, sentWith } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * An auditor key (role `auditor`, issued per organization and mode) reads documents, their
 * histories and events, and nothing else: every write answers 403 insufficient_permissions,
 * whatever the route, and another organization's documents stay 404.
 */
describe('auditor API keys', () => {
  let t: TestApp;
  let full: Client;
  let auditor: Client;
  let auditorLive: Client;
  let otherOrg: Client;
  let doc: Built;
  let foreign: Built;
  let auditorKeyId: string;
  let orgId: string;

  beforeAll(async () => {
    t = await startTestApp();
    const org = await t.createOrg();
    orgId = org.id;
    full = client(t, org.test);
    const issued = await t.admin.issueKey(org.id, 'test', 'auditor');
    expect(issued).toMatchObject({ object: 'api_key', mode: 'test', role: 'auditor' });
    auditorKeyId = issued.id;
    auditor = client(t, issued.secret);
    auditorLive = client(t, (await t.admin.issueKey(org.id, 'live', 'auditor')).secret);
    otherOrg = client(t, (await t.createOrg('Other Co')).test);
    doc = await sentWith(full, [{ name: '김철수', phone: '01012345678', email: 'kim@example.com' }]);
    foreign = await sentWith(otherOrg, [{ name: '이영희', phone: '01098765432' }]);
  }, 120_000); // two sends render two PDFs: slow on a busy machine
  afterAll(() => t.close());

  it('reads the document list, the detail, the audit trail, the file, the history and the events', async () => {
    const list = expectStatus(await auditor.get('/documents'), 200).body;
    expect(list.data.map((d: { id: string }) => d.id)).toEqual([doc.id]);
    const detail = expectStatus(await auditor.get(`/documents/${doc.id}`), 200).body;
    expect(detail).toMatchObject({ id: doc.id, status: 'sent', title: doc.doc.title });
    expect(expectStatus(await auditor.get(`/documents/${doc.id}/audit`), 200).body.data.length).toBeGreaterThan(0);
    const file = expectStatus(await auditor.get(`/documents/${doc.id}/file`), 200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(expectStatus(await auditor.get(`/documents/${doc.id}/history`), 200).body.chain.verified).toBe(true);
    const events = expectStatus(await auditor.get(`/events?document_id=${doc.id}`), 200).body;
    expect(events.data.map((e: { type: string }) => e.type)).toEqual(['document.sent']);
    expectStatus(await auditor.get(`/events/${events.data[0].id}`), 200);
  });

  it('never sees a signing link: holding one would let the auditor sign', async () => {
    const own = expectStatus(await full.get(`/documents/${doc.id}`), 200).body;
    expect(own.participants[0].signing_url).toMatch(/\/sign\//);
    const seen = expectStatus(await auditor.get(`/documents/${doc.id}`), 200).body;
    expect(seen.participants[0].signing_url).toBeNull();
    expect({ ...seen, participants: seen.participants.map((p: object) => ({ ...p, signing_url: 'x' })) }).toEqual({
      ...own,
      participants: own.participants.map((p: object) => ({ ...p, signing_url: 'x' })),
    });
    const listed = expectStatus(await auditor.get('/documents'), 200).body.data[0];
    expect(listed.participants[0].signing_url).toBeNull();
  });

  it('answers every write on every route with 403 insufficient_permissions, and changes nothing', async () => {
    const before = (await t.infra.events.readStream(documentStreamId(doc.id))).length;
    // Every non-GET route the application serves (read from the router, so a route added later is
    // covered), except the signing pages and the field-placement editor's calls, which take a signing
    // token or an editor session instead of an API key (an auditor key cannot open an editor session:
    // POST …/edit_session is among the writes below), and the public verification, which takes no key
    // and writes nothing (test/verification).
    const router = (t.app.getHttpAdapter().getInstance() as any)._router;
    const writes: Array<[string, string]> = [];
    for (const layer of router.stack) {
      if (!layer.route) continue;
      const path = String(layer.route.path);
      if (!path.startsWith('/v1/') || path.startsWith('/v1/signing/') || path.startsWith('/v1/editor/') || path === '/v1/verify' || path.includes('*')) continue;
      for (const method of Object.keys(layer.route.methods)) if (method !== 'get' && method !== 'head') writes.push([method, path]);
    }
    expect(writes.length).toBeGreaterThanOrEqual(15);
    expect(writes).toEqual(expect.arrayContaining([['post', '/v1/documents'], ['post', '/v1/documents/:id/send'], ['delete', '/v1/documents/:id']]));
    const participantId = doc.p['김철수'].id;
    for (const [method, template] of writes) {
      const path = template.replace(':participantId', participantId).replace(':id', doc.id).replace(/^\/v1/, '');
      const send = { post: auditor.post, put: auditor.put, patch: auditor.patch, delete: auditor.del }[method as 'post'];
      const res = await send(path, { title: 'changed', participants: [], fields: [] });
      try {
        expectApiError(res, 403, 'insufficient_permissions', 'permission_error');
      } catch (err) {
        throw new Error(`${method.toUpperCase()} ${path}: ${(err as Error).message}`);
      }
    }
    expect((await t.infra.events.readStream(documentStreamId(doc.id))).length).toBe(before);
    expect(expectStatus(await full.get(`/documents/${doc.id}`), 200).body.status).toBe('sent');
  });

  it('is refused on the other slices even for reads: outbox (PINs, links), webhook endpoints, organization, members, templates, seals', async () => {
    for (const path of ['/outbox', '/webhook_endpoints', '/organization', '/members', '/templates', '/seals']) {
      expectApiError(await auditor.get(path), 403, 'insufficient_permissions', 'permission_error');
      expect((await full.get(path)).status).toBe(200);
    }
  });

  it("answers 404 for another organization's document, as every key does", async () => {
    for (const path of [`/documents/${foreign.id}`, `/documents/${foreign.id}/history`, `/documents/${foreign.id}/audit`, `/documents/${foreign.id}?as_of=2099-01-01T00:00:00Z`]) {
      expectApiError(await auditor.get(path), 404, 'document_not_found');
    }
    expect(expectStatus(await auditor.get(`/events?document_id=${foreign.id}`), 200).body.data).toEqual([]);
  });

  it('a live auditor key sees only live objects', async () => {
    expect(expectStatus(await auditorLive.get('/documents'), 200).body.data).toEqual([]);
    expectApiError(await auditorLive.get(`/documents/${doc.id}/history`), 404, 'document_not_found');
  });

  it('a full key keeps full access, and a revoked auditor key is refused', async () => {
    expectStatus(await full.post('/documents', { title: 'still writable', content: '<p>x</p>' }), 201);
    await t.admin.revokeKey(orgId, auditorKeyId);
    expectApiError(await auditor.get('/documents'), 401, 'invalid_api_key', 'authentication_error');
  });
});
