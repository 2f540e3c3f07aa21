import { startWorker } from '@dojang/application';
import { Client, client, expectError, expectStatus } from '../support/api-helpers';
import { Built, auditOf, draftWith, expectApiError, outboxOf, sentWith, signer, tokenOf } from '../support/lifecycle';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { binary } from '../files/file-helpers';
import { bearer, startTestApp, TestApp } from '../support/test-app';

/**
 * Corrections after send, resending one request, cancel reasons (issue 21 item 7), no request
 * after a cancel (issue 25 item 6), cc without a phone (item 6) and phone formats (issue 26 item 3).
 */
describe('corrections, resends and cancel reasons', () => {
  let t: TestApp;
  let c: Client;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.createOrg('주식회사 도장')).test;
    c = client(t, key);
  });
  afterAll(() => t.close());

  const docOf = async (id: string) => expectStatus(await c.get(`/documents/${id}`), 200).body;

  describe('PATCH /v1/documents/{id}/participants/{participant_id}', () => {
    it('in a draft: an ordinary edit, the phone normalized', async () => {
      const d = await draftWith(c, [{ name: '갑', phone: '01012345678' }]);
      const res = expectStatus(await c.patch(`/documents/${d.id}/participants/${d.p['갑'].id}`, { name: '갑을', phone: '010 9876 5432', email: 'gap@example.com' }), 200).body;
      expect(res).toMatchObject({ id: d.p['갑'].id, name: '갑을', phone: '01098765432', email: 'gap@example.com', signing_url: null });
      expect((await docOf(d.id)).participants[0]).toMatchObject({ name: '갑을', phone: '01098765432' });
    });

    it('after send: the old link stops at once, the new one works and goes out to the corrected phone', async () => {
      const d = await sentWith(c, [{ name: '근로자', phone: '01011112222', auth: 'sms_pin' }]);
      const old = d.p['근로자'];
      // The PIN sent to the wrong phone must not count once the phone is corrected.
      expectStatus(await signer(t, old.token).pin(), 200);
      const res = expectStatus(await c.patch(`/documents/${d.id}/participants/${old.id}`, { phone: '+82 10-9876-5432' }), 200).body;
      expect(res.phone).toBe('01098765432');
      expect(res.signing_url).not.toBe(old.url);
      expect(res.status).toBe('pending');

      expectApiError(await signer(t, old.token).view(), 404, 'signing_link_replaced');
      expectApiError(await signer(t, old.token).sign(), 404, 'signing_link_replaced');
      const fresh = signer(t, tokenOf(res.signing_url));
      const view = expectStatus(await fresh.view(), 200).body;
      expect(view).toMatchObject({ participant: { id: old.id, phone_masked: '010-****-5432' }, pin: { requested: false } });

      const msgs = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'signing_request');
      expect(msgs.map((m) => [m.to, m.signing_url])).toEqual([
        ['01011112222', old.url],
        ['01098765432', res.signing_url],
      ]);
      // The new holder signs with a PIN sent to the new phone.
      expectStatus(await fresh.pin(), 200);
      const pin = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'pin').pop();
      expect(pin.to).toBe('01098765432');
      expectStatus(await fresh.verify(pin.pin), 200);
      expect(expectStatus(await fresh.sign(), 200).body.document.status).toBe('completed');

      const stream = await t.infra.events.readStream(`document-${d.id}`);
      const corrected = stream.find((e) => e.type === 'ParticipantCorrected');
      expect(corrected?.data).toMatchObject({ participant_id: old.id, changes: { phone: '01098765432' }, link: { version: 1 } });
      const audit = await auditOf(c, d.id);
      // The API key that made the correction is its actor, as /history and the certificate name it (issue 32 item 7).
      expect(audit.find((e) => e.event === 'corrected')).toMatchObject({ actor: expect.stringMatching(/^key_[0-9a-f]+$/), participant_id: old.id, detail: expect.stringContaining('phone → 010-****-5432') });
      const history = expectStatus(await c.get(`/documents/${d.id}/history`), 200).body;
      const entry = history.data.find((e: any) => e.type === 'ParticipantCorrected');
      expect(JSON.stringify(entry)).not.toContain('01098765432');
      expect(entry.data.link.token_hash).toBe('[redacted]');
      // One actor in all three reads: /history and the audit certificate name the same key, and
      // the signer by the same name as /audit does.
      const keyActor = audit.find((e) => e.event === 'corrected').actor as string;
      expect(entry.actor).toBe(keyActor);
      expect(history.data.find((e: any) => e.type === 'ParticipantSigned').actor).toBe(audit.find((e) => e.event === 'signed').actor);
      const certificate = pdftotext((await t.http.get(`/v1/documents/${d.id}/file?audit=true`).set(bearer(key)).buffer(true).parse(binary).expect(200)).body as Buffer);
      // The correction's row of the timeline: its actor column holds the key, whole (ids are never
      // split, issue 31), where "system" stood before.
      const lines = certificate.split('\n').map((l) => l.trim());
      const row = lines.findIndex((l) => l.startsWith('참여자 정정'));
      expect(row).toBeGreaterThan(0);
      const cell = lines.slice(row, row + 10);
      expect(cell).toContain(keyActor);
      expect(cell).not.toContain('system');
    });

    it('a participant who signed: 409 participant_already_signed, nothing recorded', async () => {
      const d = await sentWith(c, [{ name: '갑' }, { name: '을', signing_order: 2, email: 'eul@example.com' }]);
      expectStatus(await signer(t, d.p['갑'].token).sign(), 200);
      const before = (await t.infra.events.readStream(`document-${d.id}`)).length;
      expectApiError(await c.patch(`/documents/${d.id}/participants/${d.p['갑'].id}`, { name: '갑2' }), 409, 'participant_already_signed');
      expect(await t.infra.events.readStream(`document-${d.id}`)).toHaveLength(before);
      // The one not yet asked is corrected without a message: the request reaching them in order carries the new link.
      const res = expectStatus(await c.patch(`/documents/${d.id}/participants/${d.p['을'].id}`, { email: 'eul@example.org' }), 200).body;
      expect(res.signing_url).not.toBe(d.p['을'].url);
    });

    it('bad input: 400 naming the parameter; unknown participant 404', async () => {
      const d = await sentWith(c, [{ name: '갑' }]);
      expectError(await c.patch(`/documents/${d.id}/participants/${d.p['갑'].id}`, { phone: '010-abcd' }), 400, 'phone_invalid', 'phone');
      expectError(await c.patch(`/documents/${d.id}/participants/${d.p['갑'].id}`, {}), 400, 'missing_parameter');
      expectError(await c.patch(`/documents/${d.id}/participants/${d.p['갑'].id}`, { auth: 'sms_pin' }), 400, 'missing_phone', 'phone');
      expectError(await c.patch(`/documents/${d.id}/participants/${d.p['갑'].id}`, { role: 'cc' }), 400, 'invalid_parameter', 'role');
      expectError(await c.patch(`/documents/${d.id}/participants/00000000-0000-4000-8000-000000000000`, { name: 'x' }), 404, 'participant_not_found');
      // The original link still works: nothing was changed.
      expectStatus(await signer(t, d.p['갑'].token).view(), 200);
    });
  });

  describe('POST /v1/documents/{id}/participants/{participant_id}/resend', () => {
    it('sends the request again on the same link, then waits out the cooldown', async () => {
      const d = await sentWith(c, [{ name: '갑', phone: '01055556666', email: 'gap@example.com' }, { name: '을', signing_order: 2, email: 'eul@example.com' }]);
      expectStatus(await c.post(`/documents/${d.id}/participants/${d.p['갑'].id}/resend`), 200);
      const requests = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'signing_request');
      expect(requests.map((m) => `${m.channel} ${m.signing_url === d.p['갑'].url}`)).toEqual(['email true', 'sms true', 'email true', 'sms true']);
      const res = await c.post(`/documents/${d.id}/participants/${d.p['갑'].id}/resend`);
      expectApiError(res, 429, 'resend_cooldown', 'rate_limit_error');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expectApiError(await c.post(`/documents/${d.id}/participants/${d.p['을'].id}/resend`), 409, 'not_your_turn');
      expect((await auditOf(c, d.id)).filter((e) => e.event === 'resent')).toHaveLength(1);
    });
  });

  describe('POST /v1/documents/{id}/cancel with a reason', () => {
    it('the reason reaches the participants (e-mail, SMS for the phone-only, the dead link) and the record', async () => {
      const d = await sentWith(c, [{ name: '메일', email: 'mail@example.com' }, { name: '문자', phone: '01033334444' }]);
      const reason = '계약 조건이 바뀌어 새로 보내 드립니다';
      const res = expectStatus(await c.post(`/documents/${d.id}/cancel`, { reason }), 200).body;
      expect(res.status).toBe('canceled');
      const notices = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'canceled');
      expect(notices.map((m) => m.channel).sort()).toEqual(['email', 'sms']);
      for (const m of notices) expect(m.body).toContain(reason);
      const gone = expectApiError(await signer(t, d.p['문자'].token).view(), 410, 'signing_link_inactive');
      expect(gone.message).toContain(reason);
      expect((await auditOf(c, d.id)).find((e) => e.event === 'canceled')).toMatchObject({ detail: reason });
      const events = expectStatus(await c.get(`/events?document_id=${d.id}`), 200).body.data;
      expect(events.find((e: any) => e.type === 'document.canceled').data).toEqual({ document_id: d.id, reason, metadata: {}, external_id: null });
      const stream = await t.infra.events.readStream(`document-${d.id}`);
      expect(stream.find((e) => e.type === 'DocumentCanceled')?.data).toMatchObject({ reason });
    });

    it('without a body it cancels as before; an over-long reason is 400 and nothing changes', async () => {
      const d = await sentWith(c, [{ name: '갑' }]);
      expectError(await c.post(`/documents/${d.id}/cancel`, { reason: '가'.repeat(1001) }), 400, 'invalid_parameter', 'reason');
      expect((await docOf(d.id)).status).toBe('sent');
      expect(expectStatus(await c.post(`/documents/${d.id}/cancel`), 200).body.status).toBe('canceled');
    });
  });

  describe('participants', () => {
    it('a cc needs no phone and no PIN: its auth defaults to none', async () => {
      const doc = expectStatus(await c.post('/documents', { title: '근로계약서', content: '<p>본문</p>' }), 201).body;
      const cc = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '인사팀', role: 'cc', email: 'hr@example.com' }), 201).body;
      expect(cc).toMatchObject({ role: 'cc', auth: 'none', phone: null });
      const batch = expectStatus(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '참조', role: 'cc' }] }), 201).body;
      expect(batch.data[0]).toMatchObject({ auth: 'none', phone: null });
      // A signer keeps the sms_pin default and still needs a phone.
      expectError(await c.post(`/documents/${doc.id}/participants`, { name: '서명자' }), 400, 'missing_phone', 'phone');
    });

    it.each([
      ['010-1234-5678', '01012345678'],
      ['010 9876 5432', '01098765432'],
      ['+82 10-9876-5432', '01098765432'],
      ['(010) 1234.5678', '01012345678'],
      ['+1 415 555 2671', '+14155552671'],
    ])('phone %j is stored as %j', async (phone, stored) => {
      const doc = expectStatus(await c.post('/documents', { title: '계약서', content: '<p>본문</p>' }), 201).body;
      expect(expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '갑', phone }), 201).body.phone).toBe(stored);
    });

    it('a phone that is no number is refused naming the expected formats (and the batch item)', async () => {
      const doc = expectStatus(await c.post('/documents', { title: '계약서', content: '<p>본문</p>' }), 201).body;
      const err = expectError(await c.post(`/documents/${doc.id}/participants`, { name: '갑', phone: '12345' }), 400, 'phone_invalid', 'phone');
      expect(err.message).toContain('010-1234-5678');
      expect(err.message).toContain('+82 10-1234-5678');
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '갑', phone: '010-1234-5678' }, { name: '을', phone: 'abc' }] }), 400, 'phone_invalid', 'participants[1].phone');
    });
  });
});

describe('no signing request after a cancel (issue 25 item 6)', () => {
  let t: TestApp;
  let c: Client;

  beforeAll(async () => {
    // No worker yet: the send and the cancel are both in the log before the notifier sees the send.
    t = await startTestApp({ worker: false });
    c = client(t, (await t.createOrg('주식회사 도장')).test);
  });
  afterAll(() => t.close());

  it('a cancel right after send suppresses the pending requests; the cancel notice still goes out', async () => {
    const d: Built = await sentWith(c, [{ name: '갑', email: 'gap@example.com', phone: '01012345678' }]);
    expectStatus(await c.post(`/documents/${d.id}/cancel`, { reason: '잘못 보냈습니다' }), 200);
    const worker = await startWorker(t.infra, { retrySleep: async () => undefined });
    try {
      await t.infra.runner.catchUp();
      await worker.runner.catchUp();
      const res = expectStatus(await c.get(`/outbox?document_id=${d.id}&limit=100`), 200);
      expect((res.body.data as any[]).map((m) => `${m.kind} ${m.channel}`).sort()).toEqual(['canceled email']);
    } finally {
      await worker.stop();
    }
  });
});
