import { randomUUID } from 'crypto';
import { documentStreamId } from '@dojang/domain';
import { Client, client, expectStatus, field } from '../support/api-helpers';
import { draftWith, eventTypesOf, expectApiError, sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp, TestOrg } from '../support/test-app';

/** Every row of SPEC.md "States and transitions" (document), driven through the public API. */
describe('document states and transitions', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
  });
  afterAll(() => t.close());

  const get = async (id: string) => expectStatus(await c.get(`/documents/${id}`), 200).body;

  describe('draft → sent → viewed → signed → completed', () => {
    it('walks every transition with its status, participant status, timestamps and event', async () => {
      const d = await draftWith(c, [{ name: '김철수' }, { name: '이영희' }]);
      expect((await get(d.id)).status).toBe('draft');
      expect(await eventTypesOf(c, d.id)).toEqual([]);

      // draft → sent: every participant has a unique signing link; document.sent
      const sent = expectStatus(await c.post(`/documents/${d.id}/send`, {}), 200).body;
      expect(sent.status).toBe('sent');
      expect(sent.sent_at).toEqual(expect.any(String));
      expect(sent.completed_at).toBeNull();
      const [kim, lee] = sent.participants.map((p: any) => ({ ...p, s: signer(t, p.signing_url.split('/sign/')[1]) }));
      expect(kim.signing_url).toMatch(/\/sign\/[A-Za-z0-9_-]+$/);
      expect(kim.signing_url).not.toBe(lee.signing_url);
      expect(sent.participants.map((p: any) => p.status)).toEqual(['pending', 'pending']);
      expect(await eventTypesOf(c, d.id)).toEqual(['document.sent']);

      // sent --open link--> sent; participant viewed; document.viewed (once per participant)
      expectStatus(await kim.s.view(), 200);
      expectStatus(await kim.s.view(), 200);
      let doc = await get(d.id);
      expect(doc.status).toBe('sent');
      expect(doc.participants.map((p: any) => p.status)).toEqual(['viewed', 'pending']);
      expect(doc.participants[0].viewed_at).toEqual(expect.any(String));
      expect(await eventTypesOf(c, d.id)).toEqual(['document.sent', 'document.viewed']);

      // sent --signs, others pending--> sent; participant signed; participant.signed
      const afterKim = expectStatus(await kim.s.sign(), 200).body;
      expect(afterKim.document.status).toBe('sent');
      expect(afterKim.participant.status).toBe('signed');
      doc = await get(d.id);
      expect(doc.status).toBe('sent');
      expect(doc.completed_at).toBeNull();
      expect(doc.participants[0]).toMatchObject({ status: 'signed', signed_at: expect.any(String) });
      expect(doc.participants[1]).toMatchObject({ status: 'pending', signed_at: null });
      expect(await eventTypesOf(c, d.id)).toEqual(['document.sent', 'document.viewed', 'participant.signed']);

      // last signs → completed; completed_at; document.completed
      expectStatus(await lee.s.view(), 200);
      const afterLee = expectStatus(await lee.s.sign(), 200).body;
      expect(afterLee.document.status).toBe('completed');
      doc = await get(d.id);
      expect(doc.status).toBe('completed');
      expect(doc.completed_at).toEqual(expect.any(String));
      expect(Date.parse(doc.completed_at)).toBeGreaterThanOrEqual(Date.parse(doc.participants[1].signed_at));
      expect(doc.participants.map((p: any) => p.status)).toEqual(['signed', 'signed']);
      expect(doc.participants.every((p: any) => p.signing_url === null)).toBe(true);
      expect(await eventTypesOf(c, d.id)).toEqual([
        'document.sent',
        'document.viewed',
        'participant.signed',
        'document.viewed',
        'participant.signed',
        'document.completed',
      ]);
    });
  });

  it('a participant who acts without opening the view first is still recorded as having opened the link, before acting', async () => {
    const d = await sentWith(c, [
      { name: '바로서명', signing_order: 1 },
      { name: '바로거절', signing_order: 2, auth: 'sms_pin', phone: '01012345678' },
    ]);
    expectStatus(await signer(t, d.p['바로서명'].token).sign(), 200);
    let doc = await get(d.id);
    expect(doc.participants[0]).toMatchObject({ status: 'signed', viewed_at: expect.any(String) });
    expect(Date.parse(doc.participants[0].viewed_at)).toBeLessThanOrEqual(Date.parse(doc.participants[0].signed_at));
    expect(await eventTypesOf(c, d.id)).toEqual(['document.sent', 'document.viewed', 'participant.signed']);

    // the first action through a link, whatever it is, counts as opening it (here a PIN request)
    expectStatus(await signer(t, d.p['바로거절'].token).pin(), 200);
    doc = await get(d.id);
    expect(doc.participants[1]).toMatchObject({ status: 'viewed', viewed_at: expect.any(String) });
    expect(await eventTypesOf(c, d.id)).toEqual(['document.sent', 'document.viewed', 'participant.signed', 'document.viewed']);
  });

  describe('cancel', () => {
    it('sent → canceled: the links die (410 signing_link_inactive) and every signing action is refused', async () => {
      const d = await sentWith(c, [{ name: '박민수', auth: 'sms_pin', phone: '01055556666' }]);
      const s = signer(t, d.p['박민수'].token);
      expectStatus(await s.view(), 200);

      const canceled = expectStatus(await c.post(`/documents/${d.id}/cancel`), 200).body;
      expect(canceled.status).toBe('canceled');
      expect(canceled.participants[0].signing_url).toBeNull();
      expect((await get(d.id)).status).toBe('canceled');

      expectApiError(await s.view(), 410, 'signing_link_inactive');
      expectApiError(await s.pin(), 410, 'signing_link_inactive');
      expectApiError(await s.verify('123456'), 410, 'signing_link_inactive');
      expectApiError(await s.sign(), 410, 'signing_link_inactive');
      expectApiError(await s.decline(), 410, 'signing_link_inactive');
      expectApiError(await s.file(), 410, 'signing_link_inactive');
      expect((await get(d.id)).participants[0].status).toBe('viewed');

      // A second cancel is a conflict too, not a silent success.
      expectApiError(await c.post(`/documents/${d.id}/cancel`), 409, 'document_not_cancelable');
      expect(await eventTypesOf(c, d.id)).toEqual(['document.sent', 'document.viewed', 'document.canceled']);
    });

    it('completed: 409 document_already_completed and the document stays completed', async () => {
      const d = await sentWith(c, [{ name: '최지우' }]);
      expectStatus(await signer(t, d.p['최지우'].token).sign(), 200);
      const err = expectApiError(await c.post(`/documents/${d.id}/cancel`), 409, 'document_already_completed', 'invalid_request_error');
      expect(err.message).toMatch(/completed/);
      const doc = await get(d.id);
      expect(doc.status).toBe('completed');
      expect(doc.completed_at).toEqual(expect.any(String));
      expect(await eventTypesOf(c, d.id)).not.toContain('document.canceled');
    });

    it('draft: 409 document_not_sent and the draft stays a draft', async () => {
      const d = await draftWith(c, [{ name: '정수아' }]);
      expectApiError(await c.post(`/documents/${d.id}/cancel`), 409, 'document_not_sent', 'invalid_request_error');
      expect((await get(d.id)).status).toBe('draft');
    });

    it('unknown or other-organization document: 404 document_not_found', async () => {
      expectApiError(await c.post(`/documents/${randomUUID()}/cancel`), 404, 'document_not_found');
      const other = client(t, (await t.createOrg('다른회사')).test);
      const d = await sentWith(c, [{ name: '한지민' }]);
      expectApiError(await other.post(`/documents/${d.id}/cancel`), 404, 'document_not_found');
      expect((await get(d.id)).status).toBe('sent');
    });
  });

  describe('sent or later: every edit is refused with 409 document_not_editable', () => {
    const edits = (id: string, participantId: string) => [
      ['PATCH document', () => c.patch(`/documents/${id}`, { title: '바뀐 제목' })],
      ['PUT fields', () => c.put(`/documents/${id}/fields`, { fields: [{ participant_id: participantId, type: 'signature', page: 1, x: 1, y: 1, width: 10, height: 5 }] })],
      ['add participant', () => c.post(`/documents/${id}/participants`, { name: '추가', auth: 'none' })],
      ['batch add', () => c.post(`/documents/${id}/participants/batch`, { participants: [{ name: '추가', auth: 'none' }] })],
      ['delete participant', () => c.del(`/documents/${id}/participants/${participantId}`)],
    ] as const;

    const assertFrozen = async (id: string, participantId: string, status: string) => {
      const before = await get(id);
      for (const [what, call] of edits(id, participantId)) {
        const res = await call();
        try {
          expectApiError(res, 409, 'document_not_editable', 'invalid_request_error');
        } catch (e) {
          throw new Error(`${what} on a ${status} document: ${(e as Error).message}`);
        }
      }
      const after = await get(id);
      expect(after.status).toBe(status);
      expect(after.title).toBe(before.title);
      expect(after.participants).toEqual(before.participants);
      expect(after.fields).toEqual(before.fields);
    };

    it('sent', async () => {
      const d = await sentWith(c, [{ name: '김철수' }, { name: '이영희' }]);
      await assertFrozen(d.id, d.p['김철수'].id, 'sent');
    });

    it('completed', async () => {
      const d = await sentWith(c, [{ name: '김철수' }]);
      expectStatus(await signer(t, d.p['김철수'].token).sign(), 200);
      await assertFrozen(d.id, d.p['김철수'].id, 'completed');
    });

    it('canceled', async () => {
      const d = await sentWith(c, [{ name: '김철수' }]);
      expectStatus(await c.post(`/documents/${d.id}/cancel`), 200);
      await assertFrozen(d.id, d.p['김철수'].id, 'canceled');
    });

    it('a second send is refused too', async () => {
      const d = await sentWith(c, [{ name: '김철수' }]);
      expectApiError(await c.post(`/documents/${d.id}/send`, {}), 409, 'document_not_editable');
      expect(await eventTypesOf(c, d.id)).toEqual(['document.sent']);
    });
  });

  describe('DELETE moves any document to the trash', () => {
    const trash = async (id: string) => {
      const res = expectStatus(await c.del(`/documents/${id}`), 200).body;
      expect(res).toMatchObject({ id, object: 'document', deleted: true });
      expectApiError(await c.get(`/documents/${id}`), 404, 'document_not_found');
      const listed = expectStatus(await c.get('/documents?limit=100'), 200).body.data.map((x: any) => x.id);
      expect(listed).not.toContain(id);
      // Trashed, not erased: the event stream is intact and ends with DocumentTrashed.
      const stream = await t.infra.events.readStream(documentStreamId(id));
      expect(stream[0].type).toBe('DocumentCreated');
      expect(stream[stream.length - 1].type).toBe('DocumentTrashed');
    };

    it('draft', async () => {
      const d = await draftWith(c, [{ name: '김철수' }]);
      await trash(d.id);
      expectApiError(await c.del(`/documents/${d.id}`), 404, 'document_not_found');
    });

    it('sent: trashing also kills the signing links', async () => {
      const d = await sentWith(c, [{ name: '김철수' }]);
      await trash(d.id);
      const s = signer(t, d.p['김철수'].token);
      expectApiError(await s.view(), 410, 'signing_link_inactive');
      expectApiError(await s.sign(), 410, 'signing_link_inactive');
    });

    it('completed', async () => {
      const d = await sentWith(c, [{ name: '김철수' }]);
      expectStatus(await signer(t, d.p['김철수'].token).sign(), 200);
      await trash(d.id);
    });

    it('canceled', async () => {
      const d = await sentWith(c, [{ name: '김철수' }]);
      expectStatus(await c.post(`/documents/${d.id}/cancel`), 200);
      await trash(d.id);
    });
  });

  describe('send preconditions: 400 invalid_request_error, the first unmet condition\'s code, naming every unmet condition', () => {
    const sendFails = async (id: string, code: string) => {
      const err = expectApiError(await c.post(`/documents/${id}/send`, {}), 400, code, 'invalid_request_error');
      expect((await get(id)).status).toBe('draft');
      expect(await eventTypesOf(c, id)).toEqual([]);
      return err.message as string;
    };

    it('no participants', async () => {
      const doc = expectStatus(await c.post('/documents', { title: '빈 문서', content: '<p>본문</p>' }), 201).body;
      expect(await sendFails(doc.id, 'document_has_no_participants')).toMatch(/no participants: add one with POST \/v1\/documents\/\{id\}\/participants/);
    });

    it('a signer without a required field is named; reviewers and cc need no field', async () => {
      const d = await draftWith(c, [
        { name: '서명자A', fields: [] },
        { name: '검토자', role: 'reviewer' },
        { name: '참조인', role: 'cc' },
      ]);
      const message = await sendFails(d.id, 'signer_without_required_field');
      expect(message).toContain(`signer "서명자A" (${d.p['서명자A'].id}) has no required field placed: place one for them with PUT /v1/documents/{id}/fields`);
      expect(message).not.toContain('검토자');
      expect(message).not.toContain('참조인');
    });

    it('an optional field does not count as the required field', async () => {
      const d = await draftWith(c, [{ name: '서명자B', fields: [{ type: 'signature', required: false }] }]);
      expect(await sendFails(d.id, 'signer_without_required_field')).toContain(`signer "서명자B" (${d.p['서명자B'].id}) has no required field placed`);
    });

    it('a reviewer-only document (no fields at all) can be sent', async () => {
      const d = await draftWith(c, [{ name: '검토자', role: 'reviewer' }, { name: '참조인', role: 'cc' }]);
      expect(expectStatus(await c.post(`/documents/${d.id}/send`, {}), 200).body.status).toBe('sent');
    });

    it('cc participants alone are not enough', async () => {
      const d = await draftWith(c, [{ name: '참조인', role: 'cc' }]);
      expect(await sendFails(d.id, 'document_has_no_signer')).toMatch(/no signer or reviewer/);
    });

    it('a field on a page past the last page of the rendered PDF is refused when it is placed (field_page_out_of_range)', async () => {
      const d = await draftWith(c, [{ name: '김철수', fields: [] }]);
      const err = expectApiError(
        await c.put(`/documents/${d.id}/fields`, { fields: [field(d.p['김철수'].id), field(d.p['김철수'].id, { page: 3 })] }),
        400,
        'field_page_out_of_range',
        'invalid_request_error',
      );
      expect(err.param).toBe('fields[1].page');
      expect(err.message).toContain('fields[1].page is 3 but the document has 1 page');
    });

    it('several unmet conditions are all named in one message', async () => {
      const d = await draftWith(c, [
        { name: '서명자1', fields: [{ type: 'signature', required: false }] },
        { name: '서명자2', fields: [] },
        { name: '서명자3', fields: [] },
      ]);
      const message = await sendFails(d.id, 'signer_without_required_field');
      expect(message).toContain(`signer "서명자1" (${d.p['서명자1'].id})`);
      expect(message).toContain(`signer "서명자2" (${d.p['서명자2'].id})`);
      expect(message).toContain(`signer "서명자3" (${d.p['서명자3'].id})`);
      expect(message.split(';')).toHaveLength(3);
    });

    it('an sms_pin participant without a phone can not be added through the API (400 missing_phone)', async () => {
      const doc = expectStatus(await c.post('/documents', { title: '문서', content: '<p>본문</p>' }), 201).body;
      expectApiError(await c.post(`/documents/${doc.id}/participants`, { name: '전화없음', auth: 'sms_pin' }), 400, 'missing_phone');
      // sms_pin is the default auth
      expectApiError(await c.post(`/documents/${doc.id}/participants`, { name: '전화없음' }), 400, 'missing_phone');
      expectApiError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '전화없음', auth: 'sms_pin' }] }), 400, 'missing_phone');
      expect((await get(doc.id)).participants).toEqual([]);
    });

    it('an sms_pin participant without a phone (only possible in a stream written outside the API) is named at send', async () => {
      const d = await draftWith(c, [{ name: '김철수' }]);
      const stream = await t.infra.events.readStream(documentStreamId(d.id));
      const ghost = randomUUID();
      await t.infra.events.append(
        documentStreamId(d.id),
        [
          {
            event_id: randomUUID(),
            type: 'ParticipantAdded',
            data: { participant: { id: ghost, name: '전화없음', phone: null, email: null, role: 'reviewer', signing_order: 1, auth: 'sms_pin' }, added_at: new Date().toISOString() },
            metadata: { occurred_at: new Date().toISOString(), actor: 'test', organization_id: org.id, livemode: false, schema_version: 1 },
          },
        ],
        stream[stream.length - 1].stream_revision,
      );
      await t.infra.runner.catchUp();
      expect(await sendFails(d.id, 'missing_phone')).toContain(`participant "전화없음" (${ghost}) uses sms_pin but has no phone`);
    });
  });
});
