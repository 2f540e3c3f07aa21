import { API_TEST_OPTIONS, client, Client, expectStatus } from '../support/api-helpers';
import { describeOnEachStore, useTestAppOn } from '../support/each-store';
import { outboxOf, sentWith, signer } from '../support/lifecycle';
import { bearer, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';
import { pdftotext } from '@dojang/pdf/testing/poppler';

/**
 * A participant's phone comes back twice (issue 32 item 1 with SPEC's "digits only"): `phone` as
 * stored — a Korean mobile as its domestic digits, another country's number in E.164 — and
 * `phone_e164`, the same number always in E.164, wherever the API shows it unmasked: a participant
 * added alone or in a batch, the document and its lists, a correction's answer, a signature request
 * from a template and the documents a bulk send made. What auditors read masked gains no E.164.
 * On both stores: the answer is read back from each store's read model.
 */
describeOnEachStore('a participant\'s phone as stored and in E.164', (store) => {
  const t = useTestAppOn(store, API_TEST_OPTIONS);
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg('주식회사 전화');
    c = client(t, org.test);
  });

  /** [as written, phone (stored), phone_e164]: three international mobiles and a Korean one. */
  const NUMBERS: Array<[string, string, string]> = [
    ['+1 415 555 2671', '+14155552671', '+14155552671'],
    ['+81 90-1234-5678', '+819012345678', '+819012345678'],
    ['+84 91 234 56 78', '+84912345678', '+84912345678'],
    ['010-1234-5678', '01012345678', '+821012345678'],
  ];
  const phones = (participants: Array<{ name: string; phone: string | null; phone_e164: string | null }>) =>
    Object.fromEntries(participants.map((p) => [p.name, [p.phone, p.phone_e164]]));

  it('answers phone and phone_e164 for a participant added alone or in a batch, on the document, the document list and a correction', async () => {
    const doc = expectStatus(await c.post('/documents', { title: '해외 근로계약서', content: '<p>본문</p>' }), 201).body;
    for (const [i, [written, stored, e164]] of NUMBERS.entries()) {
      const added = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: `단건${i}`, auth: 'sms_pin', phone: written }), 201).body;
      expect([added.phone, added.phone_e164]).toEqual([stored, e164]);
    }
    const batch = expectStatus(await c.post(`/documents/${doc.id}/participants/batch`, { participants: NUMBERS.map(([written], i) => ({ name: `일괄${i}`, auth: 'sms_pin', phone: written })) }), 201).body;
    expect(batch.data.map((p: { phone: string; phone_e164: string }) => [p.phone, p.phone_e164])).toEqual(NUMBERS.map(([, stored, e164]) => [stored, e164]));
    const noPhone = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '메일만', auth: 'none', email: 'mail@example.com' }), 201).body;
    expect([noPhone.phone, noPhone.phone_e164]).toEqual([null, null]);

    const expected = {
      ...Object.fromEntries(NUMBERS.flatMap(([, stored, e164], i) => [[`단건${i}`, [stored, e164]], [`일괄${i}`, [stored, e164]]])),
      메일만: [null, null],
    };
    expect(phones(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.participants)).toEqual(expected);
    const listed = expectStatus(await c.get('/documents'), 200).body.data.find((d: { id: string }) => d.id === doc.id);
    expect(phones(listed.participants)).toEqual(expected);

    // A correction on the draft answers both forms; a blank phone removes both.
    const [first] = batch.data;
    const corrected = expectStatus(await c.patch(`/documents/${doc.id}/participants/${first.id}`, { phone: '+82 10-9876-5432' }), 200).body;
    expect([corrected.phone, corrected.phone_e164]).toEqual(['01098765432', '+821098765432']);
    const abroad = expectStatus(await c.patch(`/documents/${doc.id}/participants/${noPhone.id}`, { phone: '+81 90-1234-5678' }), 200).body;
    expect([abroad.phone, abroad.phone_e164]).toEqual(['+819012345678', '+819012345678']);
    const removed = expectStatus(await c.patch(`/documents/${doc.id}/participants/${noPhone.id}`, { phone: '' }), 200).body;
    expect([removed.phone, removed.phone_e164]).toEqual([null, null]);

    // After send, a correction (a new link) answers both too.
    const sent = await sentWith(c, [{ name: '김부장', phone: '+1 415 555 2671' }]);
    expect(phones(sent.doc.participants)).toEqual({ 김부장: ['+14155552671', '+14155552671'] });
    const fixed = expectStatus(await c.patch(`/documents/${sent.id}/participants/${sent.p['김부장'].id}`, { phone: '010 2222 3333' }), 200).body;
    expect([fixed.phone, fixed.phone_e164]).toEqual(['01022223333', '+821022223333']);
  });

  it('answers both forms for a signature request from a template and for the documents of a bulk send', async () => {
    const template = expectStatus(
      await c.post('/templates', {
        name: '근로계약서',
        content: '<p>{{ 성명 }}</p>',
        roles: [
          { role: '직원', auth: 'sms_pin' },
          { role: '대표', signing_order: 2, auth: 'none' },
        ],
        fields: [
          { role: '직원', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 },
          { role: '대표', type: 'signature', page: 1, x: 60, y: 80, width: 30, height: 8 },
        ],
      }),
      201,
    ).body;
    const roles = (phone: string) => ({ 직원: { name: '직원', phone }, 대표: { name: '대표', email: 'ceo@example.com', phone: '010-5555-6666' } });
    for (const [i, [written, stored, e164]] of NUMBERS.entries()) {
      const res = await t.http.post('/v1/signature_requests').set(bearer(org.test)).set('Idempotency-Key', `e164-${i}`).send({ template_id: template.id, roles: roles(written), variables: { 성명: '직원' } });
      expect(phones(expectStatus(res, 201).body.participants)).toEqual({ 직원: [stored, e164], 대표: ['01055556666', '+821055556666'] });
    }

    const rows = NUMBERS.map(([written], i) => ({ roles: roles(written), variables: { 성명: '직원' }, external_id: `E164-${i}` }));
    const job = expectStatus(await c.post('/bulk_sends', { template_id: template.id, rows }), 200).body;
    for (let i = 0; i < 600 && expectStatus(await c.get(`/bulk_sends/${job.id}`), 200).body.status === 'running'; i++) {
      await t.worker!.runner.catchUp();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const made = expectStatus(await c.get(`/bulk_sends/${job.id}/rows`), 200).body.data;
    expect(made.map((r: { state: string; external_id: string }) => [r.state, r.external_id])).toEqual(NUMBERS.map((_, i) => ['sent', `E164-${i}`]));
    for (const r of made) {
      const [, stored, e164] = NUMBERS[Number(r.external_id.split('-')[1])];
      expect(phones(expectStatus(await c.get(`/documents/${r.document_id}`), 200).body.participants)).toEqual({ 직원: [stored, e164], 대표: ['01055556666', '+821055556666'] });
    }
  });

  it('adds no unmasked E.164 where auditors read masked: /history, /audit, the events and the certificate', async () => {
    const auditor = client(t, (await t.admin.issueKey(org.id, 'test', 'auditor')).secret);
    const sent = await sentWith(c, [
      { name: '스미스', phone: '+1 415 555 2671', auth: 'sms_pin' },
      { name: '김지원', phone: '010-1234-5678', auth: 'sms_pin', signing_order: 2 },
    ]);
    for (const name of ['스미스', '김지원']) {
      const s = signer(t, sent.p[name].token);
      expectStatus(await s.pin(), 200);
      const pin = (await outboxOf(t, c, sent.id, `&participant_id=${sent.p[name].id}`)).filter((m) => m.kind === 'pin').pop();
      expectStatus(await s.verify(pin.pin), 200);
      expectStatus(await s.sign(), 200);
    }
    await outboxOf(t, c, sent.id);
    // The national numbers: neither the stored form nor the E.164 form may show whole.
    const whole = ['4155552671', '1012345678'];
    const read = async (path: string) => JSON.stringify(expectStatus(await auditor.get(path), 200).body);
    const masked = [await read(`/documents/${sent.id}/history?limit=100`), await read(`/documents/${sent.id}/audit`), await read(`/events?document_id=${sent.id}&limit=100`)];
    const certificate = (await t.http.get(`/v1/documents/${sent.id}/file?audit=true`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
    masked.push(pdftotext(certificate));
    for (const text of masked) {
      expect(text).not.toContain('phone_e164');
      for (const digits of whole) expect(text).not.toContain(digits);
    }
    // Each of them did name the PIN's phone, masked.
    expect(masked[1]).toMatch(/\*{2,}/);
    expect(masked[3]).toMatch(/\*{2,}/);
  });
});
