import { randomUUID } from 'crypto';
import { documentStreamId, templateStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { API_TEST_OPTIONS, addParticipant, client, Client, expectStatus, field } from '../support/api-helpers';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { bearer, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';

/**
 * Issue 10 §3.4: EventStoreDB refuses appends over 1 MiB, and the API accepts bodies of 2,000,000
 * characters. Bodies go to the blob store; events carry the blob's SHA-256 and size. Events
 * recorded before that, with the body inline, still fold, render and serve.
 */
const SMALL_EVENT_BYTES = 64 * 1024;

/**
 * A body of about 1.9 million characters, Korean included (3 bytes each in UTF-8). Most of it is
 * markup (a long attribute the renderer drops), so it stays within the per-document page budget
 * while being far over EventStoreDB's 1 MiB append limit.
 */
function bigBody(marker: string): string {
  const unit = `<p title="${'참고 '.repeat(60)}">제1조 (목적) 갑과 을은 성실히 이행한다.</p>`;
  const body = `<h1>${marker}</h1>${unit.repeat(Math.floor(1_900_000 / unit.length))}`;
  expect(body.length).toBeGreaterThan(1_850_000);
  expect(body.length).toBeLessThanOrEqual(2_000_000);
  return body;
}

/** An app from `open` with one organization and a client on its test key. */
async function withOrganization(open: () => Promise<TestApp>): Promise<{ t: TestApp; org: TestOrg; c: Client }> {
  const t = await open();
  const org = await t.createOrg();
  return { t, org, c: client(t, org.test) };
}

const serializedSize = (e: StoredEvent) => Buffer.byteLength(JSON.stringify({ type: e.type, data: e.data, metadata: e.metadata }), 'utf8');

// The same on the embedded stores and on PostgreSQL (DATABASE_URL for all three ports): the API
// writes bodies through the BlobStore port, whichever backend is behind it.
describeOnEachStore('bodies', (store) => {
  /** A test app on this backend; closing it also drops its throwaway database. */
  const open = (): Promise<TestApp> => startTestAppOn(store, { worker: false, config: API_TEST_OPTIONS.config });
  largeBodies(open);
  inlineBodies(open);
  hostileBodies(open);
});

/**
 * Issue 33's done-when bodies on this store: each refused with 400 naming its parameter at the
 * door, before any element is read into an object or anything reaches the store, and the store
 * then takes the next write. (Their time next to GET /v1/health is the hostile-bodies bench.)
 */
function hostileBodies(open: () => Promise<TestApp>) {
  describe('hostile bodies (issue 33 §9, §10)', () => {
    let t: TestApp;
    let org: TestOrg;
    let c: Client;
    beforeAll(async () => ({ t, org, c } = await withOrganization(open)));
    afterAll(() => t?.close());
    const emptyObjects = (n: number) => `[${'{},'.repeat(n - 1)}{}]`;
    const raw = (method: 'put' | 'patch', path: string, body: string) => t.http[method](path).set(bearer(org.test)).set('Content-Type', 'application/json').send(body);

    it('9 MB and 90 KB of empty `fields` objects and a 100,000-key brand → 400 naming the parameter; nothing appended; the next write goes through', async () => {
      const doc = expectStatus(await c.post('/documents', { title: '계약서', content: '<p>본문</p>' }), 201).body;
      const before = (await t.infra.events.readStream(documentStreamId(doc.id))).length;
      for (const n of [3_000_000, 30_000]) {
        const res = await raw('put', `/v1/documents/${doc.id}/fields`, `{"fields":${emptyObjects(n)}}`);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'fields' });
      }
      const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',');
      const brand = await raw('patch', '/v1/organization', `{"brand":{${keys}}}`);
      expect(brand.status).toBe(400);
      expect(brand.body.error).toMatchObject({ code: 'invalid_parameter', param: 'brand' });
      expect((await t.infra.events.readStream(documentStreamId(doc.id))).length).toBe(before);
      const p = await addParticipant(c, doc.id);
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    });
  });
}

function largeBodies(open: () => Promise<TestApp>) {
  describe('large bodies stay out of events', () => {
    let t: TestApp;
    let org: TestOrg;
    let c: Client;
    beforeAll(async () => ({ t, org, c } = await withOrganization(open)));
    afterAll(() => t?.close());

    const expectSmallEvents = async (streamId: string) => {
      const events = await t.infra.events.readStream(streamId);
      expect(events.length).toBeGreaterThan(0);
      // Named per event, so a failure says which one carried the body.
      expect(events.map((e) => [e.type, serializedSize(e) < SMALL_EVENT_BYTES])).toEqual(events.map((e) => [e.type, true]));
      return events;
    };

    it('creates, patches, lists and duplicates a ~1.9 M-character document: small events, the whole body on every read', async () => {
      const first = bigBody('first');
      const doc = expectStatus(await c.post('/documents', { title: '대용량 계약서', content: first }), 201).body;
      expect(doc.content).toBe(first);

      const second = bigBody('second');
      expect(expectStatus(await c.patch(`/documents/${doc.id}`, { content: second }), 200).body.content).toBe(second);

      const events = await expectSmallEvents(documentStreamId(doc.id));
      expect(events.map((e) => e.type)).toEqual(['DocumentCreated', 'DocumentUpdated']);
      // The events name the body by hash and size; the bytes are in the blob store.
      const ref = events[1].data.content_blob as { sha256: string; byte_size: number };
      expect(ref.byte_size).toBe(Buffer.byteLength(second, 'utf8'));
      expect((await t.infra.blobs.get(ref.sha256))?.toString('utf8')).toBe(second);
      expect(events[0].data).not.toHaveProperty('content');

      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.content).toBe(second);
      const listed = expectStatus(await c.get('/documents?limit=100'), 200).body.data.find((d: { id: string }) => d.id === doc.id);
      expect(listed.content).toBe(second);

      const copy = expectStatus(await c.post(`/documents/${doc.id}/duplicate`), 201).body;
      expect(copy.content).toBe(second);
      await expectSmallEvents(documentStreamId(copy.id));
    });

    it('creates a ~1.9 M-character template and a document from it: small events, full bodies', async () => {
      const body = `<p>{{name}}</p>${bigBody('template')}`;
      const tmpl = expectStatus(await c.post('/templates', { name: '대용량 양식', content: body }), 201).body;
      expect(tmpl.content).toBe(body);
      await expectSmallEvents(templateStreamId(tmpl.id));
      expect(expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.content).toBe(body);

      const doc = expectStatus(await c.post('/documents', { title: '양식 문서', from_template: tmpl.id, variables: { name: '김철수' } }), 201).body;
      expect(doc.content).toBe(body.replace('{{name}}', '김철수'));
      await expectSmallEvents(documentStreamId(doc.id));
    });
  });
}

function inlineBodies(open: () => Promise<TestApp>) {
  describe('bodies recorded inline before they moved to the blob store', () => {
    let t: TestApp;
    let org: TestOrg;
    let c: Client;
    beforeAll(async () => ({ t, org, c } = await withOrganization(open)));
    afterAll(() => t?.close());

    /** Appends events exactly as version 1 stored them: `content` inline, schema_version 1. */
    async function appendV1(streamId: string, events: Array<{ type: string; data: Record<string, unknown> }>) {
      const at = new Date().toISOString();
      await t.infra.events.append(
        streamId,
        events.map((e) => ({
          event_id: randomUUID(),
          type: e.type,
          data: e.data,
          metadata: { occurred_at: at, actor: 'key_legacy', organization_id: org.id, livemode: false, schema_version: 1 },
        })),
        'no_stream',
      );
      await t.infra.runner.catchUp();
    }

    it('a document stream with inline bodies folds, serves, renders, duplicates and sends', async () => {
      const id = randomUUID();
      const at = new Date().toISOString();
      await appendV1(documentStreamId(id), [
        {
          type: 'DocumentCreated',
          data: {
            document_id: id,
            organization_id: org.id,
            livemode: false,
            title: 'Legacy contract',
            content: '<p>Legacy inline body alpha</p>',
            content_format: 'html',
            file: null,
            author_name: 'Acme',
            metadata: {},
            from_template: null,
            duplicated_from: null,
            created_at: at,
          },
        },
        { type: 'DocumentUpdated', data: { content: '<p>Legacy inline body beta</p>', updated_at: at } },
      ]);

      expect(expectStatus(await c.get(`/documents/${id}`), 200).body).toMatchObject({ title: 'Legacy contract', content: '<p>Legacy inline body beta</p>' });
      const pdf = (await t.http.get(`/v1/documents/${id}/file`).set(bearer(org.test)).buffer(true).parse(binary)).body as Buffer;
      expect(pdftotext(pdf)).toContain('Legacy inline body beta');

      // A copy is a new document: its event names a blob that holds the old inline text.
      const copy = expectStatus(await c.post(`/documents/${id}/duplicate`), 201).body;
      expect(copy.content).toBe('<p>Legacy inline body beta</p>');
      const [copied] = await t.infra.events.readStream(documentStreamId(copy.id));
      const ref = copied.data.content_blob as { sha256: string; inline?: string };
      expect(ref).not.toHaveProperty('inline');
      expect((await t.infra.blobs.get(ref.sha256))?.toString('utf8')).toBe('<p>Legacy inline body beta</p>');

      // The command handler folds the old events too: the legacy draft can be sent.
      const p = await addParticipant(c, id);
      expectStatus(await c.put(`/documents/${id}/fields`, { fields: [field(p.id)] }), 200);
      expect(expectStatus(await c.post(`/documents/${id}/send`, {}), 200).body).toMatchObject({ status: 'sent', content: '<p>Legacy inline body beta</p>' });
    });

    it('a template recorded with its body inline serves it and fills documents', async () => {
      const id = `tmpl_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      await appendV1(templateStreamId(id), [
        {
          type: 'TemplateCreated',
          data: {
            template_id: id,
            organization_id: org.id,
            livemode: false,
            name: 'Legacy template',
            content: '<p>{{name}} signs the legacy template</p>',
            variables: ['name'],
            created_at: new Date().toISOString(),
          },
        },
      ]);
      expect(expectStatus(await c.get(`/templates/${id}`), 200).body.content).toBe('<p>{{name}} signs the legacy template</p>');
      const doc = expectStatus(await c.post('/documents', { title: 'From legacy', from_template: id, variables: { name: 'Kim' } }), 201).body;
      expect(doc.content).toBe('<p>Kim signs the legacy template</p>');
    });
  });
}
