import { SIGNING_DRAFTS } from '@dojang/application';
import { API_TEST_OPTIONS, client, Client, expectError, expectStatus } from '../support/api-helpers';
import { describeOnEachStore, startTestAppOn } from '../support/each-store';
import { Built, eventTypesOf, sentWith, signer, SIGNATURE, tokenOf } from '../support/lifecycle';
import { solidPngBytes } from '../support/png';
import { TestApp } from '../support/test-app';

const DAY = 24 * 3600e3;

/**
 * Signing drafts (PUT /v1/signing/{token}/draft, the session's `draft`): saved and merged under
 * the link, checked as signing checks values, refused with nothing saved, never in the event log,
 * the history or the audit trail, and deleted at each way a draft ends: signing, decline, a
 * replaced link (correction, delegation), another group member signing, cancel, expiry,
 * completion. On both stores: drafts are rows of the read store (compare-and-set, find, delete).
 */
describeOnEachStore('signing drafts', (store) => {
  let t: TestApp;
  let c: Client;
  beforeAll(async () => {
    t = await startTestAppOn(store, { ...API_TEST_OPTIONS, manualClock: true, worker: { tickIntervalMs: 0 } });
    c = client(t, (await t.createOrg()).test);
  });
  afterAll(async () => t?.close());

  const FIELDS = [
    { type: 'signature' },
    { type: 'text', label: '주소', max_length: 200 },
    { type: 'checkbox', label: '동의' },
    { type: 'number', label: '월급', min: 0 },
    { type: 'attachment', label: '신분증' },
    { type: 'name', label: '성명' },
    { type: 'text', label: '고정', read_only: true, value: '정규직' },
  ].map((f, i) => ({ ...f, y: 10 + 9 * i, height: 4 }));
  const fieldsOf = async (d: Built, name: string) => {
    const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    const id = (label: string) => doc.fields.find((f: any) => f.participant_id === d.p[name].id && (f.label === label || f.type === label)).id as string;
    return { sig: id('signature'), address: id('주소'), agree: id('동의'), salary: id('월급'), idCard: id('신분증'), named: id('성명'), fixed: id('고정') };
  };
  const draftOf = (token: string) => (values: Record<string, unknown>) => t.http.put(`/v1/signing/${token}/draft`).send({ values });
  const rows = async (documentId: string) => {
    await t.worker!.runner.catchUp();
    return t.infra.reads.find(SIGNING_DRAFTS, { where: { document_id: documentId } });
  };
  const settle = async () => {
    await t.infra.runner.catchUp();
    await t.worker!.runner.catchUp();
  };

  it('saves, merges and clears values; the session gives the draft back; refusals save nothing; no event, history or audit entry carries it', async () => {
    const d = await sentWith(c, [{ name: '근로자', fields: FIELDS }]);
    const f = await fieldsOf(d, '근로자');
    const token = d.p['근로자'].token;
    const put = draftOf(token);
    expect(expectStatus(await signer(t, token).view(), 200).body.draft).toBeNull();
    const before = await eventTypesOf(c, d.id);

    const first = expectStatus(await put({ [f.address]: '  서울특별시 중구 세종대로 110 곽뙇희빌딩 ', [f.agree]: true, [f.salary]: 3200000 }), 200).body;
    expect(first).toMatchObject({ object: 'signing_draft', values: { [f.address]: '서울특별시 중구 세종대로 110 곽뙇희빌딩', [f.agree]: true, [f.salary]: '3200000' } });
    // An attachment field's value is the id POST …/attachments answered.
    const att = expectStatus(await t.http.post(`/v1/signing/${token}/attachments`).field('field_id', f.idCard).attach('file', solidPngBytes(30, 20, [1, 2, 3, 255]), '신분증.png'), 201).body;
    t.clock!.advance(1000);
    const merged = expectStatus(await put({ [f.agree]: null, [f.idCard]: att.attachment_id }), 200).body;
    expect(merged.values).toEqual({ [f.address]: '서울특별시 중구 세종대로 110 곽뙇희빌딩', [f.salary]: '3200000', [f.idCard]: att.attachment_id });
    expect(Date.parse(merged.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));

    // Another device opening the same link resumes there.
    expect(expectStatus(await signer(t, token).view(), 200).body.draft).toEqual({ values: merged.values, updated_at: merged.updated_at });

    // Each refusal names the field; the draft is as it was.
    expectError(await put({ [f.salary]: '1', nope: 'x' }), 400, 'field_not_found', 'values.nope');
    expectError(await put({ [f.sig]: 'x' }), 400, 'field_not_fillable', `values.${f.sig}`);
    expectError(await put({ [f.named]: '홍길동' }), 400, 'field_not_fillable', `values.${f.named}`);
    expectError(await put({ [f.fixed]: '계약직' }), 400, 'field_not_fillable', `values.${f.fixed}`);
    expectError(await put({ [f.agree]: 'yes' }), 400, 'field_value_invalid', `values.${f.agree}`);
    expectError(await put({ [f.salary]: -5 }), 400, 'field_value_invalid', `values.${f.salary}`);
    expectError(await put({ [f.address]: '가'.repeat(201) }), 400, 'field_value_invalid', `values.${f.address}`);
    expectError(await put({ [f.idCard]: 'att_not_uploaded' }), 400, 'field_value_invalid', `values.${f.idCard}`);
    expectError(await t.http.put(`/v1/signing/${token}/draft`).send({}), 400, 'missing_parameter', 'values');
    expectError(await t.http.put(`/v1/signing/${token}/draft`).send({ values: 'x' }), 400, 'invalid_parameter', 'values');
    expect(expectStatus(await signer(t, token).view(), 200).body.draft.values).toEqual(merged.values);

    // Not a legal fact: no event of it, nothing of it in the history, audit trail, form data or events.
    await settle();
    expect(await eventTypesOf(c, d.id)).toEqual(before);
    for (const path of [`/documents/${d.id}/history`, `/documents/${d.id}/audit`, `/documents/${d.id}/form_data`, `/events?document_id=${d.id}`]) {
      expect(JSON.stringify(expectStatus(await c.get(path), 200).body)).not.toContain('세종대로');
    }

    // Signing spends the draft: the row is gone and a later save is refused as a signature would be.
    expectStatus(await signer(t, token).sign({ consent: true, signature: SIGNATURE, values: { ...merged.values, [f.agree]: true } }), 200);
    expect(await rows(d.id)).toEqual([]);
    expectError(await put({ [f.address]: '다시' }), 409, 'document_not_signable');
    expect(await rows(d.id)).toEqual([]);
  });

  it('out of turn and after signing: the 409 signing gives; decline deletes every draft of the document', async () => {
    const d = await sentWith(c, [
      { name: '갑', fields: [{ type: 'signature' }, { type: 'text', label: '주소' }] },
      { name: '을', signing_order: 2, fields: [{ type: 'signature' }, { type: 'text', label: '주소' }] },
      { name: '병', fields: [{ type: 'signature' }, { type: 'text', label: '주소' }] },
    ]);
    const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
    const textOf = (name: string) => doc.fields.find((x: any) => x.participant_id === d.p[name].id && x.type === 'text').id as string;
    expectError(await draftOf(d.p['을'].token)({ [textOf('을')]: '부산' }), 409, 'not_your_turn');
    expectStatus(await draftOf(d.p['갑'].token)({ [textOf('갑')]: '서울' }), 200);
    expectStatus(await draftOf(d.p['병'].token)({ [textOf('병')]: '대구' }), 200);
    expectStatus(await signer(t, d.p['갑'].token).sign({ consent: true, signature: SIGNATURE, values: { [textOf('갑')]: '서울' } }), 200);
    expectError(await draftOf(d.p['갑'].token)({ [textOf('갑')]: '서울' }), 409, 'participant_already_signed');
    expect((await rows(d.id)).map((r: any) => r.participant_id)).toEqual([d.p['병'].id]);

    expectStatus(await signer(t, d.p['병'].token).decline(), 200);
    expect(await rows(d.id)).toEqual([]);
    expectError(await draftOf(d.p['병'].token)({ [textOf('병')]: '대구' }), 410, 'signing_link_inactive');
    expect(await rows(d.id)).toEqual([]);
  });

  it('a replaced link (correction) neither sees nor keeps the draft; the old link is refused', async () => {
    const d = await sentWith(c, [{ name: '근로자', fields: [{ type: 'signature' }, { type: 'text', label: '주소' }] }]);
    const text = expectStatus(await c.get(`/documents/${d.id}`), 200).body.fields.find((x: any) => x.type === 'text').id;
    expectStatus(await draftOf(d.p['근로자'].token)({ [text]: '서울' }), 200);
    const fixed = expectStatus(await c.patch(`/documents/${d.id}/participants/${d.p['근로자'].id}`, { name: '근로자2' }), 200).body;
    expectError(await draftOf(d.p['근로자'].token)({ [text]: '서울' }), 404, 'signing_link_replaced');
    expect(expectStatus(await signer(t, tokenOf(fixed.signing_url)).view(), 200).body.draft).toBeNull();
    expect(await rows(d.id)).toEqual([]);
  });

  it('another member signing for the signing group clears the others\' drafts', async () => {
    const d = await sentWith(c, [
      { name: '인사1', group: 'hr', fields: [{ type: 'signature' }, { type: 'text', label: '확인' }] },
      { name: '인사2', group: 'hr', fields: [] },
    ]);
    const text = expectStatus(await c.get(`/documents/${d.id}`), 200).body.fields.find((x: any) => x.type === 'text').id;
    // A group member fills the fields placed for any member.
    expectStatus(await draftOf(d.p['인사2'].token)({ [text]: '확인함' }), 200);
    expectStatus(await draftOf(d.p['인사1'].token)({ [text]: '확인' }), 200);
    expect(await rows(d.id)).toHaveLength(2);
    expectStatus(await signer(t, d.p['인사1'].token).sign({ consent: true, signature: SIGNATURE, values: { [text]: '확인' } }), 200);
    expect(await rows(d.id)).toEqual([]);
  });

  it('cancel and expiry delete the drafts; the links then answer 410 as signing does', async () => {
    const cd = await sentWith(c, [{ name: '근로자', fields: [{ type: 'signature' }, { type: 'text', label: '주소' }] }]);
    const canceled = { d: cd, text: expectStatus(await c.get(`/documents/${cd.id}`), 200).body.fields.find((x: any) => x.type === 'text').id as string };
    expectStatus(await draftOf(canceled.d.p['근로자'].token)({ [canceled.text]: '서울' }), 200);
    expectStatus(await c.post(`/documents/${canceled.d.id}/cancel`), 200);
    expect(await rows(canceled.d.id)).toEqual([]);
    expectError(await draftOf(canceled.d.p['근로자'].token)({ [canceled.text]: '서울' }), 410, 'signing_link_inactive');

    const doc = expectStatus(await c.post('/documents', { title: '만료', content: '<p>본문</p>' }), 201).body;
    const p = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '근로자', auth: 'none', email: 'late@example.com' }), 201).body;
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 10, y: 80, width: 20, height: 8 }, { participant_id: p.id, type: 'text', label: '주소', page: 1, x: 10, y: 20, width: 40, height: 4 }] }), 200);
    const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, { expires_in_days: 1 }), 200).body;
    const token = tokenOf(sent.participants[0].signing_url);
    const text = sent.fields.find((x: any) => x.type === 'text').id;
    expectStatus(await draftOf(token)({ [text]: '서울' }), 200);
    await settle();
    t.clock!.advance(DAY + 1000);
    expect(await t.worker!.tick()).toMatchObject({ fired: 1 });
    await settle();
    expect(await rows(doc.id)).toEqual([]);
    expectError(await draftOf(token)({ [text]: '서울' }), 410, 'signing_link_inactive');
  });
});
