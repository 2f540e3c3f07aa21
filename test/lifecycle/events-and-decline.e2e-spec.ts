import { Client, client, expectStatus } from '../support/api-helpers';
import { Built, eventTypesOf, expectApiError, outboxOf, sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

describe('public events and decline', () => {
  let t: TestApp;
  let c: Client;
  let other: Client;
  let live: Client;
  /** completed by two signers */
  let done: Built;
  /** canceled */
  let canceled: Built;
  /** declined by its first signer */
  let declined: Built;
  /** every event of the organization in the order the actions were taken */
  const expected: Array<[string, () => string]> = [];

  beforeAll(async () => {
    t = await startTestApp();
    const org = await t.createOrg();
    c = client(t, org.test);
    live = client(t, org.live);
    other = client(t, (await t.createOrg('남의회사')).test);

    done = await sentWith(c, [{ name: 'A' }, { name: 'B' }]);
    expected.push(['document.sent', () => done.id]);
    for (const name of ['A', 'B']) {
      expectStatus(await signer(t, done.p[name].token).view(), 200);
      expected.push(['document.viewed', () => done.id]);
      expectStatus(await signer(t, done.p[name].token).sign(), 200);
      expected.push(['participant.signed', () => done.id]);
    }
    expected.push(['document.completed', () => done.id]);

    canceled = await sentWith(c, [{ name: 'A' }]);
    expected.push(['document.sent', () => canceled.id]);
    expectStatus(await c.post(`/documents/${canceled.id}/cancel`), 200);
    expected.push(['document.canceled', () => canceled.id]);

    declined = await sentWith(c, [
      { name: '거절자', auth: 'sms_pin', phone: '01033334444', email: 'no@example.com', signing_order: 1 },
      { name: '동료', email: 'peer@example.com', signing_order: 1 },
      { name: '대기자', email: 'wait@example.com', signing_order: 2 },
      { name: '참조', role: 'cc', email: 'cc@example.com' },
    ]);
    expected.push(['document.sent', () => declined.id]);
  });
  afterAll(() => t.close());

  describe('decline', () => {
    it('needs the PIN (for sms_pin) and a non-empty reason', async () => {
      const s = signer(t, declined.p['거절자'].token);
      expectStatus(await s.view(), 200);
      expected.push(['document.viewed', () => declined.id]);
      expectApiError(await s.decline(), 409, 'pin_verification_required');
      expectStatus(await s.pin(), 200);
      const pin = (await outboxOf(t, c, declined.id, `&participant_id=${declined.p['거절자'].id}&channel=sms`)).find((m) => m.kind === 'pin').pin;
      expectStatus(await s.verify(pin), 200);
      expectApiError(await s.decline('   '), 400, 'missing_parameter');
      expectApiError(await t.http.post(`/v1/signing/${declined.p['거절자'].token}/decline`).send({}), 400, 'missing_parameter');
      expect(expectStatus(await c.get(`/documents/${declined.id}`), 200).body.status).toBe('sent');
    });

    it('emits participant.declined and document.declined; the document is declined', async () => {
      const res = expectStatus(await signer(t, declined.p['거절자'].token).decline('금액이 다릅니다'), 200).body;
      expected.push(['participant.declined', () => declined.id], ['document.declined', () => declined.id]);
      expect(res).toMatchObject({ document: { id: declined.id, status: 'declined' }, participant: { id: declined.p['거절자'].id, status: 'declined' } });

      const doc = expectStatus(await c.get(`/documents/${declined.id}`), 200).body;
      expect(doc.status).toBe('declined');
      expect(doc.completed_at).toBeNull();
      const who = doc.participants.find((p: any) => p.name === '거절자');
      expect(who).toMatchObject({ status: 'declined', declined_at: expect.any(String), signing_url: null });
      expect(doc.participants.every((p: any) => p.signing_url === null)).toBe(true);

      expect(await eventTypesOf(c, declined.id)).toEqual(['document.sent', 'document.viewed', 'participant.declined', 'document.declined']);
      const pd = expectStatus(await c.get(`/events?type=participant.declined&document_id=${declined.id}`), 200).body.data[0];
      expect(pd.data).toMatchObject({ document_id: declined.id, participant_id: declined.p['거절자'].id, reason: '금액이 다릅니다' });
      expect(expectStatus(await c.get(`/documents?status=declined`), 200).body.data.map((x: any) => x.id)).toEqual([declined.id]);
    });

    it('then every link is inactive (410), and cancel and remind are refused', async () => {
      for (const name of ['거절자', '동료', '대기자', '참조']) {
        const s = signer(t, declined.p[name].token);
        expectApiError(await s.view(), 410, 'signing_link_inactive');
        expectApiError(await s.sign(), 410, 'signing_link_inactive');
        expectApiError(await s.decline(), 410, 'signing_link_inactive');
      }
      expectApiError(await c.post(`/documents/${declined.id}/cancel`), 409, 'document_not_cancelable');
      expectApiError(await c.post(`/documents/${declined.id}/remind`), 409, 'document_not_signable');
    });

    it('tells by e-mail only the people who had been asked to act (the decliner\'s order): not the next order, not the cc', async () => {
      const msgs = await outboxOf(t, c, declined.id, '&channel=email');
      const byKind = msgs.map((m) => `${m.kind} ${m.to}`).sort();
      expect(byKind).toEqual(['declined no@example.com', 'declined peer@example.com', 'signing_request no@example.com', 'signing_request peer@example.com']);
      for (const m of msgs.filter((x) => x.kind === 'declined')) expect(m.signing_url).toBeNull();
    });

    it('cancel of an ordered document likewise tells only the order that had been asked, and whoever opened a link', async () => {
      const d = await sentWith(c, [
        { name: 'first', email: 'first@example.com', signing_order: 1 },
        { name: 'second', email: 'second@example.com', signing_order: 2 },
        { name: 'third', email: 'third@example.com', signing_order: 3 },
        { name: 'copy', role: 'cc', email: 'copy@example.com' },
      ]);
      expectStatus(await signer(t, d.p.first.token).sign(), 200);
      expectStatus(await signer(t, d.p.copy.token).view(), 200);
      expectStatus(await c.post(`/documents/${d.id}/cancel`), 200);
      const msgs = (await outboxOf(t, c, d.id)).map((m) => `${m.kind} ${m.to}`).sort();
      expect(msgs).toEqual([
        'canceled copy@example.com',
        'canceled first@example.com',
        'canceled second@example.com',
        'signing_request first@example.com',
        'signing_request second@example.com',
      ]);
      // these events are not part of `expected` (they'd make the list order depend on this test)
      // (signing straight away records the open first)
      expected.push(['document.sent', () => d.id], ['document.viewed', () => d.id], ['participant.signed', () => d.id], ['document.viewed', () => d.id], ['document.canceled', () => d.id]);
    });
  });

  describe('GET /events', () => {
    const list = async (q = '') => expectStatus(await c.get(`/events${q}`), 200).body;
    const all = async () => (await list('?limit=100')).data as any[];

    it('lists the organization\'s events newest first, each with id, object, type, created_at and data.document_id', async () => {
      const body = await list('?limit=100');
      expect(body).toMatchObject({ object: 'list', has_more: false });
      expect(body.data.map((e: any) => [e.type, e.data.document_id])).toEqual([...expected].reverse().map(([type, id]) => [type, id()]));
      for (const e of body.data) {
        expect(e).toEqual({ id: expect.stringMatching(/^evt_[0-9a-f]{32}$/), object: 'event', type: expect.any(String), created_at: expect.any(String), livemode: false, data: expect.objectContaining({ document_id: expect.any(String) }) });
      }
      const times = body.data.map((e: any) => Date.parse(e.created_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      // default page size is 20
      expect((await list()).data).toHaveLength(Math.min(20, expected.length));
    });

    it('filters by type and by document_id, alone and together', async () => {
      const ofType = (type: string) => expected.filter(([x]) => x === type).map(([, id]) => id()).reverse();
      for (const type of ['document.sent', 'document.viewed', 'participant.signed', 'document.completed', 'document.canceled', 'participant.declined', 'document.declined']) {
        const got = (await list(`?type=${type}&limit=100`)).data;
        expect(got.every((e: any) => e.type === type)).toBe(true);
        expect(got.map((e: any) => e.data.document_id)).toEqual(ofType(type));
      }
      const signed = (await list(`?type=participant.signed&document_id=${done.id}`)).data;
      expect(signed.map((e: any) => e.data.participant_id)).toEqual([done.p.B.id, done.p.A.id]);
      expect((await list(`?document_id=${canceled.id}`)).data.map((e: any) => e.type)).toEqual(['document.canceled', 'document.sent']);
      expect((await list(`?document_id=${canceled.id.toUpperCase()}`)).data).toHaveLength(2);
      expect((await list(`?document_id=${done.id}&type=document.viewed`)).data).toHaveLength(2);
      expect((await list(`?document_id=${canceled.id}&type=document.completed`)).data).toEqual([]);
      expect((await list('?document_id=00000000-0000-4000-8000-000000000000')).data).toEqual([]);
      expectApiError(await c.get('/events?type=document.exploded'), 400, 'invalid_parameter');
    });

    it('accepts a limit of 1 to 100 and nothing else', async () => {
      const one = await list('?limit=1');
      expect(one.data).toHaveLength(1);
      expect(one.has_more).toBe(true);
      expect((await list('?limit=100')).data).toHaveLength(expected.length);
      for (const bad of ['0', '101', '-1', 'abc', '1.5', '', '1e2']) {
        const err = expectApiError(await c.get(`/events?limit=${bad}`), 400, 'invalid_parameter');
        expect(err.param).toBe('limit');
      }
    });

    it('pages with starting_after, and the pages add up to the whole list', async () => {
      const whole = await all();
      const paged: any[] = [];
      let cursor = '';
      for (;;) {
        const page = await list(`?limit=5${cursor ? `&starting_after=${cursor}` : ''}`);
        paged.push(...page.data);
        if (!page.has_more) break;
        cursor = page.data[page.data.length - 1].id;
      }
      expect(paged).toEqual(whole);
      const perDoc = await list(`?document_id=${done.id}&limit=2&starting_after=${whole.find((e) => e.type === 'document.completed').id}`);
      expect(perDoc.data.map((e: any) => e.type)).toEqual(['participant.signed', 'document.viewed']);
      expect(perDoc.has_more).toBe(true);
      const foreign = (await other.get('/events')).body;
      expect(foreign.data).toEqual([]);
      expectApiError(await c.get('/events?starting_after=evt_00000000000000000000000000000000'), 400, 'invalid_parameter');
    });

    it('GET /events/{id} returns one event of the organization; others get 404', async () => {
      const whole = await all();
      for (const e of whole) expect(expectStatus(await c.get(`/events/${e.id}`), 200).body).toEqual(e);
      const id = whole[0].id;
      expectApiError(await other.get(`/events/${id}`), 404, 'event_not_found');
      expectApiError(await live.get(`/events/${id}`), 404, 'event_not_found');
      expectApiError(await c.get('/events/evt_00000000000000000000000000000000'), 404, 'event_not_found');
      expectApiError(await other.get(`/events?starting_after=${id}`), 400, 'invalid_parameter');
      expect(expectStatus(await live.get('/events'), 200).body.data).toEqual([]);
    });

    it('per document: document.sent, document.viewed, participant.signed…, document.completed, with their data', async () => {
      expect(await eventTypesOf(c, done.id)).toEqual(['document.sent', 'document.viewed', 'participant.signed', 'document.viewed', 'participant.signed', 'document.completed']);
      const doc = expectStatus(await c.get(`/documents/${done.id}`), 200).body;
      const events = [...(await list(`?document_id=${done.id}`)).data].reverse();
      // Every document event carries what maps it back: the document's metadata and external id (issue 32).
      const mapBack = { metadata: {}, external_id: null };
      expect(events[0].data).toEqual({ ...mapBack, document_id: done.id, expires_at: doc.expires_at });
      expect(events[1].data).toEqual({ ...mapBack, document_id: done.id, participant_id: done.p.A.id });
      expect(events[2].data).toEqual({ ...mapBack, document_id: done.id, participant_id: done.p.A.id, signed_at: doc.participants[0].signed_at });
      expect(events[4].data).toEqual({ ...mapBack, document_id: done.id, participant_id: done.p.B.id, signed_at: doc.participants[1].signed_at });
      expect(events[5].data).toEqual({ ...mapBack, document_id: done.id, completed_at: doc.completed_at, form_data: [] });
    });
  });
});
