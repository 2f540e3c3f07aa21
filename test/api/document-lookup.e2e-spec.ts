import { API_TEST_OPTIONS, client, Client, expectError, expectStatus } from '../support/api-helpers';
import { describeOnEachStore, useTestAppOn } from '../support/each-store';
import { TestOrg } from '../support/test-app';

/**
 * An integrator finds its documents by its own keys (issue 32 item 3): `GET /v1/documents?external_id=`
 * and `?metadata[key]=value`, Hangul keys included, with the other filters and paging, kept current
 * when the metadata changes, and never across organizations. On both stores: the metadata lookup
 * reads its own projected rows (one per document and key) and the external id a column of the
 * document's row, each store's own query.
 */
describeOnEachStore('documents found by external_id and metadata', (store) => {
  const t = useTestAppOn(store, API_TEST_OPTIONS);
  let org: TestOrg;
  let c: Client;
  let other: Client;
  /** Made oldest first: [0] E-1 정규직, [1] E-2 계약직, [2] E-3 정규직. */
  const docs: Array<{ id: string }> = [];
  beforeAll(async () => {
    org = await t.createOrg('주식회사 조회');
    c = client(t, org.test);
    other = client(t, (await t.createOrg('다른 회사')).test);
    for (const [i, 고용형태] of ['정규직', '계약직', '정규직'].entries()) {
      const body = { title: `근로계약서 ${i + 1}`, content: '<p>본문</p>', external_id: `HR-${i + 1}`, metadata: { 사번: `E-${i + 1}`, 고용형태 } };
      docs.push(expectStatus(await c.post('/documents', body), 201).body);
    }
    // Another organization's document under the same keys: never found.
    expectStatus(await other.post('/documents', { title: '남의 계약서', content: '<p>x</p>', external_id: 'HR-1', metadata: { 사번: 'E-1', 고용형태: '정규직' } }), 201);
  });

  const ids = async (query: string, on: Client = c) => expectStatus(await on.get(`/documents?${query}`), 200).body.data.map((d: { id: string }) => d.id);
  const key = (k: string) => `metadata[${encodeURIComponent(k)}]`;

  it('finds a document by its external id and by one metadata pair, newest first, only in its organization', async () => {
    expect(await ids('external_id=HR-2')).toEqual([docs[1].id]);
    expect(await ids('external_id=HR-9')).toEqual([]);
    expect(await ids(`${key('사번')}=E-3`)).toEqual([docs[2].id]);
    expect(await ids(`${key('고용형태')}=${encodeURIComponent('정규직')}`)).toEqual([docs[2].id, docs[0].id]);
    // Both filters at once: the metadata pair among the documents with that external id.
    expect(await ids(`${key('고용형태')}=${encodeURIComponent('정규직')}&external_id=HR-1`)).toEqual([docs[0].id]);
    expect(await ids(`${key('고용형태')}=${encodeURIComponent('계약직')}&external_id=HR-1`)).toEqual([]);
    // The other organization sees its own document only.
    expect(await ids('external_id=HR-1', other)).toHaveLength(1);
    expect(await ids('external_id=HR-1', other)).not.toContain(docs[0].id);
    expectError(await c.get(`/documents?${key('사번')}=E-1&${key('고용형태')}=x`), 400, 'invalid_parameter', 'metadata');
  });

  it('pages through a metadata match', async () => {
    const first = expectStatus(await c.get(`/documents?${key('고용형태')}=${encodeURIComponent('정규직')}&limit=1`), 200).body;
    expect([first.data.map((d: { id: string }) => d.id), first.has_more]).toEqual([[docs[2].id], true]);
    const next = expectStatus(await c.get(`/documents?${key('고용형태')}=${encodeURIComponent('정규직')}&limit=1&starting_after=${docs[2].id}`), 200).body;
    expect([next.data.map((d: { id: string }) => d.id), next.has_more]).toEqual([[docs[0].id], false]);
  });

  it('follows a change of metadata: the old pair no longer finds the document, the new one does', async () => {
    expectStatus(await c.patch(`/documents/${docs[1].id}`, { metadata: { 사번: 'E-2', 고용형태: '정규직' } }), 200);
    expect(await ids(`${key('고용형태')}=${encodeURIComponent('계약직')}`)).toEqual([]);
    expect(await ids(`${key('고용형태')}=${encodeURIComponent('정규직')}`)).toEqual([docs[2].id, docs[1].id, docs[0].id]);
  });
});
