import { TestOrg, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, addParticipant, Client, client, createDoc, expectError, expectStatus, field, UNKNOWN_UUID, UUID_RE } from '../support/api-helpers';

describe('participants and fields of a draft', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg();
    c = client(t, org.test);
  });

  const read = async (id: string) => expectStatus(await c.get(`/documents/${id}`), 200).body;

  describe('POST /v1/documents/{id}/participants', () => {
    it('adds a participant with defaults: role signer, auth sms_pin, signing_order 1', async () => {
      const doc = await createDoc(c);
      const res = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: ' 홍길동 ', phone: '010-1234-5678', email: ' hong@example.com ' }), 201);
      expect(res.body).toMatchObject({
        object: 'participant',
        name: '홍길동',
        phone: '01012345678',
        email: 'hong@example.com',
        role: 'signer',
        auth: 'sms_pin',
        signing_order: 1,
        status: 'pending',
        signed_at: null,
        signing_url: null,
      });
      expect(res.body.id).toMatch(UUID_RE);
      expect((await read(doc.id)).participants).toEqual([res.body]);
    });

    it('accepts every role, auth none without a phone, and an explicit signing_order', async () => {
      const doc = await createDoc(c);
      const r = await addParticipant(c, doc.id, { name: '검토자', role: 'reviewer', auth: 'none', phone: undefined, signing_order: 2 });
      const cc = await addParticipant(c, doc.id, { name: '참조인', role: 'cc', auth: 'none', phone: undefined, email: 'cc@example.com', signing_order: 3 });
      const s = await addParticipant(c, doc.id, { name: '서명자', role: 'signer', auth: 'sms_pin', phone: '01099998888' });
      expect(r).toMatchObject({ role: 'reviewer', auth: 'none', phone: null, signing_order: 2 });
      expect(cc).toMatchObject({ role: 'cc', auth: 'none', email: 'cc@example.com', signing_order: 3 });
      expect(s).toMatchObject({ role: 'signer', auth: 'sms_pin', phone: '01099998888' });
      expect((await read(doc.id)).participants.map((p: any) => p.id)).toEqual([r.id, cc.id, s.id]);
    });

    it.each([
      ['no phone with the default auth', {}],
      ['no phone with auth sms_pin', { auth: 'sms_pin' }],
      ['an empty phone', { phone: '' }],
    ])('%s → 400 missing_phone (param phone), nothing added', async (_l, over) => {
      const doc = await createDoc(c);
      expectError(await c.post(`/documents/${doc.id}/participants`, { name: '홍길동', ...over }), 400, 'missing_phone', 'phone');
      expect((await read(doc.id)).participants).toEqual([]);
    });

    it.each([
      ['name absent', {}, 'missing_parameter', 'name'],
      ['name empty', { name: '' }, 'missing_parameter', 'name'],
      ['name blank', { name: '   ' }, 'missing_parameter', 'name'],
      ['name a number', { name: 7 }, 'invalid_parameter', 'name'],
      ['name null', { name: null }, 'missing_parameter', 'name'],
      ['phone with letters', { phone: '010-abcd-5678' }, 'phone_invalid', 'phone'],
      ['phone with a scheme', { phone: 'tel:010-1234-5678' }, 'phone_invalid', 'phone'],
      ['phone no country has', { phone: '+999 1234 5678' }, 'phone_invalid', 'phone'],
      ['phone too short', { phone: '12345' }, 'phone_invalid', 'phone'],
      ['phone of dashes only', { phone: '---' }, 'phone_invalid', 'phone'],
      ['phone a number', { phone: 1012345678 }, 'invalid_parameter', 'phone'],
      ['phone null', { phone: null }, 'invalid_parameter', 'phone'],
      ['email a number', { email: 5 }, 'invalid_parameter', 'email'],
      ['role unknown', { role: 'owner' }, 'invalid_parameter', 'role'],
      ['role null', { role: null }, 'invalid_parameter', 'role'],
      ['auth unknown', { auth: 'password' }, 'invalid_parameter', 'auth'],
      ['signing_order 0', { signing_order: 0 }, 'invalid_parameter', 'signing_order'],
      ['signing_order fractional', { signing_order: 1.5 }, 'invalid_parameter', 'signing_order'],
      ['signing_order a string', { signing_order: '1' }, 'invalid_parameter', 'signing_order'],
      ['signing_order null', { signing_order: null }, 'invalid_parameter', 'signing_order'],
      ['unknown property id', { id: UNKNOWN_UUID }, 'invalid_parameter', 'id'],
      ['unknown property status', { status: 'signed' }, 'invalid_parameter', 'status'],
      ['unknown property signed_at', { signed_at: '2026-01-01T00:00:00Z' }, 'invalid_parameter', 'signed_at'],
      ['unknown property signing_url', { signing_url: 'http://x/sign/abc' }, 'invalid_parameter', 'signing_url'],
      ['unknown property token_hash', { token_hash: 'abc' }, 'invalid_parameter', 'token_hash'],
    ])('%s → 400 %s, nothing added', async (_l, over, code, param) => {
      const doc = await createDoc(c);
      const body: Record<string, unknown> = { name: '홍길동', phone: '01012345678', ...over };
      if ('name' in over && over.name === undefined) delete body.name;
      if (!('name' in over) && Object.keys(over).length === 0) delete body.name;
      expectError(await c.post(`/documents/${doc.id}/participants`, body), 400, code, param);
      expect((await read(doc.id)).participants).toEqual([]);
    });

    it('unknown and non-uuid documents → 404 document_not_found', async () => {
      expectError(await c.post(`/documents/${UNKNOWN_UUID}/participants`, { name: 'x', auth: 'none' }), 404, 'document_not_found');
      expectError(await c.post('/documents/xyz/participants', { name: 'x', auth: 'none' }), 404, 'document_not_found');
    });
  });

  describe('POST /v1/documents/{id}/participants/batch', () => {
    it('adds all in order and answers a list of the created participants', async () => {
      const doc = await createDoc(c);
      const res = expectStatus(
        await c.post(`/documents/${doc.id}/participants/batch`, {
          participants: [
            { name: '갑', phone: '01011112222', signing_order: 1 },
            { name: '을', auth: 'none', signing_order: 2, role: 'reviewer' },
            { name: '병', auth: 'none', role: 'cc', email: 'c@example.com' },
          ],
        }),
        201,
      );
      expect(res.body.object).toBe('list');
      expect(res.body.data.map((p: any) => [p.name, p.signing_order, p.role])).toEqual([
        ['갑', 1, 'signer'],
        ['을', 2, 'reviewer'],
        ['병', 1, 'cc'],
      ]);
      for (const p of res.body.data) expect(p.id).toMatch(UUID_RE);
      expect(new Set(res.body.data.map((p: any) => p.id)).size).toBe(3);
      expect((await read(doc.id)).participants).toEqual(res.body.data);
    });

    it('adds to the participants already there', async () => {
      const doc = await createDoc(c);
      const first = await addParticipant(c, doc.id);
      const res = expectStatus(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '추가', auth: 'none' }] }), 201);
      expect(res.body.data).toHaveLength(1);
      expect((await read(doc.id)).participants.map((p: any) => p.id)).toEqual([first.id, res.body.data[0].id]);
    });

    it('accepts 50 participants', async () => {
      const doc = await createDoc(c);
      const participants = Array.from({ length: 50 }, (_, i) => ({ name: `참가자 ${i}`, phone: `0101234${String(i).padStart(4, '0')}` }));
      const res = expectStatus(await c.post(`/documents/${doc.id}/participants/batch`, { participants }), 201);
      expect(res.body.data.map((p: any) => p.name)).toEqual(participants.map((p) => p.name));
      expect((await read(doc.id)).participants).toHaveLength(50);
    });

    it('refuses 51 participants with 400 invalid_parameter and adds nobody', async () => {
      const doc = await createDoc(c);
      const participants = Array.from({ length: 51 }, (_, i) => ({ name: `참가자 ${i}`, auth: 'none' }));
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants }), 400, 'invalid_parameter', 'participants');
      expect((await read(doc.id)).participants).toEqual([]);
    });

    it('an item without a phone → 400 missing_phone naming its index; the batch adds nobody', async () => {
      const doc = await createDoc(c);
      const res = await c.post(`/documents/${doc.id}/participants/batch`, {
        participants: [{ name: '갑', phone: '01011112222' }, { name: '을', auth: 'none' }, { name: '병' }],
      });
      expectError(res, 400, 'missing_phone', 'participants[2].phone');
      expect((await read(doc.id)).participants).toEqual([]);
    });

    it('a batch of one item without a phone still names the index', async () => {
      const doc = await createDoc(c);
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '갑' }] }), 400, 'missing_phone', 'participants[0].phone');
    });

    it.each([
      ['participants absent', {}, 'missing_parameter', 'participants'],
      ['participants empty', { participants: [] }, 'missing_parameter', 'participants'],
      ['participants an object', { participants: { name: '갑' } }, 'invalid_parameter', 'participants'],
      ['participants null', { participants: null }, 'missing_parameter', 'participants'],
      ['an item without a name', { participants: [{ name: '갑', auth: 'none' }, { phone: '01011112222' }] }, 'missing_parameter', 'participants[1].name'],
      ['an item with an invalid phone', { participants: [{ name: '갑', phone: 'abc' }] }, 'phone_invalid', 'participants[0].phone'],
      ['an item with a bad role', { participants: [{ name: '갑', auth: 'none' }, { name: '을', auth: 'none', role: 'boss' }] }, 'invalid_parameter', 'participants[1].role'],
      ['an item with an unknown property', { participants: [{ name: '갑', auth: 'none', status: 'signed' }] }, 'invalid_parameter', 'participants[0].status'],
      ['an item that is not an object', { participants: ['갑'] }, 'invalid_parameter', /^participants/],
      ['an unknown top-level property', { participants: [{ name: '갑', auth: 'none' }], document_id: UNKNOWN_UUID }, 'invalid_parameter', 'document_id'],
    ])('%s → 400 %s', async (_l, body, code, param) => {
      const doc = await createDoc(c);
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, body), 400, code, param as string | RegExp);
      expect((await read(doc.id)).participants).toEqual([]);
    });

    it('unknown document → 404 document_not_found', async () => {
      expectError(await c.post(`/documents/${UNKNOWN_UUID}/participants/batch`, { participants: [{ name: 'x', auth: 'none' }] }), 404, 'document_not_found');
    });
  });

  describe('DELETE /v1/documents/{id}/participants/{participant_id}', () => {
    it('removes the participant and its fields; others stay', async () => {
      const doc = await createDoc(c);
      const a = await addParticipant(c, doc.id, { name: '갑' });
      const b = await addParticipant(c, doc.id, { name: '을', phone: '01022223333' });
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(a.id), field(b.id, { x: 50 }), field(a.id, { y: 10 })] }), 200);
      const res = expectStatus(await c.del(`/documents/${doc.id}/participants/${a.id}`), 200);
      expect(res.body).toEqual({ id: a.id, object: 'participant', deleted: true });
      const after = await read(doc.id);
      expect(after.participants.map((p: any) => p.id)).toEqual([b.id]);
      expect(after.fields.map((f: any) => f.participant_id)).toEqual([b.id]);
    });

    it('accepts the participant id in upper case', async () => {
      const doc = await createDoc(c);
      const a = await addParticipant(c, doc.id);
      expect(expectStatus(await c.del(`/documents/${doc.id}/participants/${a.id.toUpperCase()}`), 200).body).toEqual({ id: a.id, object: 'participant', deleted: true });
      expect((await read(doc.id)).participants).toEqual([]);
    });

    it('an unknown, already removed, or other document\'s participant → 404 participant_not_found', async () => {
      const doc = await createDoc(c);
      const other = await createDoc(c);
      const a = await addParticipant(c, doc.id);
      const foreign = await addParticipant(c, other.id);
      expectError(await c.del(`/documents/${doc.id}/participants/${UNKNOWN_UUID}`), 404, 'participant_not_found');
      expectError(await c.del(`/documents/${doc.id}/participants/not-a-uuid`), 404, 'participant_not_found');
      expectError(await c.del(`/documents/${doc.id}/participants/${foreign.id}`), 404, 'participant_not_found');
      expectStatus(await c.del(`/documents/${doc.id}/participants/${a.id}`), 200);
      expectError(await c.del(`/documents/${doc.id}/participants/${a.id}`), 404, 'participant_not_found');
      expect((await read(other.id)).participants.map((p: any) => p.id)).toEqual([foreign.id]);
    });

    it('an unknown document → 404 document_not_found', async () => {
      expectError(await c.del(`/documents/${UNKNOWN_UUID}/participants/${UNKNOWN_UUID}`), 404, 'document_not_found');
      expectError(await c.del(`/documents/nope/participants/${UNKNOWN_UUID}`), 404, 'document_not_found');
    });
  });

  describe('PUT /v1/documents/{id}/fields', () => {
    it('replaces the whole set each time; defaults required true, upload_only false', async () => {
      const doc = await createDoc(c);
      const a = await addParticipant(c, doc.id, { name: '갑' });
      const b = await addParticipant(c, doc.id, { name: '을', auth: 'none', phone: undefined, role: 'reviewer' });
      const r1 = expectStatus(
        await c.put(`/documents/${doc.id}/fields`, {
          fields: [field(a.id), field(a.id, { type: 'seal', upload_only: true, required: false, x: 60, y: 60, width: 15, height: 15 }), field(b.id, { page: 1, x: 0, y: 0, width: 100, height: 50 })],
        }),
        200,
      );
      expect(r1.body.object).toBe('list');
      expect(r1.body.data).toHaveLength(3);
      expect(r1.body.data[0]).toMatchObject({ object: 'field', participant_id: a.id, type: 'signature', page: 1, x: 10, y: 70, width: 20, height: 8, required: true, upload_only: false });
      expect(r1.body.data[1]).toMatchObject({ type: 'seal', upload_only: true, required: false });
      expect(r1.body.data[2]).toMatchObject({ participant_id: b.id, page: 1, x: 0, y: 0, width: 100, height: 50 });
      for (const f of r1.body.data) expect(f.id).toMatch(UUID_RE);
      expect((await read(doc.id)).fields).toEqual(r1.body.data);

      const r2 = expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(b.id, { x: 33.5, y: 12.25 })] }), 200);
      expect(r2.body.data).toHaveLength(1);
      expect(r2.body.data[0]).toMatchObject({ participant_id: b.id, x: 33.5, y: 12.25 });
      expect((await read(doc.id)).fields).toEqual(r2.body.data);

      const r3 = expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [] }), 200);
      expect(r3.body.data).toEqual([]);
      expect((await read(doc.id)).fields).toEqual([]);
    });

    it('accepts the participant id in upper case', async () => {
      const doc = await createDoc(c);
      const a = await addParticipant(c, doc.id);
      const res = expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(a.id.toUpperCase())] }), 200);
      expect(res.body.data[0].participant_id).toBe(a.id);
    });

    describe('rules: 400 invalid_parameter naming the field, and the previous set is kept', () => {
      let doc: any;
      let a: any;
      let previous: any[];
      beforeAll(async () => {
        doc = await createDoc(c);
        a = await addParticipant(c, doc.id);
        previous = expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(a.id)] }), 200).body.data;
      });

      const cases: Array<[string, (pid: string) => unknown[], string, string | RegExp]> = [
        ['an unknown participant', () => [field(UNKNOWN_UUID)], 'invalid_parameter', 'fields[0].participant_id'],
        ['a participant id that is not a uuid', () => [field('par_123')], 'invalid_parameter', 'fields[0].participant_id'],
        ['page 0', (p) => [field(p, { page: 0 })], 'invalid_parameter', 'fields[0].page'],
        ['a negative page', (p) => [field(p, { page: -1 })], 'invalid_parameter', 'fields[0].page'],
        ['a fractional page', (p) => [field(p, { page: 1.5 })], 'invalid_parameter', 'fields[0].page'],
        ['a page given as text', (p) => [field(p, { page: '1' })], 'invalid_parameter', 'fields[0].page'],
        ['x below 0', (p) => [field(p, { x: -0.1 })], 'invalid_parameter', 'fields[0].x'],
        ['x above 100', (p) => [field(p, { x: 100.5 })], 'invalid_parameter', 'fields[0].x'],
        ['y above 100', (p) => [field(p, { y: 101 })], 'invalid_parameter', 'fields[0].y'],
        ['width above 100', (p) => [field(p, { x: 0, width: 150 })], 'invalid_parameter', 'fields[0].width'],
        ['negative height', (p) => [field(p, { height: -5 })], 'invalid_parameter', 'fields[0].height'],
        ['coordinates as 0–1 fractions would be tiny but valid; text is not', (p) => [field(p, { x: '10' })], 'invalid_parameter', 'fields[0].x'],
        ['zero width', (p) => [field(p, { width: 0 })], 'invalid_parameter', /^fields\[0\]/],
        ['a field past the right edge', (p) => [field(p, { x: 90, width: 20 })], 'invalid_parameter', /^fields\[0\]/],
        ['a field past the bottom edge', (p) => [field(p, { y: 95, height: 10 })], 'invalid_parameter', /^fields\[0\]/],
        ['upload_only on a signature field', (p) => [field(p, { type: 'signature', upload_only: true })], 'invalid_parameter', 'fields[0].upload_only'],
        ['an unknown type', (p) => [field(p, { type: 'stamp' })], 'invalid_parameter', 'fields[0].type'],
        ['required not a boolean', (p) => [field(p, { required: 'yes' })], 'invalid_parameter', 'fields[0].required'],
        ['required null', (p) => [field(p, { required: null })], 'invalid_parameter', 'fields[0].required'],
        ['an unknown property', (p) => [field(p, { id: UNKNOWN_UUID })], 'invalid_parameter', 'fields[0].id'],
        ['the third field bad', (p) => [field(p), field(p, { y: 10 }), field(p, { x: 200 })], 'invalid_parameter', 'fields[2].x'],
        ['a missing type', (p) => [{ participant_id: p, page: 1, x: 1, y: 1, width: 1, height: 1 }], 'missing_parameter', 'fields[0].type'],
        ['a missing participant_id', () => [{ type: 'signature', page: 1, x: 1, y: 1, width: 1, height: 1 }], 'missing_parameter', 'fields[0].participant_id'],
        ['a missing coordinate', (p) => [{ participant_id: p, type: 'seal', page: 1, x: 1, y: 1, width: 1 }], 'missing_parameter', 'fields[0].height'],
      ];

      it.each(cases)('%s', async (_l, build, code, param) => {
        expectError(await c.put(`/documents/${doc.id}/fields`, { fields: build(a.id) }), 400, code, param);
        expect((await read(doc.id)).fields).toEqual(previous);
      });

      it.each([
        ['fields absent', {}, 'missing_parameter', 'fields'],
        ['fields null', { fields: null }, 'missing_parameter', 'fields'],
        ['fields an object', { fields: { participant_id: UNKNOWN_UUID } }, 'invalid_parameter', 'fields'],
        ['more than 500 fields', { fields: Array.from({ length: 501 }, () => ({ participant_id: UNKNOWN_UUID, type: 'signature', page: 1, x: 1, y: 1, width: 1, height: 1 })) }, 'invalid_parameter', 'fields'],
        ['an unknown top-level property', { fields: [], replace: true }, 'invalid_parameter', 'replace'],
      ])('%s → 400 %s', async (_l, body, code, param) => {
        expectError(await c.put(`/documents/${doc.id}/fields`, body), 400, code, param);
        expect((await read(doc.id)).fields).toEqual(previous);
      });
    });

    it('a field of a participant of another document is refused', async () => {
      const doc = await createDoc(c);
      const other = await createDoc(c);
      const foreign = await addParticipant(c, other.id);
      expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [field(foreign.id)] }), 400, 'invalid_parameter', 'fields[0].participant_id');
    });

    it('a removed participant can no longer be given fields', async () => {
      const doc = await createDoc(c);
      const a = await addParticipant(c, doc.id);
      expectStatus(await c.del(`/documents/${doc.id}/participants/${a.id}`), 200);
      expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [field(a.id)] }), 400, 'invalid_parameter', 'fields[0].participant_id');
    });

    it('unknown document → 404 document_not_found', async () => {
      expectError(await c.put(`/documents/${UNKNOWN_UUID}/fields`, { fields: [] }), 404, 'document_not_found');
      expectError(await c.put('/documents/123/fields', { fields: [] }), 404, 'document_not_found');
    });
  });

  describe('edit lock', () => {
    it('a locked draft refuses participant and field changes with 409 document_edit_locked', async () => {
      const doc = await createDoc(c);
      const a = await addParticipant(c, doc.id);
      await t.admin.setEditLock(doc.id, true);
      expectError(await c.post(`/documents/${doc.id}/participants`, { name: '잠금', auth: 'none' }), 409, 'document_edit_locked');
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '잠금', auth: 'none' }] }), 409, 'document_edit_locked');
      expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [field(a.id)] }), 409, 'document_edit_locked');
      expectError(await c.del(`/documents/${doc.id}/participants/${a.id}`), 409, 'document_edit_locked');
      const after = await read(doc.id);
      expect(after.participants.map((p: any) => p.id)).toEqual([a.id]);
      expect(after.fields).toEqual([]);
      await t.admin.setEditLock(doc.id, false);
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(a.id)] }), 200);
    });
  });
});
