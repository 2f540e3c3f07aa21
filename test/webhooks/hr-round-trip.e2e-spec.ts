import { verifyWebhook } from '@dojang/client';
import { bearer, TestApp } from '../support/test-app';
import { client, Client, expectStatus } from '../support/api-helpers';
import { SIGNATURE } from '../support/lifecycle';
import { createEndpoint, deliverNow, Receiver, startDeliveryApp, startReceiver } from './webhook-test-kit';

/**
 * Issue 32's done-when, as a Korean HR developer runs it: a template with roles 직원 and 대표, its
 * rows in a CSV headed as an HR export is (`직원.이름`, `직원.휴대폰`, `사번`, `제목`), one row to a
 * phone an earlier row gave. The dry run reports that row (row, column, code); the job sends the
 * rows; each document.completed webhook, checked with @dojang/client's verifyWebhook, maps back by
 * itself: 사번 in metadata, the external id, and the employment type chosen in the radio group.
 * The Korean role names rest on the Unicode role-name rule (issue 32 item 4).
 */
describe('an HR bulk send maps back from its webhooks (issue 32)', () => {
  let t: TestApp;
  let receiver: Receiver;
  let c: Client;
  let key: string;
  beforeAll(async () => {
    t = await startDeliveryApp();
    receiver = await startReceiver();
    key = (await t.createOrg('주식회사 도장')).test;
    c = client(t, key);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const TEMPLATE = {
    name: '근로계약서',
    content: '<h2>근로계약서</h2><p>근로자와 회사는 다음과 같이 근로계약을 체결한다.</p><p>고용형태: 정규직 / 계약직</p>',
    roles: [
      { role: '직원', participant_role: 'signer', signing_order: 1, auth: 'none' },
      { role: '대표', participant_role: 'signer', signing_order: 2, auth: 'none' },
    ],
    fields: [
      { role: '직원', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 },
      { id: 'a0000000-0000-4000-8000-0000000000e1', role: '직원', type: 'radio', label: '고용형태', group: '고용형태', option: '정규직', required: true, page: 1, x: 10, y: 40, width: 4, height: 3 },
      { id: 'a0000000-0000-4000-8000-0000000000e2', role: '직원', type: 'radio', label: '고용형태', group: '고용형태', option: '계약직', required: true, page: 1, x: 30, y: 40, width: 4, height: 3 },
      { role: '대표', type: 'signature', page: 1, x: 60, y: 80, width: 30, height: 8 },
    ],
  };
  // The four columns an HR export has, the row's external id, and the representative (the same
  // in every row: not a duplicate). Row 3 repeats row 1's phone, written another way; row 4 is a
  // landline, which no text message reaches.
  const CSV = [
    '직원.이름,직원.휴대폰,사번,제목,external_id,대표.이름,대표.이메일',
    '김지원,010-1111-2222,E-0001,김지원 근로계약서,HR-1,홍길동,ceo@example.com',
    '이서연,010-3333-4444,E-0002,이서연 근로계약서,HR-2,홍길동,ceo@example.com',
    '박민준,01011112222,E-0003,박민준 근로계약서,HR-3,홍길동,ceo@example.com',
    '최유나,02-123-4567,E-0004,최유나 근로계약서,HR-4,홍길동,ceo@example.com',
  ].join('\n');
  const upload = (templateId: string, query: string) =>
    t.http.post(`/v1/bulk_sends/upload?template_id=${templateId}${query}`).set(bearer(key)).attach('file', Buffer.from(CSV, 'utf8'), { filename: '입사자.csv', contentType: 'text/csv' });

  it('dry run reports the landline and warns of the shared phone; the job sends the rest; every document.completed carries 사번, the external id and the chosen 고용형태', async () => {
    const template = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    const endpoint = await createEndpoint(c, { url: receiver.url(), events: ['document.completed'] });

    // Both reported by row, canonical column (the sheet heads it 직원.휴대폰) and code.
    const dry = expectStatus(await upload(template.id, '&dry_run=true'), 200).body;
    expect(dry).toMatchObject({ object: 'bulk_send_validation', row_count: 4, valid_rows: 3 });
    expect(dry.errors.map((e: { row: number; column: string; code: string }) => [e.row, e.column, e.code])).toEqual([[4, '직원.phone', 'phone_not_mobile']]);
    expect(dry.warnings).toEqual([{ row: 3, column: '직원.phone', code: 'duplicate_recipient', rows: [1, 3], message: expect.stringContaining('row 1') }]);

    // Warnings are not errors: the job sends every row but the landline's.
    const job = expectStatus(await upload(template.id, '&skip_invalid_rows=true'), 200).body;
    for (let i = 0; i < 50 && expectStatus(await c.get(`/bulk_sends/${job.id}`), 200).body.status === 'running'; i++) await t.worker!.runner.catchUp();
    expect(expectStatus(await c.get(`/bulk_sends/${job.id}`), 200).body).toMatchObject({ status: 'completed', counts: { sent: 3, failed: 1 } });
    const all = expectStatus(await c.get(`/bulk_sends/${job.id}/rows`), 200).body.data;
    expect(all.filter((r: { state: string }) => r.state === 'failed')).toEqual([
      expect.objectContaining({ row: 4, external_id: 'HR-4', document_id: null, error: expect.objectContaining({ code: 'phone_not_mobile', column: '직원.phone' }) }),
    ]);
    const rows = all.filter((r: { state: string }) => r.state === 'sent');
    expect(rows.map((r: { row: number; external_id: string }) => [r.row, r.external_id])).toEqual([
      [1, 'HR-1'],
      [2, 'HR-2'],
      [3, 'HR-3'],
    ]);

    // Each row's document: its own title, its metadata and external id; found by either.
    const chosen: Record<string, string> = { 'HR-1': '계약직', 'HR-2': '정규직', 'HR-3': '정규직' };
    for (const r of rows) {
      const doc = expectStatus(await c.get(`/documents/${r.document_id}`), 200).body;
      expect(doc).toMatchObject({ external_id: r.external_id, title: `${['김지원', '이서연', '박민준'][r.row - 1]} 근로계약서`, metadata: { 사번: `E-000${r.row}` } });
      expect(expectStatus(await c.get(`/documents?external_id=${r.external_id}`), 200).body.data.map((d: { id: string }) => d.id)).toEqual([doc.id]);
      const bySabun = expectStatus(await c.get(`/documents?metadata[${encodeURIComponent('사번')}]=E-000${r.row}`), 200).body.data;
      expect(bySabun.map((d: { id: string }) => d.id)).toEqual([doc.id]);
      // 직원 picks the employment type, then 대표 signs.
      const [employee, representative] = doc.participants.map((p: { signing_url: string }) => p.signing_url.split('/sign/')[1]);
      const session = expectStatus(await t.http.get(`/v1/signing/${employee}`), 200).body;
      const radio = session.fields.find((f: { type: string; option?: string }) => f.type === 'radio' && f.option === chosen[r.external_id]);
      expectStatus(await t.http.post(`/v1/signing/${employee}/sign`).send({ consent: true, signature: SIGNATURE, values: { [radio.id]: true } }), 200);
      expectStatus(await t.http.post(`/v1/signing/${representative}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    }

    await deliverNow(t);
    expect(receiver.hits).toHaveLength(3);
    const seen: Record<string, { 사번: string; option: string }> = {};
    for (const hit of receiver.hits) {
      const event = await verifyWebhook(endpoint.secret, hit.headers, hit.body, { now: t.clock!.now().getTime() / 1000 });
      if (event.type !== 'document.completed') throw new Error(`unexpected ${event.type}`);
      // Typed: data.form_data, data.metadata and data.external_id are required on document.completed.
      const { metadata, external_id, form_data } = event.data;
      const radios = form_data.filter((v) => v.type === 'radio');
      expect(radios).toHaveLength(2);
      // Every button of the group says which option was chosen, and which template field it is.
      expect(new Set(radios.map((v) => v.selected?.value))).toEqual(new Set([chosen[external_id as string]]));
      expect(radios.map((v) => v.template_field_key).sort()).toEqual([TEMPLATE.fields[1].id, TEMPLATE.fields[2].id]);
      seen[external_id as string] = { 사번: metadata['사번'] as string, option: radios[0].selected!.value };
    }
    expect(seen).toEqual({
      'HR-1': { 사번: 'E-0001', option: '계약직' },
      'HR-2': { 사번: 'E-0002', option: '정규직' },
      'HR-3': { 사번: 'E-0003', option: '정규직' },
    });
  });
});
