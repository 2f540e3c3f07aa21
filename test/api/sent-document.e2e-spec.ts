import { TestOrg, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, addParticipant, Client, client, expectError, expectStatus, field, sendableDraft, sendThroughDomain } from '../support/api-helpers';

/**
 * A sent document is frozen: every draft edit answers 409 document_not_editable. The send itself is
 * produced through the domain (the decider appends DocumentSent to the document's stream).
 */
describe('a sent document refuses draft edits (409 document_not_editable)', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  let c: Client;
  let docId: string;
  let participantId: string;
  let before: any;
  beforeAll(async () => {
    org = await t.createOrg();
    c = client(t, org.test);
    const { doc, participant } = await sendableDraft(c, { metadata: { ref: 'S-1' } });
    docId = doc.id;
    participantId = participant.id;
    await sendThroughDomain(t, org.id, docId, [participantId]);
    before = expectStatus(await c.get(`/documents/${docId}`), 200).body;
  });

  it('the document reads as sent, with a signing link for its participant', () => {
    expect(before.status).toBe('sent');
    expect(before.sent_at).not.toBeNull();
    expect(before.participants[0]).toMatchObject({ id: participantId, status: 'pending' });
    expect(before.participants[0].signing_url).toMatch(/\/sign\/\S+$/);
  });

  it('is listed under status=sent and not under status=draft', async () => {
    const sent = expectStatus(await c.get('/documents?status=sent'), 200).body.data.map((d: any) => d.id);
    const drafts = expectStatus(await c.get('/documents?status=draft'), 200).body.data.map((d: any) => d.id);
    expect(sent).toContain(docId);
    expect(drafts).not.toContain(docId);
  });

  const edits: Array<[string, (c: Client) => Promise<any>]> = [
    ['PATCH title', (c) => c.patch(`/documents/${docId}`, { title: '발송 후 수정' })],
    ['PATCH metadata', (c) => c.patch(`/documents/${docId}`, { metadata: { ref: null } })],
    ['PATCH with an empty body', (c) => c.patch(`/documents/${docId}`, {})],
    ['PUT fields', (c) => c.put(`/documents/${docId}/fields`, { fields: [field(participantId, { x: 50 })] })],
    ['PUT fields (clearing them)', (c) => c.put(`/documents/${docId}/fields`, { fields: [] })],
    ['POST participants', (c) => c.post(`/documents/${docId}/participants`, { name: '추가', phone: '01055556666' })],
    ['POST participants/batch', (c) => c.post(`/documents/${docId}/participants/batch`, { participants: [{ name: '추가', auth: 'none' }] })],
    ['DELETE participant', (c) => c.del(`/documents/${docId}/participants/${participantId}`)],
  ];

  it.each(edits)('%s → 409 document_not_editable, nothing changes', async (_l, call) => {
    const err = expectError(await call(c), 409, 'document_not_editable');
    expect(err.type).toBe('invalid_request_error');
    expect(expectStatus(await c.get(`/documents/${docId}`), 200).body).toEqual(before);
  });

  it('a batch item without a phone still answers 409 (the state conflict comes first)', async () => {
    expectError(await c.post(`/documents/${docId}/participants/batch`, { participants: [{ name: '전화 없음' }] }), 409, 'document_not_editable');
    expectError(await c.post(`/documents/${docId}/participants`, { name: '전화 없음' }), 409, 'document_not_editable');
  });

  it('an unknown participant on a sent document still answers 409', async () => {
    expectError(await c.del(`/documents/${docId}/participants/00000000-0000-4000-8000-000000000000`), 409, 'document_not_editable');
  });

  it('not_editable wins over the edit lock', async () => {
    await t.admin.setEditLock(docId, true);
    expectError(await c.patch(`/documents/${docId}`, { title: 'x' }), 409, 'document_not_editable');
    await t.admin.setEditLock(docId, false);
    before = expectStatus(await c.get(`/documents/${docId}`), 200).body;
  });

  it('reading, duplicating and trashing remain possible', async () => {
    const copy = expectStatus(await c.post(`/documents/${docId}/duplicate`), 201).body;
    expect(copy.status).toBe('draft');
    expectStatus(await c.patch(`/documents/${copy.id}`, { title: '수정 가능' }), 200);
    const { doc, participant } = await sendableDraft(c);
    await sendThroughDomain(t, org.id, doc.id, [participant.id]);
    expect(expectStatus(await c.del(`/documents/${doc.id}`), 200).body).toEqual({ id: doc.id, object: 'document', deleted: true });
  });

  it('another organization gets 404, not 409, on the sent document', async () => {
    const other = client(t, (await t.createOrg('다른 회사')).test);
    expectError(await other.patch(`/documents/${docId}`, { title: 'x' }), 404, 'document_not_found');
    expectError(await other.put(`/documents/${docId}/fields`, { fields: [] }), 404, 'document_not_found');
    expectError(await other.del(`/documents/${docId}/participants/${participantId}`), 404, 'document_not_found');
  });

  it('a sent live document refuses the same edits for the live key, and is unknown to the test key', async () => {
    const live = client(t, org.live);
    const doc = expectStatus(await live.post('/documents', { title: '라이브', content: '<p>x</p>' }), 201).body;
    const p = await addParticipant(live, doc.id);
    expectStatus(await live.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    await sendThroughDomain(t, org.id, doc.id, [p.id], { livemode: true });
    expect(expectStatus(await live.get(`/documents/${doc.id}`), 200).body).toMatchObject({ status: 'sent', livemode: true });
    expectError(await live.patch(`/documents/${doc.id}`, { title: 'x' }), 409, 'document_not_editable');
    expectError(await live.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: 'x', auth: 'none' }] }), 409, 'document_not_editable');
    expectError(await c.patch(`/documents/${doc.id}`, { title: 'x' }), 404, 'document_not_found');
  });
});
