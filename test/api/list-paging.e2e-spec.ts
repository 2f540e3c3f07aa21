import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, TestApp, TestOrg } from '../support/test-app';
import { API_TEST_OPTIONS, Client, client, createDoc, expectError, expectStatus, sendableDraft, sendThroughDomain, UNKNOWN_UUID } from '../support/api-helpers';

/** GET /v1/documents: newest first, cursor paging, filters, limits. Time is driven by a manual clock. */
describe('GET /v1/documents', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ...API_TEST_OPTIONS, manualClock: true });
  });
  afterAll(() => t.close());

  const tick = (ms = 1000) => t.clock!.advance(ms);

  async function walk(c: Client, query: string, limit: number, from?: string) {
    const pages: Array<{ ids: string[]; has_more: boolean }> = [];
    let cursor: string | undefined = from;
    for (let guard = 0; guard < 100; guard++) {
      const res = expectStatus(await c.get(`/documents?limit=${limit}${query}${cursor ? `&starting_after=${cursor}` : ''}`), 200);
      expect(res.body.object).toBe('list');
      expect(typeof res.body.has_more).toBe('boolean');
      const ids = res.body.data.map((d: any) => d.id);
      pages.push({ ids, has_more: res.body.has_more });
      if (!res.body.has_more) break;
      expect(ids).toHaveLength(limit);
      cursor = ids[ids.length - 1];
    }
    return { pages, ids: pages.flatMap((p) => p.ids) };
  }

  describe('an empty organization', () => {
    it('answers an empty list without has_more', async () => {
      const org = await t.createOrg();
      const res = expectStatus(await client(t, org.test).get('/documents'), 200);
      expect(res.body).toEqual({ object: 'list', data: [], has_more: false });
    });
  });

  describe('paging over 45 documents', () => {
    let org: TestOrg;
    let c: Client;
    const created: string[] = [];
    beforeAll(async () => {
      org = await t.createOrg();
      c = client(t, org.test);
      for (let i = 0; i < 45; i++) {
        tick();
        created.push((await createDoc(c, { title: `문서 ${i}`, metadata: { i } })).id);
      }
    });
    const newestFirst = () => [...created].reverse();

    it('limit 10 walks every id exactly once, newest first, in pages of 10,10,10,10,5', async () => {
      const { pages, ids } = await walk(c, '', 10);
      expect(pages.map((p) => p.ids.length)).toEqual([10, 10, 10, 10, 5]);
      expect(pages.map((p) => p.has_more)).toEqual([true, true, true, true, false]);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(newestFirst());
    });

    it.each([1, 7, 15, 44, 45, 100])('limit %i also walks every id exactly once in order', async (limit) => {
      const { ids, pages } = await walk(c, '', limit);
      expect(ids).toEqual(newestFirst());
      expect(pages[pages.length - 1].has_more).toBe(false);
      expect(pages.length).toBe(Math.ceil(45 / limit));
    });

    it('a page that ends exactly at the last document says has_more false', async () => {
      const res = expectStatus(await c.get(`/documents?limit=5&starting_after=${created[5]}`), 200);
      expect(res.body.data.map((d: any) => d.id)).toEqual([created[4], created[3], created[2], created[1], created[0]]);
      expect(res.body.has_more).toBe(false);
      const end = expectStatus(await c.get(`/documents?starting_after=${created[0]}`), 200);
      expect(end.body).toEqual({ object: 'list', data: [], has_more: false });
    });

    it('the default limit is 20', async () => {
      const res = expectStatus(await c.get('/documents'), 200);
      expect(res.body.data.map((d: any) => d.id)).toEqual(newestFirst().slice(0, 20));
      expect(res.body.has_more).toBe(true);
    });

    it('list items have the same shape as a single read', async () => {
      const res = expectStatus(await c.get('/documents?limit=1'), 200);
      const one = expectStatus(await c.get(`/documents/${res.body.data[0].id}`), 200);
      expect(res.body.data[0]).toEqual(one.body);
    });

    it('documents created while paging do not show up in later pages, and nothing repeats', async () => {
      const p1 = expectStatus(await c.get('/documents?limit=10'), 200).body.data.map((d: any) => d.id);
      tick();
      const fresh = await createDoc(c, { title: '페이징 중 생성' });
      const rest = await walk(c, '', 10, p1[9]);
      const all = [...p1, ...rest.ids];
      expect(all).not.toContain(fresh.id);
      expect(all).toEqual(newestFirst());
      // And the new one is first on a fresh walk.
      expect(expectStatus(await c.get('/documents?limit=1'), 200).body.data[0].id).toBe(fresh.id);
      expectStatus(await c.del(`/documents/${fresh.id}`), 200);
    });

    it('a document deleted ahead of the cursor is skipped without a gap elsewhere', async () => {
      const p1 = expectStatus(await c.get('/documents?limit=10'), 200).body.data.map((d: any) => d.id);
      const victim = newestFirst()[15];
      expectStatus(await c.del(`/documents/${victim}`), 200);
      const rest = await walk(c, '', 10, p1[9]);
      expect([...p1, ...rest.ids]).toEqual(newestFirst().filter((id) => id !== victim));
      created.splice(created.indexOf(victim), 1);
    });

    it('starting_after of an unknown, malformed or trashed document → 400 invalid_parameter', async () => {
      expectError(await c.get(`/documents?starting_after=${UNKNOWN_UUID}`), 400, 'invalid_parameter', 'starting_after');
      expectError(await c.get('/documents?starting_after=doc_1'), 400, 'invalid_parameter', 'starting_after');
      const gone = await createDoc(c);
      expectStatus(await c.del(`/documents/${gone.id}`), 200);
      expectError(await c.get(`/documents?starting_after=${gone.id}`), 400, 'invalid_parameter', 'starting_after');
    });

    it('starting_after accepts the id in upper case', async () => {
      const res = expectStatus(await c.get(`/documents?limit=2&starting_after=${newestFirst()[0].toUpperCase()}`), 200);
      expect(res.body.data.map((d: any) => d.id)).toEqual(newestFirst().slice(1, 3));
    });
  });

  describe('documents created at the same instant', () => {
    it('still page without duplicates or gaps, in one stable order', async () => {
      const org = await t.createOrg();
      const c = client(t, org.test);
      tick();
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await createDoc(c)).id);
      const first = await walk(c, '', 5);
      expect(new Set(first.ids).size).toBe(12);
      expect([...first.ids].sort()).toEqual([...ids].sort());
      const again = await walk(c, '', 3);
      expect(again.ids).toEqual(first.ids);
      const all = expectStatus(await c.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id);
      expect(all).toEqual(first.ids);
    });
  });

  describe('limit', () => {
    let c: Client;
    beforeAll(async () => {
      const org = await t.createOrg();
      c = client(t, org.test);
      for (let i = 0; i < 3; i++) {
        tick();
        await createDoc(c);
      }
    });

    it.each(['1', '2', '3', '20', '100', '050'])('limit=%s is accepted', async (limit) => {
      const res = expectStatus(await c.get(`/documents?limit=${limit}`), 200);
      expect(res.body.data).toHaveLength(Math.min(Number(limit), 3));
      expect(res.body.has_more).toBe(Number(limit) < 3);
    });

    it.each(['0', '101', '1000', '-1', '1.5', 'abc', '', ' 10', '1e1', '0x10', '10abc', '%2B5'])('limit=%s → 400 invalid_parameter (param limit)', async (limit) => {
      expectError(await c.get(`/documents?limit=${limit}`), 400, 'invalid_parameter', 'limit');
    });

    it('a repeated or bracketed limit → 400 invalid_parameter', async () => {
      expectError(await c.get('/documents?limit=5&limit=6'), 400, 'invalid_parameter', 'limit');
      expectError(await c.get('/documents?limit[]=5'), 400, 'invalid_parameter', 'limit');
    });

    it('an unknown query parameter → 400 invalid_parameter naming it', async () => {
      expectError(await c.get('/documents?ending_before=x'), 400, 'invalid_parameter', 'ending_before');
      expectError(await c.get('/documents?organization_id=org_x'), 400, 'invalid_parameter', 'organization_id');
    });
  });

  describe('filters', () => {
    let org: TestOrg;
    let c: Client;
    const stamps: string[] = [];
    const ids: string[] = [];
    const sent = new Set<string>();
    beforeAll(async () => {
      org = await t.createOrg();
      c = client(t, org.test);
      t.clock!.set('2026-04-01T00:00:00.000Z');
      for (let i = 0; i < 8; i++) {
        tick(60_000);
        if (i % 3 === 0) {
          const { doc, participant } = await sendableDraft(c, { title: `발송 ${i}` });
          await sendThroughDomain(t, org.id, doc.id, [participant.id]);
          sent.add(doc.id);
          ids.push(doc.id);
          stamps.push(doc.created_at);
        } else {
          const doc = await createDoc(c, { title: `초안 ${i}` });
          ids.push(doc.id);
          stamps.push(doc.created_at);
        }
      }
    });
    const newestFirst = () => [...ids].reverse();

    it('the documents were created a minute apart', () => {
      expect(stamps[0]).toBe('2026-04-01T00:01:00.000Z');
      expect(Date.parse(stamps[7]) - Date.parse(stamps[0])).toBe(7 * 60_000);
    });

    it('status=draft and status=sent split the list', async () => {
      const drafts = expectStatus(await c.get('/documents?status=draft'), 200).body;
      const sentList = expectStatus(await c.get('/documents?status=sent'), 200).body;
      expect(drafts.data.map((d: any) => d.id)).toEqual(newestFirst().filter((id) => !sent.has(id)));
      expect(sentList.data.map((d: any) => d.id)).toEqual(newestFirst().filter((id) => sent.has(id)));
      expect(drafts.data.every((d: any) => d.status === 'draft')).toBe(true);
      expect(sentList.data.every((d: any) => d.status === 'sent')).toBe(true);
      expect(expectStatus(await c.get('/documents?status=completed'), 200).body).toEqual({ object: 'list', data: [], has_more: false });
    });

    it('status filter pages without duplicates or gaps', async () => {
      const { ids: walked, pages } = await walk(c, '&status=draft', 2);
      expect(walked).toEqual(newestFirst().filter((id) => !sent.has(id)));
      expect(pages.map((p) => p.ids.length)).toEqual([2, 2, 1]);
    });

    it('an unknown status → 400 invalid_parameter (param status)', async () => {
      expectError(await c.get('/documents?status=bogus'), 400, 'invalid_parameter', 'status');
      expectError(await c.get('/documents?status=DRAFT'), 400, 'invalid_parameter', 'status');
    });

    it('created_after is strict and accepts any UTC offset', async () => {
      const after = (q: string) => c.get(`/documents?limit=100&created_after=${encodeURIComponent(q)}`);
      expect(expectStatus(await after(stamps[4]), 200).body.data.map((d: any) => d.id)).toEqual(newestFirst().slice(0, 3));
      // 00:05:00Z is 09:05:00 in Seoul.
      expect(expectStatus(await after('2026-04-01T09:05:00+09:00'), 200).body.data.map((d: any) => d.id)).toEqual(newestFirst().slice(0, 3));
      expect(expectStatus(await after('2026-04-01T09:04:59.999+09:00'), 200).body.data.map((d: any) => d.id)).toEqual(newestFirst().slice(0, 4));
      expect(expectStatus(await after('2026-03-31T19:04:59-05:00'), 200).body.data.map((d: any) => d.id)).toEqual(newestFirst().slice(0, 4));
      expect(expectStatus(await after('2026-04-01'), 200).body.data).toHaveLength(8);
      expect(expectStatus(await after('2026-04-02T00:00:00Z'), 200).body.data).toHaveLength(0);
    });

    it('created_after combines with status and with paging', async () => {
      const q = `&created_after=${encodeURIComponent(stamps[1])}&status=draft`;
      const expected = newestFirst().filter((id) => !sent.has(id) && ids.indexOf(id) > 1);
      const { ids: walked } = await walk(c, q, 1);
      expect(walked).toEqual(expected);
    });

    it.each(['yesterday', '2026-13-45T00:00:00Z', '12345', '', 'Mon, 02 Mar 2026 09:00:00 GMT'])('created_after=%s → 400 invalid_parameter', async (value) => {
      expectError(await c.get(`/documents?created_after=${encodeURIComponent(value)}`), 400, 'invalid_parameter', 'created_after');
    });

    it('trashed documents are filtered out of every list', async () => {
      const victim = newestFirst()[1];
      expectStatus(await c.del(`/documents/${victim}`), 200);
      const all = expectStatus(await c.get('/documents?limit=100'), 200).body.data.map((d: any) => d.id);
      expect(all).toEqual(newestFirst().filter((id) => id !== victim));
      const byStatus = expectStatus(await c.get(`/documents?limit=100&status=${sent.has(victim) ? 'sent' : 'draft'}`), 200).body.data.map((d: any) => d.id);
      expect(byStatus).not.toContain(victim);
      ids.splice(ids.indexOf(victim), 1);
    });
  });
});

/**
 * Every list with a cursor pages both ways: `starting_after` goes to older items, `ending_before`
 * back to newer ones, each page newest first with a `has_more` for the direction travelled.
 */
describe('ending_before on every cursor list', () => {
  let t: TestApp;
  let c: Client;
  let endpointId: string;
  let receiver: http.Server;

  beforeAll(async () => {
    t = await startTestApp({ config: { ...API_TEST_OPTIONS.config, webhookAllowPrivateNetworks: true }, manualClock: true });
    receiver = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const org = await t.createOrg();
    c = client(t, org.test);
    for (let i = 0; i < 5; i++) {
      t.clock!.advance(1000);
      const { doc } = await sendableDraft(c, { title: `문서 ${i}` });
      expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200);
      expectStatus(await c.post('/templates', { name: `양식 ${i}`, content: '<p>{{party}}</p>' }), 201);
      expectStatus(await c.post('/seals', { source: 'generated', company_name: `주식회사 도장 ${i}` }), 201);
      expectStatus(await c.post('/webhook_endpoints', { url: `https://hooks.example.com/${i}` }), 201);
    }
    const port = (receiver.address() as AddressInfo).port;
    endpointId = expectStatus(await c.post('/webhook_endpoints', { url: `http://127.0.0.1:${port}/hook`, events: ['document.completed'] }), 201).body.id;
    for (let i = 0; i < 5; i++) expectStatus(await c.post(`/webhook_endpoints/${endpointId}/test`), 201);
    await t.infra.runner.catchUp();
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await t.close();
  });

  type Page = { ids: string[]; has_more: boolean };
  async function page(path: string, query: string): Promise<Page> {
    const res = expectStatus(await c.get(`${path}${path.includes('?') ? '&' : '?'}${query}`), 200);
    return { ids: res.body.data.map((d: any) => d.id), has_more: res.body.has_more };
  }

  const lists = () => [
    '/documents',
    '/events',
    '/templates',
    '/seals',
    '/webhook_endpoints',
    `/webhook_endpoints/${endpointId}/deliveries`,
    '/outbox',
    '/outbox?channel=sms',
  ];

  const LABELS = ['documents', 'events', 'templates', 'seals', 'webhook endpoints', 'webhook deliveries', 'outbox', 'outbox filtered'].map((l, i) => [l, i] as const);

  it.each(LABELS)('%s: forward with starting_after, back with ending_before', async (_label, n) => {
    const path = lists()[n];
    const all = (await page(path, 'limit=100')).ids;
    expect(all.length).toBeGreaterThanOrEqual(5);
    // Forward, two at a time.
    const forward: Page[] = [await page(path, 'limit=2')];
    while (forward[forward.length - 1].has_more) {
      const last = forward[forward.length - 1].ids;
      forward.push(await page(path, `limit=2&starting_after=${last[last.length - 1]}`));
    }
    expect(forward.flatMap((p) => p.ids)).toEqual(all);
    // Back from the last page: the same pages in reverse, has_more false only on reaching the newest.
    const back: Page[] = [];
    let first = forward[forward.length - 1].ids[0];
    for (;;) {
      const p = await page(path, `limit=2&ending_before=${first}`);
      back.push(p);
      if (!p.has_more) break;
      first = p.ids[0];
    }
    expect(back.map((p) => p.ids)).toEqual(forward.slice(0, -1).map((p) => p.ids).reverse());
    expect(back.map((p) => p.has_more)).toEqual(back.map((_p, i) => i < back.length - 1));
    // Before the newest item there is nothing.
    expect(await page(path, `ending_before=${all[0]}`)).toEqual({ ids: [], has_more: false });
    // A page back from the middle ends right before the cursor.
    expect((await page(path, `limit=3&ending_before=${all[4]}`)).ids).toEqual(all.slice(1, 4));
  });

  it.each(LABELS)('%s: both cursors at once, or an unknown one → 400', async (_label, n) => {
    const path = lists()[n];
    const [a, b] = (await page(path, 'limit=2')).ids;
    const sep = path.includes('?') ? '&' : '?';
    expectError(await c.get(`${path}${sep}starting_after=${a}&ending_before=${b}`), 400, 'invalid_parameter', 'ending_before');
    expectError(await c.get(`${path}${sep}ending_before=nope_000`), 400, 'invalid_parameter', 'ending_before');
  });
});
