import { Client, client, expectStatus } from '../support/api-helpers';
import { eventTypesOf, expectApiError, outboxOf, sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

/** Racing requests on one document: the stream's expected revision makes exactly one of them win. */
describe('concurrent signing', () => {
  let t: TestApp;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp();
    c = client(t, (await t.createOrg()).test);
  });
  afterAll(() => t.close());

  const streamTypes = async (id: string) => (await t.infra.events.readStream(`document-${id}`)).map((e) => e.type);
  const count = (xs: string[], x: string) => xs.filter((y) => y === x).length;

  it('parallel signers of the same order finishing at the same instant complete the document exactly once', async () => {
    for (let round = 0; round < 4; round++) {
      const names = round % 2 === 0 ? ['A', 'B'] : ['A', 'B', 'C'];
      const d = await sentWith(c, names.map((name) => ({ name, auth: 'none' as const, signing_order: 1 })));
      const results = await Promise.all(names.map((name) => signer(t, d.p[name].token).sign()));
      for (const r of results) expectStatus(r, 200);

      const types = await streamTypes(d.id);
      expect(count(types, 'ParticipantSigned')).toBe(names.length);
      expect(count(types, 'DocumentCompleted')).toBe(1);
      // The completion is the last fact (its certification follows it).
      expect(types.filter((t) => t !== 'DocumentCertified').at(-1)).toBe('DocumentCompleted');
      const pub = await eventTypesOf(c, d.id);
      expect(count(pub, 'document.completed')).toBe(1);
      expect(count(pub, 'participant.signed')).toBe(names.length);

      const doc = expectStatus(await c.get(`/documents/${d.id}`), 200).body;
      expect(doc.status).toBe('completed');
      expect(doc.participants.every((p: any) => p.status === 'signed')).toBe(true);
      // the final PDF is the one recorded by the single completion, and carries every signature
      const completed = (await t.infra.events.readStream(`document-${d.id}`)).find((e) => e.type === 'DocumentCompleted')!;
      expect(doc.final_pdf_sha256).toBe((completed.data as any).final_pdf.sha256);
      const file = await c.get(`/documents/${d.id}/file`);
      expect(Number(file.headers['content-length'])).toBe((completed.data as any).final_pdf.byte_size);
      // one completion, so one completion e-mail round (nobody has an e-mail here: none at all)
      expect((await outboxOf(t, c, d.id)).filter((m) => m.kind === 'completed')).toEqual([]);
    }
  });

  it('a double-submitted signature (two identical requests at once) signs once; both are answered with the signed state', async () => {
    for (const last of [false, true]) {
      const d = await sentWith(c, last ? [{ name: 'A', auth: 'none' }] : [{ name: 'A', auth: 'none' }, { name: 'B', auth: 'none' }]);
      const s = signer(t, d.p.A.token);
      const [one, two] = await Promise.all([s.sign(), s.sign()]);
      // The loser re-read the stream and found this very signature landed (issue 33: a signer's
      // retry after a landed signature is answered as landed, not 409).
      expect([one.status, two.status]).toEqual([200, 200]);
      for (const res of [one, two]) expect(res.body.participant.status).toBe('signed');

      const types = await streamTypes(d.id);
      expect(count(types, 'ParticipantSigned')).toBe(1);
      expect(count(types, 'DocumentCompleted')).toBe(last ? 1 : 0);
      expect(count(await eventTypesOf(c, d.id), 'participant.signed')).toBe(1);
    }
  });

  it('a double-submitted PIN request issues one PIN and sends one SMS', async () => {
    const d = await sentWith(c, [{ name: 'A', auth: 'sms_pin', phone: '01012345678' }]);
    const s = signer(t, d.p.A.token);
    const [one, two] = await Promise.all([s.pin(), s.pin()]);
    expect([one.status, two.status].sort()).toEqual([200, 429]);
    expectApiError(one.status === 429 ? one : two, 429, 'pin_resend_cooldown');
    expect(count(await streamTypes(d.id), 'PinIssued')).toBe(1);
    expect((await outboxOf(t, c, d.id)).filter((m) => m.kind === 'pin')).toHaveLength(1);
  });

  it('a cancel racing the last signature: either completed or canceled, never both', async () => {
    for (let round = 0; round < 3; round++) {
      const d = await sentWith(c, [{ name: 'A', auth: 'none' }]);
      const [signed, canceled] = await Promise.all([signer(t, d.p.A.token).sign(), c.post(`/documents/${d.id}/cancel`)]);
      const types = await streamTypes(d.id);
      const status = expectStatus(await c.get(`/documents/${d.id}`), 200).body.status;
      if (status === 'completed') {
        expectStatus(signed, 200);
        expectApiError(canceled, 409, 'document_already_completed');
        expect(count(types, 'DocumentCanceled')).toBe(0);
        expect(count(types, 'DocumentCompleted')).toBe(1);
      } else {
        expect(status).toBe('canceled');
        expectStatus(canceled, 200);
        // the signer either lost the append race (409) or arrived after the cancel was visible (410)
        expect([409, 410]).toContain(signed.status);
        expect(['document_not_signable', 'signing_link_inactive']).toContain(signed.body.error.code);
        expect(count(types, 'ParticipantSigned')).toBe(0);
        expect(count(types, 'DocumentCompleted')).toBe(0);
        expect(count(types, 'DocumentCanceled')).toBe(1);
      }
    }
  });
});
