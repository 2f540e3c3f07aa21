import { ManualClock } from '@dojang/application';
import { Client, client, expectStatus } from '../support/api-helpers';
import { Built, auditOf, draftWith, expectApiError, outboxOf, sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

/** What the audit names for an act of the API (issue 32 item 7: the key, as /history and the certificate do; not "system"). */
const API_KEY = expect.stringMatching(/^key_[0-9a-f]+$/);

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;

const KIM = { phone: '01012345678', email: 'kim.chulsoo@example.com' };
const LEE = { phone: '01098765432', email: 'lee.younghee@example.com' };

describe('audit trail and reminders', () => {
  let t: TestApp;
  let clock: ManualClock;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true });
    clock = t.clock!;
    c = client(t, (await t.createOrg()).test);
  });
  afterAll(() => t.close());

  /** Personal data must never leave the audit endpoint unmasked. */
  const expectMasked = (audit: unknown) => {
    const text = JSON.stringify(audit);
    for (const secret of [KIM.phone, LEE.phone, KIM.email, LEE.email, '12345678', '98765432', 'kim.chulsoo', 'lee.younghee']) {
      expect(text).not.toContain(secret);
    }
  };

  describe('GET /documents/{id}/audit', () => {
    it('a draft has only its creation', async () => {
      const d = await draftWith(c, [{ name: '김철수', ...KIM }]);
      const audit = expectStatus(await c.get(`/documents/${d.id}/audit`), 200).body;
      expect(audit.object).toBe('list');
      expect(audit.data.map((e: any) => [e.event, e.actor])).toEqual([['created', API_KEY]]);
      expectMasked(audit);
    });

    it('records every action of a completed document in time order, with who, when, IP and the masked phone', async () => {
      const d = await sentWith(c, [
        { name: '김철수', auth: 'sms_pin', ...KIM, signing_order: 1 },
        { name: '이영희', auth: 'none', ...LEE, signing_order: 2 },
      ]);
      const kim = signer(t, d.p['김철수'].token);
      const lee = signer(t, d.p['이영희'].token);
      const step = () => clock.advance(MINUTE);
      const times: string[] = [];
      const mark = () => times.push(clock.now().toISOString());
      // created and sent happened at the same instant (sentWith)
      mark();
      mark();
      step(), mark(), expectStatus(await kim.view(), 200);
      step(), mark(), expectStatus(await kim.pin(), 200);
      const pin = (await outboxOf(t, c, d.id, `&channel=sms&participant_id=${d.p['김철수'].id}`)).find((m) => m.kind === 'pin').pin;
      step(), mark(), expectApiError(await kim.verify(pin.slice(0, 5) + String((Number(pin[5]) + 1) % 10)), 400, 'pin_incorrect');
      step(), mark(), expectStatus(await kim.verify(pin), 200);
      step(), mark(), expectStatus(await kim.sign(), 200);
      step(), mark(), expectStatus(await c.post(`/documents/${d.id}/remind`), 200);
      step(), mark(), expectStatus(await lee.view(), 200);
      step(), mark(), mark(), expectStatus(await lee.sign(), 200);

      const audit = await auditOf(c, d.id);
      expect(audit.map((e) => [e.event, e.actor])).toEqual([
        ['created', API_KEY],
        ['sent', API_KEY],
        ['viewed', '김철수'],
        ['pin_sent', '김철수'],
        ['pin_failed', '김철수'],
        ['pin_verified', '김철수'],
        ['signed', '김철수'],
        ['reminded', API_KEY],
        ['viewed', '이영희'],
        ['signed', '이영희'],
        ['completed', '이영희'],
      ]);
      expect(audit.map((e) => e.at)).toEqual(times);

      const [, , viewed, pinSent, pinFailed, pinVerified, kimSigned, reminded, leeViewed, leeSigned, completed] = audit;
      for (const e of [viewed, pinFailed, pinVerified, kimSigned, leeViewed, leeSigned]) expect(e.ip).toMatch(/127\.0\.0\.1|::1/);
      expect(viewed.participant_id).toBe(d.p['김철수'].id);
      expect(kimSigned.auth_phone).toBe('010-****-5678');
      expect(leeSigned.auth_phone).toBeNull();
      expect(pinSent.detail).toBe('PIN sent to 010-****-5678');
      expect(pinFailed.detail).toBe('wrong PIN (1 failed)');
      expect(reminded.detail).toBe('manual reminder to 이영희');
      const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
      expect(completed.detail).toBe(`final PDF sha256 ${doc.final_pdf_sha256}`);
      expect(completed.at).toBe(doc.completed_at);
      for (const e of audit) {
        expect(Object.keys(e).every((k) => ['object', 'event', 'actor', 'at', 'ip', 'user_agent', 'auth_phone', 'participant_id', 'detail'].includes(k))).toBe(true);
      }
      expectMasked(audit);

      // the audit certificate bundled with the PDF is built from the same trail
      const plain = await c.get(`/documents/${d.id}/file`);
      const withAudit = await c.get(`/documents/${d.id}/file?audit=true`);
      expect(withAudit.status).toBe(200);
      expect(withAudit.headers['content-type']).toBe('application/pdf');
      expect(Number(withAudit.headers['content-length'])).toBeGreaterThan(Number(plain.headers['content-length']));
      expect(withAudit.body.subarray(0, 5).toString()).toBe('%PDF-');
    });

    it('records a decline with the participant, IP and reason, contact data in the reason masked too', async () => {
      const d = await sentWith(c, [{ name: '이영희', auth: 'none', ...LEE }]);
      clock.advance(MINUTE);
      const reason = `연락처 ${LEE.phone} 또는 010-9876-5432, ${LEE.email} 으로 주세요. 금액 100000000원, 2026-03-02 기준`;
      expectStatus(await signer(t, d.p['이영희'].token).decline(reason), 200);
      const audit = await auditOf(c, d.id);
      expect(audit.map((e) => [e.event, e.actor])).toEqual([
        ['created', API_KEY],
        ['sent', API_KEY],
        ['viewed', '이영희'],
        ['declined', '이영희'],
      ]);
      expect(audit[3].ip).toEqual(expect.any(String));
      expect(audit[3].detail).toBe('연락처 010-****-5432 또는 010-****-5432, l***********@example.com 으로 주세요. 금액 100000000원, 2026-03-02 기준');
      expectMasked(audit);
      // the integrator (who knows the participant's contacts anyway) still gets the reason as written
      const declined = expectStatus(await c.get(`/events?type=participant.declined&document_id=${d.id}`), 200).body.data[0];
      expect(declined.data.reason).toBe(reason);
    });

    it('records a cancel as the API key\'s action', async () => {
      const d = await sentWith(c, [{ name: '김철수', ...KIM }]);
      clock.advance(MINUTE);
      expectStatus(await c.post(`/documents/${d.id}/cancel`), 200);
      const audit = await auditOf(c, d.id);
      expect(audit.map((e) => [e.event, e.actor])).toEqual([
        ['created', API_KEY],
        ['sent', API_KEY],
        ['canceled', API_KEY],
      ]);
      expect(Date.parse(audit[2].at) - Date.parse(audit[1].at)).toBe(MINUTE);
      expectMasked(audit);
    });
  });

  describe('POST /documents/{id}/remind', () => {
    let d: Built;
    const reminders = async () => (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'reminder');

    beforeAll(async () => {
      d = await sentWith(c, [
        { name: '김철수', ...KIM, auth: 'none', signing_order: 1 },
        { name: '박민수', phone: '01055556666', auth: 'none', signing_order: 1 },
        { name: '이영희', ...LEE, auth: 'none', signing_order: 2 },
        { name: '참조', role: 'cc', email: 'cc@example.com' },
      ]);
    });

    it('re-notifies the participants whose turn it is, on every channel they have, with their own link', async () => {
      expectStatus(await signer(t, d.p['박민수'].token).view(), 200); // viewed but not signed: still pending
      const res = expectStatus(await c.post(`/documents/${d.id}/remind`), 200).body;
      expect(res).toMatchObject({ object: 'reminder', document_id: d.id });
      expect([...res.participant_ids].sort()).toEqual([d.p['김철수'].id, d.p['박민수'].id].sort());
      const msgs = await reminders();
      expect(msgs.map((m) => `${m.channel} ${m.to}`).sort()).toEqual(['email kim.chulsoo@example.com', 'sms 01012345678', 'sms 01055556666']);
      for (const m of msgs) {
        const name = m.participant_id === d.p['김철수'].id ? '김철수' : '박민수';
        expect(m.signing_url).toBe(d.p[name].url);
        expect(m.body).toContain(d.p[name].url);
      }
    });

    it('is limited by a per-document cooldown (429 reminder_cooldown)', async () => {
      const refused = await c.post(`/documents/${d.id}/remind`);
      const err = expectApiError(refused, 429, 'reminder_cooldown', 'rate_limit_error');
      expect(err.message).toMatch(/3600 seconds/);
      expect(refused.headers['retry-after']).toBe('3600');
      clock.advance(HOUR - 1000);
      const later = await c.post(`/documents/${d.id}/remind`);
      expectApiError(later, 429, 'reminder_cooldown');
      expect(later.headers['retry-after']).toBe('1');
      expect(await reminders()).toHaveLength(3);
      clock.advance(1000);
      expectStatus(await c.post(`/documents/${d.id}/remind`), 200);
      expect(await reminders()).toHaveLength(6);
    });

    it('follows the signing order: once order 1 has signed, only order 2 is reminded', async () => {
      expectStatus(await signer(t, d.p['김철수'].token).sign(), 200);
      expectStatus(await signer(t, d.p['박민수'].token).sign(), 200);
      clock.advance(HOUR);
      const before = (await reminders()).length;
      const res = expectStatus(await c.post(`/documents/${d.id}/remind`), 200).body;
      expect(res.participant_ids).toEqual([d.p['이영희'].id]);
      const fresh = (await reminders()).slice(before);
      expect(fresh.map((m) => `${m.channel} ${m.to}`).sort()).toEqual(['email lee.younghee@example.com', 'sms 01098765432']);
      expect((await auditOf(c, d.id)).filter((e) => e.event === 'reminded').map((e) => e.detail)).toEqual([
        'manual reminder to 김철수, 박민수',
        'manual reminder to 김철수, 박민수',
        'manual reminder to 이영희',
      ]);
    });

    it('is refused once nobody can act: completed, canceled or draft documents give 409 document_not_signable', async () => {
      expectStatus(await signer(t, d.p['이영희'].token).sign(), 200);
      clock.advance(HOUR);
      expectApiError(await c.post(`/documents/${d.id}/remind`), 409, 'document_not_signable');

      const canceled = await sentWith(c, [{ name: 'A', auth: 'none', email: 'a@example.com' }]);
      expectStatus(await c.post(`/documents/${canceled.id}/cancel`), 200);
      expectApiError(await c.post(`/documents/${canceled.id}/remind`), 409, 'document_not_signable');

      const draft = await draftWith(c, [{ name: 'A', auth: 'none', email: 'a@example.com' }]);
      expectApiError(await c.post(`/documents/${draft.id}/remind`), 409, 'document_not_signable');

      expect((await outboxOf(t, c, canceled.id)).filter((m) => m.kind === 'reminder')).toEqual([]);
      expect((await outboxOf(t, c, draft.id))).toEqual([]);
      expectApiError(await c.post('/documents/00000000-0000-4000-8000-000000000000/remind'), 404, 'document_not_found');
    });
  });
});
