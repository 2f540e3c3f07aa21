import { bearer, TestOrg, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, addParticipant, Client, client, createDoc, expectError, expectStatus } from '../support/api-helpers';
import { gzipSync } from 'zlib';

/** Odd bodies and racing writers: always a 4xx with the envelope, never a 500, never a lost write. */
describe('robustness of the draft API', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg();
    c = client(t, org.test);
  });

  const raw = (path: string, body: string, method: 'post' | 'patch' = 'post') =>
    t.http[method](path).set(bearer(org.test)).set('Content-Type', 'application/json').send(body);

  describe('reserved keys are refused like any unknown property', () => {
    it.each([
      ['__proto__ at the top level', '{"title":"t","content":"c","__proto__":{"status":"sent"}}', '__proto__'],
      ['constructor at the top level', '{"title":"t","content":"c","constructor":{"name":"x"}}', 'constructor'],
      ['__proto__ as a metadata key', '{"title":"t","content":"c","metadata":{"__proto__":"x","a":"b"}}', 'metadata.__proto__'],
    ])('%s → 400 invalid_parameter', async (_l, body, param) => {
      const before = expectStatus(await c.get('/documents?limit=100'), 200).body.data.length;
      expectError(await raw('/v1/documents', body), 400, 'invalid_parameter', param);
      expect(expectStatus(await c.get('/documents?limit=100'), 200).body.data.length).toBe(before);
    });

    it('in a PATCH, a batch item and a field too', async () => {
      const doc = await createDoc(c);
      expectError(await raw(`/v1/documents/${doc.id}`, '{"metadata":{"__proto__":{"polluted":"yes"}}}', 'patch'), 400, 'invalid_parameter', 'metadata.__proto__');
      expectError(await raw(`/v1/documents/${doc.id}/participants/batch`, '{"participants":[{"name":"a","auth":"none","__proto__":{"role":"cc"}}]}'), 400, 'invalid_parameter', 'participants[0].__proto__');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body).toMatchObject({ metadata: {}, participants: [] });
    });
  });

  describe('bodies that cannot be read', () => {
    it('a corrupt gzip body → 400 with the envelope, not a 500', async () => {
      const res = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{"title":"x"}');
      expectError(res, 400, 'invalid_request_body');
    });

    it('a valid gzip body is read', async () => {
      const body = gzipSync(Buffer.from(JSON.stringify({ title: '압축', content: '<p>x</p>' })));
      const res = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').serialize((b: unknown) => b as string).send(body);
      expect(expectStatus(res, 201).body.title).toBe('압축');
    });

    it('a gzip or UTF-16 body over the element limits → 400 naming the list: counted whole once read, as its bytes on the wire are not its JSON', async () => {
      const text = `{"title":"x","content":"y","metadata":{},"fields":[${'{},'.repeat(2_000)}{}]}`;
      const gzip = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').serialize((b: unknown) => b as string).send(gzipSync(Buffer.from(text)));
      expectError(gzip, 400, 'invalid_parameter', 'fields');
      const utf16 = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json; charset=utf-16le').serialize((b: unknown) => b as string).send(Buffer.from(text, 'utf16le'));
      expectError(utf16, 400, 'invalid_parameter', 'fields');
    });

    it('an unsupported content encoding → 415 with the envelope', async () => {
      const res = await t.http.post('/v1/documents').set(bearer(org.test)).set('Content-Type', 'application/json').set('Content-Encoding', 'br-nope').send('{"title":"x"}');
      expectError(res, 415, 'unsupported_media_type');
    });

    it('a body over the size limit → 413 with the envelope', async () => {
      const res = await t.http.post('/v1/documents').set(bearer(org.test)).send({ title: 'x', content: 'y'.repeat(11 * 1024 * 1024) });
      expectError(res, 413, 'request_too_large');
    });

    it('content over 2,000,000 characters → 400 invalid_parameter', async () => {
      expectError(await c.post('/documents', { title: 'x', content: 'y'.repeat(2_000_001) }), 400, 'invalid_parameter', 'content');
    });

    it('a JSON array as the body → 400 invalid_parameter', async () => {
      expectError(await c.post('/documents', [{ title: 'x', content: 'y' }]), 400, 'invalid_parameter');
      const doc = await createDoc(c);
      expectError(await c.patch(`/documents/${doc.id}`, [{ title: 'z' }]), 400, 'invalid_parameter');
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.title).toBe(doc.title);
    });
  });

  describe('participant e-mail', () => {
    it.each(['not-an-email', 'a@b', '@example.com', 'a b@example.com'])('%s → 400 invalid_parameter (param email)', async (email) => {
      const doc = await createDoc(c);
      expectError(await c.post(`/documents/${doc.id}/participants`, { name: '갑', auth: 'none', email }), 400, 'invalid_parameter', 'email');
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '갑', auth: 'none' }, { name: '을', auth: 'none', email }] }), 400, 'invalid_parameter', 'participants[1].email');
    });

    it('a valid address is kept (trimmed), a blank one means none', async () => {
      const doc = await createDoc(c);
      expect((await addParticipant(c, doc.id, { email: '  hong@example.co.kr ' })).email).toBe('hong@example.co.kr');
      expect((await addParticipant(c, doc.id, { email: '' })).email).toBeNull();
    });
  });

  describe('racing writers', () => {
    it('concurrent participant adds are all kept', async () => {
      const doc = await createDoc(c);
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => c.post(`/documents/${doc.id}/participants`, { name: `동시 ${i}`, auth: 'none' })));
      for (const r of results) expectStatus(r, 201);
      const names = expectStatus(await c.get(`/documents/${doc.id}`), 200).body.participants.map((p: any) => p.name);
      expect(names.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `동시 ${i}`).sort());
    });

    it('concurrent metadata PATCHes merge instead of overwriting each other', async () => {
      const doc = await createDoc(c);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => c.patch(`/documents/${doc.id}`, { metadata: { [`k${i}`]: i } })));
      for (const r of results) expectStatus(r, 200);
      const metadata = expectStatus(await c.get(`/documents/${doc.id}`), 200).body.metadata;
      expect(metadata).toEqual(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, String(i)])));
    });

    it('concurrent creates are all listed, each once', async () => {
      const o = await t.createOrg();
      const cc = client(t, o.test);
      const created = await Promise.all(Array.from({ length: 15 }, (_, i) => cc.post('/documents', { title: `동시 생성 ${i}`, content: 'x' })));
      const ids = created.map((r) => expectStatus(r, 201).body.id);
      const listed = expectStatus(await cc.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id);
      expect([...listed].sort()).toEqual([...ids].sort());
      const paged: string[] = [];
      let cursor = '';
      for (;;) {
        const page = expectStatus(await cc.get(`/documents?limit=4${cursor}`), 200).body;
        paged.push(...page.data.map((d: any) => d.id));
        if (!page.has_more) break;
        cursor = `&starting_after=${page.data[page.data.length - 1].id}`;
      }
      expect(paged).toEqual(listed);
    });

    it('a concurrent trash and edit never leave an edited ghost in the list', async () => {
      const doc = await createDoc(c);
      const [del, patch] = await Promise.all([c.del(`/documents/${doc.id}`), c.patch(`/documents/${doc.id}`, { title: '경합' })]);
      expectStatus(del, 200);
      expect([200, 404]).toContain(patch.status);
      expectError(await c.get(`/documents/${doc.id}`), 404, 'document_not_found');
      expect(expectStatus(await c.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id)).not.toContain(doc.id);
    });
  });
});
