import { bearer, TestOrg, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, client, createDoc, expectError, expectStatus, REQUEST_ID_RE } from '../support/api-helpers';

describe('authentication, error envelope, request ids, health', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
  });

  describe('401 authentication_error', () => {
    const protectedCalls: Array<[string, string]> = [
      ['get', '/v1/documents'],
      ['post', '/v1/documents'],
      ['get', '/v1/documents/00000000-0000-4000-8000-000000000000'],
      ['patch', '/v1/documents/00000000-0000-4000-8000-000000000000'],
      ['delete', '/v1/documents/00000000-0000-4000-8000-000000000000'],
      ['post', '/v1/documents/00000000-0000-4000-8000-000000000000/duplicate'],
      ['put', '/v1/documents/00000000-0000-4000-8000-000000000000/fields'],
      ['post', '/v1/documents/00000000-0000-4000-8000-000000000000/participants'],
      ['post', '/v1/documents/00000000-0000-4000-8000-000000000000/participants/batch'],
      ['delete', '/v1/documents/00000000-0000-4000-8000-000000000000/participants/00000000-0000-4000-8000-000000000001'],
      ['get', '/v1/organization'],
      ['get', '/v1/members'],
      ['get', '/api/v1/documents'],
      ['get', '/api/v1/organization'],
    ];

    it.each(protectedCalls)('%s %s without a key answers 401 with the envelope', async (method, path) => {
      const res = await (t.http as any)[method](path).send({ title: 'x', content: 'y' });
      const err = expectError(res, 401, 'missing_api_key');
      expect(err.type).toBe('authentication_error');
    });

    it.each([
      ['a non-Bearer scheme', () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
      ['a bare key without Bearer', () => org.test],
      ['Bearer with nothing after it', () => 'Bearer '],
      ['a key with the wrong prefix', () => 'Bearer pk_test_abcdefghijklmnopqrstuvwxyz'],
      ['a key that is too short', () => 'Bearer sk_test_abc'],
      ['a key with illegal characters', () => `Bearer ${org.test.slice(0, -2)}!!`],
      ['two keys', () => `Bearer ${org.test} ${org.live}`],
    ])('a malformed Authorization header (%s) answers 401 invalid_api_key', async (_label, header) => {
      const res = await t.http.get('/v1/documents').set('Authorization', header());
      const err = expectError(res, 401, 'invalid_api_key');
      expect(err.type).toBe('authentication_error');
    });

    it('a well-formed but unknown key answers 401 invalid_api_key', async () => {
      const unknown = `sk_test_${'A'.repeat(32)}`;
      expectError(await t.http.get('/v1/documents').set(bearer(unknown)), 401, 'invalid_api_key');
      expectError(await t.http.get('/v1/organization').set(bearer(`sk_live_${'b'.repeat(40)}`)), 401, 'invalid_api_key');
    });

    it('a key whose mode prefix was swapped is unknown', async () => {
      const swapped = org.test.replace(/^sk_test_/, 'sk_live_');
      expectError(await t.http.get('/v1/documents').set(bearer(swapped)), 401, 'invalid_api_key');
    });

    it('a revoked key stops working at once, other keys of the organization keep working', async () => {
      const issued = await t.admin.issueKey(org.id, 'test');
      const c = client(t, issued.secret);
      const doc = await createDoc(c);
      expectStatus(await c.get(`/documents/${doc.id}`), 200);
      await t.admin.revokeKey(org.id, issued.id);
      expectError(await c.get(`/documents/${doc.id}`), 401, 'invalid_api_key');
      expectError(await c.post('/documents', { title: 't', content: 'c' }), 401, 'invalid_api_key');
      expectError(await c.get('/organization'), 401, 'invalid_api_key');
      // The same document is still there for the organization's other test key.
      expectStatus(await client(t, org.test).get(`/documents/${doc.id}`), 200);
    });

    it('a revoked live key is refused too', async () => {
      const issued = await t.admin.issueKey(org.id, 'live');
      expectStatus(await client(t, issued.secret).get('/organization'), 200);
      await t.admin.revokeKey(org.id, issued.id);
      expectError(await client(t, issued.secret).get('/organization'), 401, 'invalid_api_key');
    });

    it('the scheme name is case-insensitive', async () => {
      expectStatus(await t.http.get('/v1/organization').set('Authorization', `bearer ${org.test}`), 200);
    });
  });

  describe('malformed requests', () => {
    it('malformed JSON answers 400 with the envelope', async () => {
      const res = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').send('{"title": "x", ');
      const err = expectError(res, 400, 'invalid_json');
      expect(err.type).toBe('invalid_request_error');
    });

    it.each([
      ['PATCH', '/v1/documents/00000000-0000-4000-8000-000000000000'],
      ['PUT', '/v1/documents/00000000-0000-4000-8000-000000000000/fields'],
      ['POST', '/v1/documents/00000000-0000-4000-8000-000000000000/participants/batch'],
    ])('malformed JSON on %s %s answers 400 invalid_json', async (method, path) => {
      const res = await (t.http as any)[method.toLowerCase()](path).set(bearer(org.test)).set('Content-Type', 'application/json').send("{'single': 'quotes'}");
      expectError(res, 400, 'invalid_json');
    });

    it('a JSON scalar as the body is refused as malformed', async () => {
      const res = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').send('"just a string"');
      expectError(res, 400, 'invalid_json');
    });

    it('an unknown path answers 404 with the envelope', async () => {
      const res = await t.http.get('/v1/no_such_thing').set(bearer(org.test));
      expectError(res, 404, 'resource_not_found');
    });

    it('a document path that does not exist as a route answers 404 with the envelope', async () => {
      const res = await t.http.get('/v1/documents/00000000-0000-4000-8000-000000000000/nope').set(bearer(org.test));
      expectError(res, 404, 'resource_not_found');
    });
  });

  describe('request ids', () => {
    it('every response carries a Request-Id, and an error names the same id', async () => {
      const ok = await t.http.get('/v1/organization').set(bearer(org.test)).expect(200);
      expect(ok.headers['request-id']).toMatch(REQUEST_ID_RE);
      const e1 = await t.http.get('/v1/documents/not-a-uuid').set(bearer(org.test));
      const e2 = await t.http.get('/v1/documents/not-a-uuid').set(bearer(org.test));
      expectError(e1, 404, 'document_not_found');
      expectError(e2, 404, 'document_not_found');
      expect(e1.body.error.request_id).not.toBe(e2.body.error.request_id);
      expect(e1.body.error.request_id).not.toBe(ok.headers['request-id']);
    });

    it('401, 400 and 404 errors all carry request ids', async () => {
      const a = await t.http.get('/v1/documents');
      const b = await t.http.post('/v1/documents').set(bearer(org.test)).send({});
      const c = await t.http.get('/v1/documents/00000000-0000-4000-8000-000000000000').set(bearer(org.test));
      for (const r of [a, b, c]) expect(r.body.error.request_id).toBe(r.headers['request-id']);
      expect(new Set([a, b, c].map((r) => r.body.error.request_id)).size).toBe(3);
    });
  });

  describe('GET /v1/health', () => {
    it('needs no key and reports the stores', async () => {
      const res = await t.http.get('/v1/health').expect(200);
      expect(res.body).toMatchObject({ status: 'ok', event_store: 'sqlite', read_store: 'sqlite' });
      expect(typeof res.body.log_position).toBe('number');
      expect(typeof res.body.projections_position).toBe('number');
    });

    it('answers under the legacy root too, and with a key as well', async () => {
      const res = await t.http.get('/api/v1/health').expect(200);
      expect(res.body.status).toBe('ok');
      await t.http.get('/v1/health').set(bearer(org.test)).expect(200);
    });

    it('the projections have caught up with the log after a write', async () => {
      await createDoc(client(t, org.test));
      const res = await t.http.get('/v1/health').expect(200);
      expect(res.body.projections_position).toBeGreaterThanOrEqual(res.body.log_position);
    });
  });
});
