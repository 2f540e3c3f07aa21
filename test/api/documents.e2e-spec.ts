import { TestOrg, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, addParticipant, Client, client, createDoc, expectError, expectStatus, field, metadataOf, sendableDraft, sendThroughDomain, UNKNOWN_UUID, UUID_RE } from '../support/api-helpers';

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe('documents: create, read, update, delete, duplicate', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg('도장 테스트 주식회사');
    c = client(t, org.test);
  });

  const listIds = async (query = '') => (expectStatus(await c.get(`/documents?limit=100${query}`), 200).body.data as Array<{ id: string }>).map((d) => d.id);

  describe('POST /v1/documents', () => {
    it('creates a draft: 201 with id, object, status, title, created_at', async () => {
      const res = expectStatus(await c.post('/documents', { title: '  근로계약서  ', content: '<p>본문</p>' }), 201);
      expect(res.body).toMatchObject({
        object: 'document',
        status: 'draft',
        title: '근로계약서',
        livemode: false,
        content: '<p>본문</p>',
        content_format: 'html',
        file: null,
        metadata: {},
        edit_locked: false,
        completed_at: null,
        sent_at: null,
        participants: [],
        fields: [],
      });
      expect(res.body.id).toMatch(UUID_RE);
      expect(res.body.created_at).toMatch(ISO_RE);
      expect(Math.abs(Date.parse(res.body.created_at) - Date.now())).toBeLessThan(60_000);
    });

    it('author_name defaults to the organization name and can be given', async () => {
      expect((await createDoc(c)).author_name).toBe('도장 테스트 주식회사');
      expect((await createDoc(c, { author_name: '  김대표 ' })).author_name).toBe('김대표');
    });

    it('accepts a text body and metadata (numbers and booleans stored as text), 20 keys at most', async () => {
      const doc = await createDoc(c, { content: '평문 계약', content_format: 'text', metadata: { order: 42, paid: true, ref: 'A-1' } });
      expect(doc.content_format).toBe('text');
      expect(doc.metadata).toEqual({ order: '42', paid: 'true', ref: 'A-1' });
      const twenty = await createDoc(c, { metadata: metadataOf(20) });
      expect(Object.keys(twenty.metadata)).toHaveLength(20);
    });

    it('a new document is visible at once to GET and to the list (read-your-writes)', async () => {
      const doc = await createDoc(c, { title: 'RYW 생성' });
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.title).toBe('RYW 생성');
      const listed = (expectStatus(await c.get('/documents?limit=100'), 200).body.data as any[]).find((d) => d.id === doc.id);
      expect(listed).toMatchObject({ id: doc.id, title: 'RYW 생성' });
    });

    describe('missing_parameter', () => {
      it.each([
        ['absent', {}],
        ['empty', { title: '' }],
        ['blank', { title: '   ' }],
      ])('title %s → 400 missing_parameter (param title)', async (_l, over) => {
        expectError(await c.post('/documents', { content: '<p>x</p>', ...over }), 400, 'missing_parameter', 'title');
      });

      it('neither content nor file_url → 400 missing_parameter', async () => {
        const err = expectError(await c.post('/documents', { title: '제목' }), 400, 'missing_parameter');
        expect(['content', 'file_url']).toContain(err.param);
      });

      it('empty content → 400 missing_parameter', async () => {
        expectError(await c.post('/documents', { title: '제목', content: '' }), 400, 'missing_parameter', 'content');
        expectError(await c.post('/documents', { title: '제목', content: '  ' }), 400, 'missing_parameter', 'content');
      });

      it('an empty body → 400 missing_parameter', async () => {
        expectError(await c.post('/documents', {}), 400, 'missing_parameter');
        expectError(await c.post('/documents'), 400, 'missing_parameter');
      });
    });

    describe('invalid_parameter', () => {
      it('21 metadata keys → 400 invalid_parameter (param metadata)', async () => {
        expectError(await c.post('/documents', { title: 't', content: 'c', metadata: metadataOf(21) }), 400, 'invalid_parameter', 'metadata.k20');
      });

      it.each([
        ['title a number', { title: 123 }, 'title'],
        ['title an object', { title: { ko: '제목' } }, 'title'],
        ['title too long', { title: 'x'.repeat(501) }, 'title'],
        ['content a number', { content: 5 }, 'content'],
        ['content an array', { content: ['<p>'] }, 'content'],
        ['author_name an object', { author_name: {} }, 'author_name'],
        ['content_format unknown', { content_format: 'markdown' }, 'content_format'],
        ['metadata a string', { metadata: 'k=v' }, 'metadata'],
        ['metadata an array', { metadata: ['a'] }, 'metadata'],
        ['metadata null', { metadata: null }, 'metadata'],
        ['a metadata value an object', { metadata: { a: { b: 1 } } }, 'metadata.a'],
        ['a metadata value an array', { metadata: { a: [1] } }, 'metadata.a'],
        ['a metadata value null on create', { metadata: { a: null } }, 'metadata.a'],
        ['a metadata key longer than 40', { metadata: { ['k'.repeat(41)]: 'v' } }, /^metadata/],
        ['a metadata value longer than 500', { metadata: { k: 'v'.repeat(501) } }, 'metadata.k'],
        ['file_url not issued by the service', { content: undefined, file_url: 'https://evil.example/x.pdf' }, 'file_url'],
        ['variables without from_template', { variables: { name: '홍길동' } }, 'variables'],
      ])('%s → 400 invalid_parameter', async (_l, over, param) => {
        const body: Record<string, unknown> = { title: '제목', content: '<p>x</p>', ...over };
        for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
        expectError(await c.post('/documents', body), 400, 'invalid_parameter', param as string | RegExp);
      });

      it('variables with content, and content_format with a template, say what to send instead', async () => {
        const vars = expectError(await c.post('/documents', { title: '제목', content: '<p>x</p>', variables: { name: '홍길동' } }), 400, 'invalid_parameter', 'variables');
        expect(vars.message).toMatch(/from_template/);
        expect(vars.message).toMatch(/POST \/v1\/templates/);
        expect(vars.message).toMatch(/leave variables out/);
        const tmpl = expectStatus(await c.post('/templates', { name: '양식', content: '<p>{{name}}</p>' }), 201).body;
        const format = expectError(await c.post('/documents', { title: '제목', from_template: tmpl.id, variables: { name: '홍' }, content_format: 'text' }), 400, 'invalid_parameter', 'content_format');
        expect(format.message).toMatch(/leave content_format out/);
      });

      it('both content and file_url → 400 invalid_parameter', async () => {
        expectError(await c.post('/documents', { title: 't', content: 'c', file_url: 'https://x.example/a.pdf' }), 400, 'invalid_parameter');
      });

      it.each([
        ['id', '11111111-1111-4111-8111-111111111111'],
        ['object', 'document'],
        ['status', 'completed'],
        ['livemode', true],
        ['created_at', '2020-01-01T00:00:00Z'],
        ['updated_at', '2020-01-01T00:00:00Z'],
        ['completed_at', '2020-01-01T00:00:00Z'],
        ['participants', [{ name: '홍길동', auth: 'none' }]],
        ['fields', []],
        ['organization_id', 'org_other'],
        ['edit_locked', true],
        ['trashed', true],
        ['deleted', true],
      ])('unknown property %s is refused (no mass assignment) and nothing is created', async (prop, value) => {
        const before = await listIds();
        const res = await c.post('/documents', { title: '대량 할당', content: '<p>x</p>', [prop]: value });
        expectError(res, 400, 'invalid_parameter', prop);
        expect(await listIds()).toEqual(before);
      });
    });
  });

  describe('null is not a value (400, never a 500)', () => {
    it.each([
      ['title', { title: null }],
      ['content', { content: null }],
      ['file_url', { content: undefined, file_url: null }],
      ['author_name', { author_name: null }],
      ['content_format', { content_format: null }],
      ['from_template', { content: undefined, from_template: null }],
      ['variables', { variables: null }],
    ])('POST /documents with %s null → 400 invalid_parameter', async (param, over) => {
      const body: Record<string, unknown> = { title: '제목', content: '<p>x</p>', ...over };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      expectError(await c.post('/documents', body), 400, 'invalid_parameter', param);
    });

    it.each([
      ['title', { title: null }],
      ['content', { content: null }],
      ['author_name', { author_name: null }],
      ['metadata', { metadata: null }],
    ])('PATCH with %s null → 400 invalid_parameter and nothing changes', async (param, body) => {
      const doc = await createDoc(c, { author_name: '작성자' });
      expectError(await c.patch(`/documents/${doc.id}`, body), 400, 'invalid_parameter', param);
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body).toMatchObject({ title: doc.title, content: doc.content, author_name: '작성자' });
    });
  });

  describe('GET /v1/documents/{id}', () => {
    it('returns the document with participants and fields', async () => {
      const { doc, participant } = await sendableDraft(c, { metadata: { a: '1' } });
      const res = expectStatus(await c.get(`/documents/${doc.id}`), 200);
      expect(res.body).toMatchObject({ id: doc.id, object: 'document', status: 'draft', title: doc.title, completed_at: null, metadata: { a: '1' } });
      expect(res.body.participants).toEqual([
        expect.objectContaining({
          id: participant.id,
          object: 'participant',
          name: '홍길동',
          phone: '01012345678',
          role: 'signer',
          auth: 'sms_pin',
          signing_order: 1,
          status: 'pending',
          signed_at: null,
          signing_url: null,
        }),
      ]);
      expect(res.body.fields).toEqual([
        expect.objectContaining({ object: 'field', participant_id: participant.id, type: 'signature', page: 1, x: 10, y: 70, width: 20, height: 8, required: true, upload_only: false }),
      ]);
      expect(res.body.fields[0].id).toMatch(UUID_RE);
    });

    it('an id in upper case names the same document', async () => {
      const doc = await createDoc(c);
      expect(expectStatus(await c.get(`/documents/${doc.id.toUpperCase()}`), 200).body.id).toBe(doc.id);
    });

    it.each([
      ['an unknown uuid', UNKNOWN_UUID],
      ['a non-uuid id', 'doc_123'],
      ['a numeric id', '12345'],
      ['a uuid with trailing junk', `${UNKNOWN_UUID}x`],
      ['a path-traversal attempt', '..%2F..%2Forganization'],
    ])('%s → 404 document_not_found', async (_l, id) => {
      expectError(await c.get(`/documents/${id}`), 404, 'document_not_found');
    });
  });

  describe('PATCH /v1/documents/{id}', () => {
    it('changes only what is given; omitted fields are kept', async () => {
      const doc = await createDoc(c, { title: '원래 제목', content: '<p>원래</p>', author_name: '원래 작성자', metadata: { a: '1', b: '2' } });
      const r1 = expectStatus(await c.patch(`/documents/${doc.id}`, { title: '새 제목' }), 200);
      expect(r1.body).toMatchObject({ id: doc.id, object: 'document', status: 'draft', title: '새 제목', content: '<p>원래</p>', author_name: '원래 작성자', metadata: { a: '1', b: '2' } });
      const r2 = expectStatus(await c.patch(`/documents/${doc.id}`, { content: '<p>새 본문</p>', author_name: '새 작성자' }), 200);
      expect(r2.body).toMatchObject({ title: '새 제목', content: '<p>새 본문</p>', author_name: '새 작성자', metadata: { a: '1', b: '2' } });
      const r3 = expectStatus(await c.patch(`/documents/${doc.id}`, {}), 200);
      expect(r3.body).toMatchObject({ title: '새 제목', content: '<p>새 본문</p>', author_name: '새 작성자', metadata: { a: '1', b: '2' } });
      expect(r3.body.created_at).toBe(doc.created_at);
      // Read-your-writes: the next GET shows the same thing.
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body).toEqual(r3.body);
    });

    it('merges metadata: new keys added, changed keys replaced, null (or "") removes a key', async () => {
      const doc = await createDoc(c, { metadata: { keep: 'k', change: 'old', drop: 'x', blank: 'y' } });
      const res = expectStatus(await c.patch(`/documents/${doc.id}`, { metadata: { change: 'new', drop: null, blank: '', add: 7 } }), 200);
      expect(res.body.metadata).toEqual({ keep: 'k', change: 'new', add: '7' });
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.metadata).toEqual({ keep: 'k', change: 'new', add: '7' });
      // Removing a key that is not there is harmless.
      expect(expectStatus(await c.patch(`/documents/${doc.id}`, { metadata: { ghost: null } }), 200).body.metadata).toEqual({ keep: 'k', change: 'new', add: '7' });
    });

    it('a merge that would exceed 20 keys → 400 invalid_parameter and nothing changes', async () => {
      const doc = await createDoc(c, { metadata: metadataOf(15) });
      expectError(await c.patch(`/documents/${doc.id}`, { title: '바뀌면 안 됨', metadata: metadataOf(6, 'n') }), 400, 'invalid_parameter', 'metadata.n5');
      const read = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
      expect(read.title).toBe(doc.title);
      expect(read.metadata).toEqual(metadataOf(15));
      // Exactly 20 after the merge is fine; replacing keys does not count twice.
      const ok = expectStatus(await c.patch(`/documents/${doc.id}`, { metadata: { ...metadataOf(5, 'n'), k0: 'changed' } }), 200);
      expect(Object.keys(ok.body.metadata)).toHaveLength(20);
      // Removing one and adding one in the same request stays at 20.
      const swap = expectStatus(await c.patch(`/documents/${doc.id}`, { metadata: { k1: null, z: 'new' } }), 200);
      expect(Object.keys(swap.body.metadata)).toHaveLength(20);
      expect(swap.body.metadata).not.toHaveProperty('k1');
    });

    it('21 metadata keys in one PATCH → 400 invalid_parameter', async () => {
      const doc = await createDoc(c);
      expectError(await c.patch(`/documents/${doc.id}`, { metadata: metadataOf(21) }), 400, 'invalid_parameter', 'metadata.k20');
    });

    it.each([
      ['title empty', { title: '' }, 'title'],
      ['title blank', { title: '   ' }, 'title'],
      ['title a number', { title: 1 }, 'title'],
      ['content a boolean', { content: true }, 'content'],
      ['author_name a number', { author_name: 3 }, 'author_name'],
      ['metadata an array', { metadata: [] }, 'metadata'],
      ['a metadata value an object', { metadata: { a: {} } }, 'metadata.a'],
    ])('%s → 400 invalid_parameter', async (_l, body, param) => {
      const doc = await createDoc(c);
      expectError(await c.patch(`/documents/${doc.id}`, body), 400, 'invalid_parameter', param);
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.title).toBe(doc.title);
    });

    it.each([
      ['id', UNKNOWN_UUID],
      ['status', 'sent'],
      ['livemode', true],
      ['created_at', '2020-01-01T00:00:00Z'],
      ['participants', []],
      ['fields', []],
      ['edit_locked', false],
      ['content_format', 'text'],
      ['file_url', 'https://x.example/a.pdf'],
      ['organization_id', 'org_x'],
    ])('PATCH with %s is refused (no mass assignment) and nothing changes', async (prop, value) => {
      const doc = await createDoc(c);
      expectError(await c.patch(`/documents/${doc.id}`, { title: '바뀌면 안 됨', [prop]: value }), 400, 'invalid_parameter', prop);
      const read = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
      expect(read).toMatchObject({ id: doc.id, title: doc.title, status: 'draft', livemode: false, created_at: doc.created_at });
    });

    it('unknown, non-uuid and trashed documents → 404 document_not_found', async () => {
      expectError(await c.patch(`/documents/${UNKNOWN_UUID}`, { title: 'x' }), 404, 'document_not_found');
      expectError(await c.patch('/documents/nope', { title: 'x' }), 404, 'document_not_found');
      const doc = await createDoc(c);
      expectStatus(await c.del(`/documents/${doc.id}`), 200);
      expectError(await c.patch(`/documents/${doc.id}`, { title: 'x' }), 404, 'document_not_found');
    });

    it('an edit-locked draft refuses PATCH with 409 document_edit_locked until unlocked', async () => {
      const doc = await createDoc(c, { title: '잠금 전' });
      await t.admin.setEditLock(doc.id, true);
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.edit_locked).toBe(true);
      const err = expectError(await c.patch(`/documents/${doc.id}`, { title: '잠금 중' }), 409, 'document_edit_locked');
      expect(err.type).toBe('invalid_request_error');
      expectError(await c.patch(`/documents/${doc.id}`, { metadata: { a: '1' } }), 409, 'document_edit_locked');
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body).toMatchObject({ title: '잠금 전', metadata: {} });
      await t.admin.setEditLock(doc.id, false);
      expect(expectStatus(await c.patch(`/documents/${doc.id}`, { title: '잠금 후' }), 200).body).toMatchObject({ title: '잠금 후', edit_locked: false });
    });

    it('a locked document can still be read, listed and duplicated (the copy is not locked)', async () => {
      const doc = await createDoc(c);
      await t.admin.setEditLock(doc.id, true);
      expectStatus(await c.get(`/documents/${doc.id}`), 200);
      expect(await listIds()).toContain(doc.id);
      const copy = expectStatus(await c.post(`/documents/${doc.id}/duplicate`), 201).body;
      expect(copy.edit_locked).toBe(false);
      expectStatus(await c.patch(`/documents/${copy.id}`, { title: '복사본 수정' }), 200);
    });
  });

  describe('DELETE /v1/documents/{id}', () => {
    it('answers {id, object, deleted: true}; the document leaves GET and the lists at once', async () => {
      const doc = await createDoc(c);
      const res = expectStatus(await c.del(`/documents/${doc.id}`), 200);
      expect(res.body).toEqual({ id: doc.id, object: 'document', deleted: true });
      expectError(await c.get(`/documents/${doc.id}`), 404, 'document_not_found');
      expect(await listIds()).not.toContain(doc.id);
      expect(await listIds('&status=draft')).not.toContain(doc.id);
    });

    it('an upper-case id is answered with the canonical id', async () => {
      const doc = await createDoc(c);
      expect(expectStatus(await c.del(`/documents/${doc.id.toUpperCase()}`), 200).body).toEqual({ id: doc.id, object: 'document', deleted: true });
    });

    it('a trashed document is gone for every operation', async () => {
      const { doc, participant } = await sendableDraft(c);
      expectStatus(await c.del(`/documents/${doc.id}`), 200);
      expectError(await c.del(`/documents/${doc.id}`), 404, 'document_not_found');
      expectError(await c.post(`/documents/${doc.id}/duplicate`), 404, 'document_not_found');
      expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [] }), 404, 'document_not_found');
      expectError(await c.post(`/documents/${doc.id}/participants`, { name: 'x', auth: 'none' }), 404, 'document_not_found');
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: 'x', auth: 'none' }] }), 404, 'document_not_found');
      expectError(await c.del(`/documents/${doc.id}/participants/${participant.id}`), 404, 'document_not_found');
    });

    it('unknown and non-uuid ids → 404 document_not_found', async () => {
      expectError(await c.del(`/documents/${UNKNOWN_UUID}`), 404, 'document_not_found');
      expectError(await c.del('/documents/not-a-uuid'), 404, 'document_not_found');
    });

    it('a sent document can be moved to the trash too', async () => {
      const { doc, participant } = await sendableDraft(c);
      await sendThroughDomain(t, org.id, doc.id, [participant.id]);
      expect(expectStatus(await c.del(`/documents/${doc.id}`), 200).body).toEqual({ id: doc.id, object: 'document', deleted: true });
      expectError(await c.get(`/documents/${doc.id}`), 404, 'document_not_found');
    });
  });

  describe('POST /v1/documents/{id}/duplicate', () => {
    async function richDraft() {
      const doc = await createDoc(c, { title: '원본 계약', content: '<p>원본 본문</p>', author_name: '작성자', metadata: { ref: 'R-1' } });
      const a = await addParticipant(c, doc.id, { name: '갑', phone: '010-1111-2222', email: 'a@example.com', signing_order: 1 });
      const b = await addParticipant(c, doc.id, { name: '을', auth: 'none', phone: undefined, role: 'reviewer', signing_order: 2 });
      const cc = await addParticipant(c, doc.id, { name: '참조', auth: 'none', phone: undefined, role: 'cc', email: 'cc@example.com' });
      const fields = [
        field(a.id, { x: 10, y: 80 }),
        field(a.id, { type: 'seal', x: 40, y: 80, upload_only: true, required: false }),
        field(b.id, { x: 60, y: 10 }),
      ];
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields }), 200);
      const source = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
      return { source, a, b, cc };
    }

    function setup(doc: any) {
      const index = new Map<string, number>(doc.participants.map((p: any, i: number) => [p.id, i]));
      return {
        participants: doc.participants.map((p: any) => ({ name: p.name, phone: p.phone, email: p.email, role: p.role, signing_order: p.signing_order, auth: p.auth })),
        fields: doc.fields.map((f: any) => ({
          participant: index.get(f.participant_id),
          type: f.type,
          page: f.page,
          x: f.x,
          y: f.y,
          width: f.width,
          height: f.height,
          required: f.required,
          upload_only: f.upload_only,
        })),
      };
    }

    it('copies body, metadata, participants and fields under new ids; the copy is a draft', async () => {
      const { source } = await richDraft();
      const res = expectStatus(await c.post(`/documents/${source.id}/duplicate`), 201);
      const copy = res.body;
      expect(copy).toMatchObject({
        object: 'document',
        status: 'draft',
        title: '원본 계약',
        content: '<p>원본 본문</p>',
        content_format: 'html',
        author_name: '작성자',
        metadata: { ref: 'R-1' },
        livemode: false,
        sent_at: null,
        completed_at: null,
      });
      expect(copy.id).toMatch(UUID_RE);
      expect(copy.id).not.toBe(source.id);
      expect(setup(copy)).toEqual(setup(source));
      const oldPids = new Set(source.participants.map((p: any) => p.id));
      for (const p of copy.participants) {
        expect(p.id).toMatch(UUID_RE);
        expect(oldPids.has(p.id)).toBe(false);
        expect(p).toMatchObject({ status: 'pending', signed_at: null, viewed_at: null, signing_url: null });
      }
      const newPids = new Set(copy.participants.map((p: any) => p.id));
      const oldFieldIds = new Set(source.fields.map((f: any) => f.id));
      for (const f of copy.fields) {
        expect(newPids.has(f.participant_id)).toBe(true);
        expect(oldFieldIds.has(f.id)).toBe(false);
      }
      // The source is untouched, and both are listed (read-your-writes).
      expect(expectStatus(await c.get(`/documents/${source.id}`), 200).body).toEqual(source);
      expect(expectStatus(await c.get(`/documents/${copy.id}`), 200).body).toEqual(copy);
      const ids = await listIds();
      expect(ids).toContain(copy.id);
      expect(ids.indexOf(copy.id)).toBeLessThan(ids.indexOf(source.id));
    });

    it('the copy is independent: editing it leaves the source alone', async () => {
      const { source } = await richDraft();
      const copy = expectStatus(await c.post(`/documents/${source.id}/duplicate`), 201).body;
      expectStatus(await c.patch(`/documents/${copy.id}`, { title: '사본', metadata: { ref: null } }), 200);
      expectStatus(await c.del(`/documents/${copy.id}/participants/${copy.participants[0].id}`), 200);
      const after = expectStatus(await c.get(`/documents/${source.id}`), 200).body;
      expect(after).toEqual(source);
      const copyAfter = expectStatus(await c.get(`/documents/${copy.id}`), 200).body;
      expect(copyAfter.participants).toHaveLength(2);
      // The removed participant's fields went with it.
      expect(copyAfter.fields.every((f: any) => f.participant_id !== copy.participants[0].id)).toBe(true);
    });

    it('a sent document duplicates into a fresh draft without signing records', async () => {
      const { source, a, b } = await richDraft();
      await sendThroughDomain(t, org.id, source.id, [a.id, b.id], { pageCount: 2 });
      const sent = expectStatus(await c.get(`/documents/${source.id}`), 200).body;
      expect(sent.status).toBe('sent');
      expect(sent.participants.find((p: any) => p.id === a.id).signing_url).toMatch(/\/sign\//);
      const copy = expectStatus(await c.post(`/documents/${source.id}/duplicate`), 201).body;
      expect(copy).toMatchObject({ status: 'draft', sent_at: null, expires_at: null, completed_at: null });
      expect(setup(copy)).toEqual(setup(sent));
      for (const p of copy.participants) expect(p).toMatchObject({ status: 'pending', signing_url: null, viewed_at: null, signed_at: null });
      // And the copy can be edited although the source cannot.
      expectStatus(await c.patch(`/documents/${copy.id}`, { title: '재발송용' }), 200);
      expectError(await c.patch(`/documents/${source.id}`, { title: 'x' }), 409, 'document_not_editable');
    });

    it('a document without participants duplicates with none', async () => {
      const doc = await createDoc(c, { content: '단순', content_format: 'text' });
      const copy = expectStatus(await c.post(`/documents/${doc.id}/duplicate`), 201).body;
      expect(copy).toMatchObject({ status: 'draft', content: '단순', content_format: 'text', participants: [], fields: [] });
    });

    it('a missing source → 404 document_not_found', async () => {
      expectError(await c.post(`/documents/${UNKNOWN_UUID}/duplicate`), 404, 'document_not_found');
      expectError(await c.post('/documents/abc/duplicate'), 404, 'document_not_found');
    });
  });

  describe('read-your-writes across a sequence of writes', () => {
    it('every 2xx write is visible to the very next GET and list', async () => {
      const doc = await createDoc(c, { title: 'RYW' });
      const seen = async () => {
        const one = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
        const listed = (expectStatus(await c.get('/documents?limit=100'), 200).body.data as any[]).find((d) => d.id === doc.id);
        expect(listed).toEqual(one);
        return one;
      };
      for (let i = 0; i < 5; i++) {
        expectStatus(await c.patch(`/documents/${doc.id}`, { title: `RYW ${i}`, metadata: { i } }), 200);
        expect(await seen()).toMatchObject({ title: `RYW ${i}`, metadata: { i: String(i) } });
      }
      const p = await addParticipant(c, doc.id, { name: '즉시' });
      expect((await seen()).participants.map((x: any) => x.id)).toEqual([p.id]);
      const batch = expectStatus(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '둘', auth: 'none' }, { name: '셋', auth: 'none' }] }), 201).body;
      expect((await seen()).participants).toHaveLength(3);
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id), field(batch.data[0].id, { y: 10 })] }), 200);
      expect((await seen()).fields).toHaveLength(2);
      expectStatus(await c.del(`/documents/${doc.id}/participants/${p.id}`), 200);
      const after = await seen();
      expect(after.participants.map((x: any) => x.name)).toEqual(['둘', '셋']);
      expect(after.fields).toHaveLength(1);
      expectStatus(await c.del(`/documents/${doc.id}`), 200);
      expectError(await c.get(`/documents/${doc.id}`), 404, 'document_not_found');
      expect(await listIds()).not.toContain(doc.id);
    });
  });
});
