import { Client, client, expectStatus } from '../support/api-helpers';
import { Built, SIGNATURE, eventTypesOf, expectApiError, outboxOf, sentWith, signer, solidPng } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

/** Roles (signer, reviewer, cc), signing order, notifications in order, and completion. */
describe('roles, signing order and completion', () => {
  let t: TestApp;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp();
    c = client(t, (await t.createOrg('주식회사 도장')).test);
  });
  afterAll(() => t.close());

  /** The outbox of a document as "kind channel name" lines, oldest first, sorted within equal times. */
  const sentSoFar = async (d: Built): Promise<string[]> => {
    const names = new Map(Object.values(d.p).map((p) => [p.id, p.name]));
    return (await outboxOf(t, c, d.id)).map((m) => `${m.kind} ${m.channel} ${names.get(m.participant_id)}`).sort();
  };

  describe('an ordered document: signer(1) → reviewer(2) → two signers in parallel(3), with a cc', () => {
    let d: Built;
    const seen: string[] = [];
    const newMessages = async () => {
      const all = await sentSoFar(d);
      const fresh = [...all];
      for (const m of seen) fresh.splice(fresh.indexOf(m), 1);
      seen.splice(0, seen.length, ...all);
      return fresh.sort();
    };
    const s = (name: string) => signer(t, d.p[name].token);

    beforeAll(async () => {
      d = await sentWith(c, [
        { name: '갑', signing_order: 1, email: 'gap@example.com', phone: '01011110001' },
        { name: '검토', role: 'reviewer', signing_order: 2, email: 'review@example.com' },
        { name: '을', signing_order: 3, email: 'eul@example.com' },
        { name: '병', signing_order: 3, phone: '01011110003' },
        { name: '참조', role: 'cc', signing_order: 1, email: 'cc@example.com', phone: '01011110004' },
      ]);
    });

    it('at send only the first order is asked to sign (e-mail and SMS); the cc is not asked at all', async () => {
      expect(await newMessages()).toEqual(['signing_request email 갑', 'signing_request sms 갑']);
      const msgs = await outboxOf(t, c, d.id, `&participant_id=${d.p['갑'].id}`);
      expect(msgs.map((m) => m.signing_url)).toEqual([d.p['갑'].url, d.p['갑'].url]);
      expect(msgs.find((m) => m.channel === 'email').to).toBe('gap@example.com');
      expect(msgs.find((m) => m.channel === 'sms').to).toBe('01011110001');
    });

    it('everyone else acting out of turn gets 409 not_your_turn; the cc can never sign', async () => {
      for (const name of ['검토', '을', '병']) {
        const view = expectStatus(await s(name).view(), 200).body;
        expect(view).toMatchObject({ your_turn: false, can_sign: false, waiting_for_others: true });
        const body = name === '검토' ? { consent: true } : undefined;
        expectApiError(await s(name).sign(body), 409, 'not_your_turn');
      }
      const cc = expectStatus(await s('참조').view(), 200).body;
      expect(cc).toMatchObject({ your_turn: false, can_sign: false, fields: [] });
      expectApiError(await s('참조').sign({ consent: true }), 409, 'participant_cannot_sign');
      expectApiError(await s('참조').decline(), 409, 'participant_cannot_sign');
      expect(await newMessages()).toEqual([]);
    });

    it('a signer needs consent and a signature image', async () => {
      expect(expectStatus(await s('갑').view(), 200).body).toMatchObject({ your_turn: true, can_sign: true });
      expectApiError(await s('갑').sign({ consent: false, signature: SIGNATURE }), 400, 'consent_required');
      expectApiError(await s('갑').sign({ consent: true }), 400, 'missing_parameter');
      expectApiError(await s('갑').sign({ signature: SIGNATURE }), 400, 'missing_parameter');
      expectApiError(await s('갑').sign({ consent: true, signature: 'data:image/png;base64,AAAA' }), 415, 'unsupported_file_type');
      expect((await t.infra.events.readStream(`document-${d.id}`)).filter((e) => e.type === 'ParticipantSigned')).toEqual([]);
    });

    it('order 1 signs → only the reviewer (order 2) is asked next', async () => {
      expectStatus(await s('갑').sign(), 200);
      expect(await newMessages()).toEqual(['signing_request email 검토']);
      for (const name of ['을', '병']) expectApiError(await s(name).sign(), 409, 'not_your_turn');
    });

    it('the reviewer confirms with consent only: no signature field, no signature image', async () => {
      const view = expectStatus(await s('검토').view(), 200).body;
      expect(view).toMatchObject({ fields: [], can_sign: true });
      expect(view.participant.role).toBe('reviewer');
      expectApiError(await s('검토').sign({ consent: true, signature: SIGNATURE }), 400, 'invalid_parameter');
      expectApiError(await s('검토').sign({ consent: false }), 400, 'consent_required');
      const done = expectStatus(await s('검토').sign({ consent: true }), 200).body;
      expect(done.participant.status).toBe('signed');
      expect(done.document.status).toBe('sent');
    });

    it('order 2 done → both order-3 signers are asked at once, and either may sign first', async () => {
      expect(await newMessages()).toEqual(['signing_request email 을', 'signing_request sms 병']);
      expectStatus(await s('병').sign(), 200);
      expect(await newMessages()).toEqual([]);
      const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
      expect(doc.status).toBe('sent');
      expect(doc.participants.find((p: any) => p.name === '참조').status).toBe('viewed');
    });

    it('the last signer completes it although the cc never acted; everyone with an e-mail, cc included, gets the PDF', async () => {
      const last = expectStatus(await s('을').sign(), 200).body;
      expect(last.document.status).toBe('completed');
      expect(last.document.completed_at).toEqual(expect.any(String));
      const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
      expect(doc).toMatchObject({ status: 'completed', completed_at: last.document.completed_at });
      expect(doc.participants.map((p: any) => [p.name, p.status])).toEqual([
        ['갑', 'signed'],
        ['검토', 'signed'],
        ['을', 'signed'],
        ['병', 'signed'],
        ['참조', 'viewed'],
      ]);

      // completion goes by e-mail with the PDF; 병 has no e-mail, so an SMS with their link (issue 21 item 8)
      expect(await newMessages()).toEqual(['completed email 갑', 'completed email 검토', 'completed email 을', 'completed email 참조', 'completed sms 병']);
      const finalPdf = await c.get(`/documents/${d.id}/file`);
      expect(finalPdf.status).toBe(200);
      const completed = (await outboxOf(t, c, d.id)).filter((m) => m.kind === 'completed');
      const sms = completed.find((m) => m.channel === 'sms');
      expect(sms).toMatchObject({ to: '01011110003', signing_url: d.p['병'].url, attachments: [] });
      expect(sms.body).toContain(d.p['병'].url);
      for (const m of completed.filter((x) => x.channel === 'email')) {
        expect(m.signing_url).toBeNull();
        expect(m.attachments).toEqual([{ filename: '용역계약서.pdf', content_type: 'application/pdf', byte_size: Number(finalPdf.headers['content-length']) }]);
      }
      expect(completed.find((m) => m.participant_id === d.p['참조'].id).to).toBe('cc@example.com');
    });

    it('document.completed is emitted once, after every participant.signed', async () => {
      const types = await eventTypesOf(c, d.id);
      expect(types.filter((x) => x === 'document.completed')).toHaveLength(1);
      expect(types.filter((x) => x === 'participant.signed')).toHaveLength(4);
      expect(types[types.length - 1]).toBe('document.completed');
      expect(types[0]).toBe('document.sent');
    });

    it('after completion no link accepts an action, but each can still read the signed PDF', async () => {
      for (const name of ['갑', '을', '병', '검토']) {
        // Not the signature each gave (a repeat of it is answered with the signed state, below).
        const res = await s(name).sign({ consent: true, signature: solidPng(40, 20, [0, 120, 0, 255]) });
        expectApiError(res, 409, 'document_not_signable');
        expectApiError(await s(name).decline(), 409, 'document_not_signable');
      }
      const repeated = expectStatus(await s('갑').sign(), 200).body;
      expect(repeated).toMatchObject({ document: { status: 'completed' }, participant: { status: 'signed' } });
      expectApiError(await s('참조').sign({ consent: true }), 409, 'document_not_signable');
      const view = expectStatus(await s('을').view(), 200).body;
      expect(view).toMatchObject({ your_turn: false, can_sign: false, waiting_for_others: false });
      expect(view.document.status).toBe('completed');
      const owner = await c.get(`/documents/${d.id}/file`);
      const theirs = await s('을').file();
      expect(theirs.status).toBe(200);
      expect(Buffer.compare(theirs.body, owner.body)).toBe(0);
      expectApiError(await c.post(`/documents/${d.id}/remind`), 409, 'document_not_signable');
      expect(await newMessages()).toEqual([]);
      const stream = await t.infra.events.readStream(`document-${d.id}`);
      expect(stream.filter((e) => e.type === 'DocumentCompleted')).toHaveLength(1);
      // Nothing the links tried was recorded: the completion is the last fact (its certification follows it).
      expect(stream.filter((e) => e.type !== 'DocumentCertified').at(-1)?.type).toBe('DocumentCompleted');
    });
  });

  it('without signing_order everyone acting is asked at send and may sign in any order', async () => {
    const d = await sentWith(c, [
      { name: 'A', email: 'a@example.com' },
      { name: 'B', email: 'b@example.com' },
      { name: 'R', role: 'reviewer', email: 'r@example.com' },
    ]);
    expect(await sentSoFar(d)).toEqual(['signing_request email A', 'signing_request email B', 'signing_request email R']);
    expectStatus(await signer(t, d.p.R.token).sign({ consent: true }), 200);
    expectStatus(await signer(t, d.p.B.token).sign(), 200);
    expect(await sentSoFar(d)).toEqual(['signing_request email A', 'signing_request email B', 'signing_request email R']);
    expect(expectStatus(await signer(t, d.p.A.token).sign(), 200).body.document.status).toBe('completed');
  });

  it('a signer with a signature and a seal field must give both', async () => {
    const d = await sentWith(c, [{ name: '대표', fields: [{ type: 'signature' }, { type: 'seal', x: 60 }] }]);
    const s = signer(t, d.p['대표'].token);
    const err = expectApiError(await s.sign({ consent: true, signature: SIGNATURE }), 400, 'missing_parameter');
    expect(err.param).toBe('seal_id');
    expectApiError(await s.sign({ consent: true, seal_image: SIGNATURE }), 400, 'missing_parameter');
    const done = expectStatus(await s.sign({ consent: true, signature: SIGNATURE, seal_image: SIGNATURE }), 200).body;
    expect(done.document.status).toBe('completed');
  });
});
