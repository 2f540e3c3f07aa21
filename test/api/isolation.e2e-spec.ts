import { startTestApp, TestApp, TestOrg } from '../support/test-app';
import { API_TEST_OPTIONS, addParticipant, Client, client, createDoc, expectError, expectStatus, field } from '../support/api-helpers';

/**
 * Another organization's document, and the other mode's document, are indistinguishable from one
 * that does not exist (404 document_not_found, never 403), for every operation; and no attempt
 * changes anything.
 */
describe('isolation: organizations and test/live worlds', () => {
  let t: TestApp;
  let a: TestOrg;
  let b: TestOrg;
  let aTest: Client;
  let aLive: Client;
  let bTest: Client;
  let bLive: Client;
  beforeAll(async () => {
    // A manual clock so that "newest first" is about distinct creation instants.
    t = await startTestApp({ ...API_TEST_OPTIONS, manualClock: true });
    a = await t.createOrg('가나다 주식회사');
    b = await t.createOrg('라마바 주식회사', 'team');
    aTest = client(t, a.test);
    aLive = client(t, a.live);
    bTest = client(t, b.test);
    bLive = client(t, b.live);
  });
  afterAll(() => t.close());

  async function richDoc(c: Client) {
    const doc = await createDoc(c, { title: '격리 대상', metadata: { secret: 'yes' } });
    const p = await addParticipant(c, doc.id);
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
    return { doc: expectStatus(await c.get(`/documents/${doc.id}`), 200).body, participant: p };
  }

  function attempts(docId: string, participantId: string): Array<[string, (c: Client) => Promise<any>]> {
    return [
      ['GET', (c) => c.get(`/documents/${docId}`)],
      ['GET (upper-case id)', (c) => c.get(`/documents/${docId.toUpperCase()}`)],
      ['PATCH', (c) => c.patch(`/documents/${docId}`, { title: '탈취', metadata: { secret: null } })],
      ['DELETE', (c) => c.del(`/documents/${docId}`)],
      ['POST duplicate', (c) => c.post(`/documents/${docId}/duplicate`)],
      ['PUT fields', (c) => c.put(`/documents/${docId}/fields`, { fields: [] })],
      ['POST participants', (c) => c.post(`/documents/${docId}/participants`, { name: '침입자', auth: 'none' })],
      ['POST participants/batch', (c) => c.post(`/documents/${docId}/participants/batch`, { participants: [{ name: '침입자', auth: 'none' }] })],
      ['DELETE participant', (c) => c.del(`/documents/${docId}/participants/${participantId}`)],
    ];
  }

  const cases = (): Array<[string, () => Client, () => Client]> => [
    ["another organization's test key on a test document", () => aTest, () => bTest],
    ["another organization's live key on a test document", () => aTest, () => bLive],
    ['the same organization\'s live key on a test document', () => aTest, () => aLive],
    ['the same organization\'s test key on a live document', () => aLive, () => aTest],
    ["another organization's live key on a live document", () => aLive, () => bLive],
  ];

  describe.each(cases())('%s', (_label, owner, intruder) => {
    let doc: any;
    let participant: any;
    beforeAll(async () => {
      ({ doc, participant } = await richDoc(owner()));
    });

    it('every operation answers 404 document_not_found, exactly like an unknown document, and changes nothing', async () => {
      const listBefore = expectStatus(await intruder().get('/documents?limit=100'), 200).body.data.map((d: any) => d.id);
      for (const [name, call] of attempts(doc.id, participant.id)) {
        const res = await call(intruder());
        try {
          const err = expectError(res, 404, 'document_not_found');
          expect(err.message).toBe('No such document.');
          expect(err.param).toBeUndefined();
        } catch (e) {
          throw new Error(`${name}: ${(e as Error).message}`);
        }
      }
      expect(expectStatus(await owner().get(`/documents/${doc.id}`), 200).body).toEqual(doc);
      // The duplicate attempt created nothing in the intruder's world either.
      expect(expectStatus(await intruder().get('/documents?limit=100'), 200).body.data.map((d: any) => d.id)).toEqual(listBefore);
    });

    it('the document is absent from the intruder\'s lists (all statuses, as a cursor too)', async () => {
      const listed = expectStatus(await intruder().get('/documents?limit=100'), 200).body.data.map((d: any) => d.id);
      expect(listed).not.toContain(doc.id);
      expect(expectStatus(await intruder().get('/documents?limit=100&status=draft'), 200).body.data.map((d: any) => d.id)).not.toContain(doc.id);
      expectError(await intruder().get(`/documents?starting_after=${doc.id}`), 400, 'invalid_parameter', 'starting_after');
    });

    it('fields cannot point at the document\'s participants from the intruder\'s own draft', async () => {
      const mine = await createDoc(intruder());
      expectError(await intruder().put(`/documents/${mine.id}/fields`, { fields: [field(participant.id)] }), 400, 'invalid_parameter', 'fields[0].participant_id');
    });
  });

  describe('test and live are separate worlds', () => {
    it('objects carry livemode by the key that created them', async () => {
      const test = await createDoc(aTest);
      const live = await createDoc(aLive);
      expect(test.livemode).toBe(false);
      expect(live.livemode).toBe(true);
      expect(expectStatus(await aLive.get(`/documents/${live.id}`), 200).body.livemode).toBe(true);
      const dup = expectStatus(await aLive.post(`/documents/${live.id}/duplicate`), 201).body;
      expect(dup.livemode).toBe(true);
      expectError(await aTest.get(`/documents/${dup.id}`), 404, 'document_not_found');
    });

    it('each mode lists only its own documents, newest first', async () => {
      t.clock!.advance(1000);
      const t1 = await createDoc(aTest, { title: 'T1' });
      t.clock!.advance(1000);
      const l1 = await createDoc(aLive, { title: 'L1' });
      t.clock!.advance(1000);
      const t2 = await createDoc(aTest, { title: 'T2' });
      t.clock!.advance(1000);
      const l2 = await createDoc(aLive, { title: 'L2' });
      const testList = expectStatus(await aTest.get('/documents?limit=100'), 200).body.data;
      const liveList = expectStatus(await aLive.get('/documents?limit=100'), 200).body.data;
      expect(testList.every((d: any) => d.livemode === false)).toBe(true);
      expect(liveList.every((d: any) => d.livemode === true)).toBe(true);
      const testIds = testList.map((d: any) => d.id);
      const liveIds = liveList.map((d: any) => d.id);
      expect(testIds.slice(0, 2)).toEqual([t2.id, t1.id]);
      expect(liveIds.slice(0, 2)).toEqual([l2.id, l1.id]);
      expect(testIds.filter((id: string) => liveIds.includes(id))).toEqual([]);
    });

    it('a second key of the same mode sees the same world', async () => {
      const extra = client(t, (await t.admin.issueKey(a.id, 'live')).secret);
      const live = await createDoc(aLive);
      expectStatus(await extra.get(`/documents/${live.id}`), 200);
      expect(expectStatus(await extra.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id)).toEqual(
        expectStatus(await aLive.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id),
      );
    });

    it('deleting in one mode does not touch the other', async () => {
      const test = await createDoc(aTest);
      const live = await createDoc(aLive);
      expectError(await aLive.del(`/documents/${test.id}`), 404, 'document_not_found');
      expectStatus(await aTest.del(`/documents/${test.id}`), 200);
      expectStatus(await aLive.get(`/documents/${live.id}`), 200);
    });
  });

  describe('organizations', () => {
    it('lists of two organizations never overlap', async () => {
      await createDoc(aTest);
      await createDoc(bTest);
      const aIds = expectStatus(await aTest.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id);
      const bIds = expectStatus(await bTest.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id);
      expect(aIds.length).toBeGreaterThan(0);
      expect(bIds.length).toBeGreaterThan(0);
      expect(aIds.filter((id: string) => bIds.includes(id))).toEqual([]);
    });

    it('each key reads its own organization', async () => {
      expect(expectStatus(await aTest.get('/organization'), 200).body.id).toBe(a.id);
      expect(expectStatus(await aLive.get('/organization'), 200).body.id).toBe(a.id);
      expect(expectStatus(await bTest.get('/organization'), 200).body.id).toBe(b.id);
      expect(expectStatus(await bLive.get('/organization'), 200).body.id).toBe(b.id);
    });

    it('the author_name default is the creating organization\'s name', async () => {
      expect((await createDoc(aTest)).author_name).toBe('가나다 주식회사');
      expect((await createDoc(bLive)).author_name).toBe('라마바 주식회사');
    });
  });
});
