import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { DOCUMENTS, documentProjection } from '@dojang/projections';
import { Pool, PoolClient } from 'pg';
import { findStatement, PostgresReadStore } from './postgres-read-store.adapter';
import { Condition, FindQuery, ReadDoc, Write } from './read-store.port';

const server = postgresTestServer();

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** What the PostgreSQL adapter adds to the contract: plans, round trips, atomicity, NUL. */
(server ? describe : describe.skip)(`PostgresReadStore${server ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  let pool: Pool;
  let store: PostgresReadStore;
  afterAll(async () => {
    await pool?.end();
  });
  const database = server ? throwawayPostgresDatabase(server, 'dojang_read_pg') : undefined;
  beforeAll(async () => {
    pool = createPostgresPool(database!.url(), { max: 4, applicationName: 'read-store-spec' });
    store = new PostgresReadStore(pool);
    await store.init();
  });

  describe('the document list query', () => {
    const ORG = 'org_target';
    // The list's own shape (apps/api documents.http.controller.ts): tenant, mode and trash
    // filters, an optional status, a cursor on sort_key, newest first, one more than the page.
    const list = (extra: Record<string, Condition>): FindQuery => ({
      where: { organization_id: ORG, livemode: false, trashed: false, ...extra },
      orderBy: [{ field: 'sort_key', direction: 'desc' }],
      limit: 21,
    });

    beforeAll(async () => {
      for (const spec of documentProjection.collections) await store.ensureCollection(spec);
      const statuses = ['draft', 'sent', 'completed', 'voided'];
      const writes: Write[] = [];
      for (let i = 0; i < 3000; i++) {
        const created_at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
        const id = `doc_${String(i).padStart(5, '0')}`;
        writes.push({
          op: 'put',
          collection: DOCUMENTS,
          doc: {
            id,
            organization_id: i % 10 === 0 ? ORG : `org_${i % 7}`,
            livemode: i % 3 === 0,
            trashed: i % 11 === 0,
            status: statuses[i % 4],
            created_at,
            sort_key: `${created_at}|${String(i + 1).padStart(16, '0')}|${id}`,
            _position: i + 1,
          },
        });
      }
      await store.commit(writes, {});
      await pool.query(`ANALYZE rm_${DOCUMENTS}`);
    });

    /** The plan of the exact statement find() sends, with sequential scans priced out. */
    async function plan(query: FindQuery): Promise<PlanNode[]> {
      const { sql, params } = findStatement(DOCUMENTS, query);
      const client: PoolClient = await pool.connect();
      try {
        // Small tables are cheaper to scan whole; turning that off asks whether the index can
        // serve the filter and the order at all, which is what a large table needs.
        await client.query('SET enable_seqscan = off');
        const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
        return nodes(rows[0]['QUERY PLAN'][0].Plan);
      } finally {
        await client.query('RESET enable_seqscan');
        client.release();
      }
    }

    it('is served by the (organization, mode, trash, sort_key) index, order included', async () => {
      const all = await plan(list({}));
      expect(all.map((n) => n['Node Type'])).not.toContain('Sort');
      expect(all).toContainEqual(
        expect.objectContaining({ 'Node Type': 'Index Scan', 'Index Name': `ix_${DOCUMENTS}_organization_id_livemode_trashed_sort_key`, 'Scan Direction': 'Backward' }),
      );
      // The next page: the cursor bounds the same index scan.
      const next = await plan(list({ sort_key: { $lt: '2026-01-02T00:00:00.000Z' } }));
      expect(next.map((n) => n['Node Type'])).not.toContain('Sort');
      expect(next).toContainEqual(expect.objectContaining({ 'Index Name': `ix_${DOCUMENTS}_organization_id_livemode_trashed_sort_key` }));
    });

    it('is served by the index with status when the list filters on status', async () => {
      const byStatus = await plan(list({ status: 'sent', sort_key: { $lt: '2026-01-03' } }));
      expect(byStatus.map((n) => n['Node Type'])).not.toContain('Sort');
      expect(byStatus).toContainEqual(
        expect.objectContaining({ 'Node Type': 'Index Scan', 'Index Name': `ix_${DOCUMENTS}_organization_id_livemode_trashed_status_sort_key` }),
      );
    });

    it('returns what the plan promises: the newest matching rows, pages joining without a gap', async () => {
      const firstPage = await store.find<ReadDoc & { sort_key: string }>(DOCUMENTS, list({}));
      const secondPage = await store.find<ReadDoc & { sort_key: string }>(DOCUMENTS, list({ sort_key: { $lt: firstPage[19].sort_key } }));
      const expected = Array.from({ length: 3000 }, (_, i) => i)
        .filter((i) => i % 10 === 0 && i % 3 !== 0 && i % 11 !== 0)
        .reverse()
        .map((i) => `doc_${String(i).padStart(5, '0')}`);
      expect(firstPage.map((d) => d.id)).toEqual(expected.slice(0, 21));
      expect(secondPage.map((d) => d.id)).toEqual(expected.slice(20, 41));
    });
  });

  it('sends a batch as one query of a few statements, not one per row', async () => {
    const [a, b] = ['batch_a', 'batch_b'];
    await store.ensureCollection({ name: a });
    await store.ensureCollection({ name: b });
    await store.commit([{ op: 'put', collection: a, doc: { id: 'gone', _position: 1 } }], {});
    const writes: Write[] = [{ op: 'delete', collection: a, id: 'gone' }];
    for (let i = 0; i < 200; i++) {
      writes.push({ op: 'put', collection: a, doc: { id: `a${i}`, n: i, quote: "it's \\ $1 $&", _position: 5 } });
      writes.push({ op: 'put', collection: b, doc: { id: `b${i}`, n: i, _position: 5 } });
    }
    const sent: string[] = [];
    const connect = jest.spyOn(pool, 'connect');
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    const spy = jest.spyOn(pool, 'query').mockImplementation(((...args: unknown[]) => {
      sent.push(String(args[0]));
      return query(...args);
    }) as never);
    try {
      await store.commit(writes, { batch_cp: 5 }, { batch_cp: 0 });
    } finally {
      spy.mockRestore();
      connect.mockRestore();
    }
    // One round trip: the fence, one DELETE and one upsert for `a`, one upsert for `b`.
    expect(sent).toHaveLength(1);
    const statements = sent[0].split(/;\n(?=SELECT|INSERT|DELETE)/);
    expect(statements.map((st) => st.trim().split(/\s/)[0])).toEqual(['SELECT', 'DELETE', 'INSERT', 'INSERT', 'SELECT']);
    expect(statements[4]).toContain('pg_notify');
    // No transaction held open across round trips: no client checked out by hand.
    expect(connect.mock.calls.filter((c) => (c as unknown[]).length === 0)).toHaveLength(0);
    expect((await store.find(a, {})).length).toBe(200);
    expect((await store.find(b, {})).length).toBe(200);
    expect(await store.get(a, 'a7')).toEqual({ id: 'a7', n: 7, quote: "it's \\ $1 $&", _position: 5 });
    expect(await store.get(a, 'gone')).toBeNull();
    expect(await store.getCheckpoint('batch_cp')).toBe(5);
  });

  it('writes nothing of a batch that fails part-way, checkpoints included', async () => {
    const [a, b] = ['atomic_a', 'atomic_b'];
    await store.commit([{ op: 'put', collection: a, doc: { id: 'before', _position: 1 } }], { atomic_cp: 1 });
    // The second collection's statement fails in the server (a generation beyond integer range),
    // after the fence and the first collection's upsert have run.
    const failing = store.commit(
      [
        { op: 'put', collection: a, doc: { id: 'x', _position: 2 } },
        { op: 'put', collection: b, doc: { id: 'y', _position: 2, _generation: 2 ** 40 } },
      ],
      { atomic_cp: 2 },
    );
    await expect(failing).rejects.toThrow(/out of range/);
    expect(await store.get(a, 'x')).toBeNull();
    expect(await store.get(b, 'y')).toBeNull();
    expect(await store.getCheckpoint('atomic_cp')).toBe(1);
    // The connection went back to the pool usable, and the next batch commits.
    await store.commit([{ op: 'put', collection: a, doc: { id: 'x', _position: 2 } }], { atomic_cp: 2 });
    expect(await store.get(a, 'x')).toEqual({ id: 'x', _position: 2 });
  });

  it('holds a reset until a batch past its fence has committed, then empties what it wrote', async () => {
    const [c, cp] = ['fenced_rows', 'fenced_cp'];
    await store.commit([{ op: 'put', collection: c, doc: { id: 'early', _position: 1 } }], { [cp]: 1 }, { [cp]: 0 });
    // The batch's row writes wait for a lock this test holds on the collection's table, as if
    // they were slow: by then its fence statement has run (the statements run in order).
    const blocker = await pool.connect();
    const waiting = async (n: number) => {
      for (;;) {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        if (rows[0].n >= n) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    let batch: Promise<void>;
    let reset: Promise<number>;
    let resetDone = false;
    try {
      await blocker.query(`BEGIN; LOCK TABLE rm_${c} IN EXCLUSIVE MODE`);
      batch = store.commit([{ op: 'put', collection: c, doc: { id: 'late', _position: 9 } }], { [cp]: 9 }, { [cp]: 0 });
      await waiting(1);
      reset = store.reset(cp, [c]).finally(() => (resetDone = true));
      // The reset queues behind the batch's lock on the checkpoint row.
      await waiting(2);
      expect(resetDone).toBe(false);
    } finally {
      await blocker.query('COMMIT');
      blocker.release();
    }
    await batch!;
    expect(await reset!).toBe(1);
    // Nothing of generation 0 survives the reset, and the old runner's next batch is refused.
    expect(await store.find(c, {})).toEqual([]);
    expect(await store.getCheckpoint(cp)).toBe(0);
    await expect(store.commit([{ op: 'put', collection: c, doc: { id: 'later', _position: 10 } }], { [cp]: 10 }, { [cp]: 0 })).rejects.toMatchObject({
      name: 'StaleGenerationError',
      projections: [cp],
    });
  });

  it('sweeps rate-limit windows once they are over', async () => {
    const w0 = 1_767_225_600_000;
    await store.incrementWindow('sweep_old', w0, 60_000);
    await store.incrementWindow('sweep_old', w0 + 60_000, 60_000);
    const keys = async () => (await pool.query<{ key: string; window_start: string }>(`SELECT key, window_start::text FROM read_windows WHERE key LIKE 'sweep_%' ORDER BY window_start`)).rows;
    // The first window's counter is kept for its ttl: the second window starts at its expiry.
    expect((await keys()).map((r) => Number(r.window_start))).toEqual([w0 + 60_000]);
    await store.incrementWindow('sweep_other', w0 + 60_000, 60_000);
    expect(await keys()).toHaveLength(2);
  });

  it('sweeps once per window, not on the first hit of every new key', async () => {
    const w0 = 1_767_229_200_000;
    const statements: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    const spy = jest.spyOn(pool, 'query').mockImplementation(((...args: unknown[]) => {
      statements.push(typeof args[0] === 'string' ? args[0] : String((args[0] as { text: string }).text));
      return query(...args);
    }) as never);
    try {
      for (let i = 0; i < 5; i++) await store.incrementWindow(`sweep_token_${i}`, w0, 60_000);
      await store.incrementWindow('sweep_token_0', w0 + 60_000, 60_000);
    } finally {
      spy.mockRestore();
    }
    expect(statements.filter((s) => s.startsWith('DELETE FROM read_windows'))).toHaveLength(2);
  });

  it('counts rate-limit hits without waiting for a WAL flush, and only in its own transaction', async () => {
    let sent: { text: string; values: unknown[] } | undefined;
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    const spy = jest.spyOn(pool, 'query').mockImplementation(((...args: unknown[]) => {
      if (typeof args[0] === 'object' && String((args[0] as { text: string }).text).includes('read_windows AS w')) sent ??= args[0] as never;
      return query(...args);
    }) as never);
    try {
      expect(await store.incrementWindow('async_commit', 1_767_225_600_000, 60_000, 3)).toBe(3);
    } finally {
      spy.mockRestore();
    }
    // Run the same statement inside a transaction we hold open, and look at the setting.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ count: string }>(sent!.text, sent!.values);
      expect(rows[0].count).toBe('6');
      expect((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('off');
      await client.query('ROLLBACK');
      expect((await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on');
    } finally {
      client.release();
    }
  });

  it('round-trips NUL characters (which jsonb refuses) in ids, values and keys, and finds by them', async () => {
    const c = 'nul_chars';
    await store.ensureCollection({ name: c, indexes: [['title']] });
    const doc = { id: 'a\u0000b', title: 'x\u0000y', 'k\u0000': ['\u0000', '\uE000', '\uE0000', '\uE000\u0000'], plain: 'p\uE000q' };
    await store.commit([{ op: 'put', collection: c, doc }, { op: 'put', collection: c, doc: { id: 'ab', title: 'xy' } }], {});
    expect(await store.get(c, 'a\u0000b')).toEqual(doc);
    expect(await store.get(c, 'ab')).toEqual({ id: 'ab', title: 'xy' });
    expect((await store.find(c, { where: { title: 'x\u0000y' } })).map((d) => d.id)).toEqual(['a\u0000b']);
    expect((await store.find(c, { where: { plain: 'p\uE000q' } })).map((d) => d.id)).toEqual(['a\u0000b']);
    expect([...(await store.getMany(c, ['a\u0000b', 'ab'])).keys()].sort()).toEqual(['a\u0000b', 'ab'].sort());
    expect(await store.putIfVersion(c, { id: 'a\u0000b', title: 'z\u0000' }, 0)).toBe(true);
    expect(await store.get(c, 'a\u0000b')).toEqual({ id: 'a\u0000b', title: 'z\u0000', _version: 1 });
    await store.commit([{ op: 'delete', collection: c, id: 'a\u0000b' }], {});
    expect(await store.get(c, 'a\u0000b')).toBeNull();
  });

  it('creates collections from several instances at once without failing', async () => {
    // Without a lock, CREATE TABLE IF NOT EXISTS racing itself fails on the catalog's unique
    // index now and then; ten collections made by four instances at once meet that race.
    const names = Array.from({ length: 10 }, (_, i) => `raced_${i}`);
    const stores = Array.from({ length: 4 }, () => new PostgresReadStore(pool));
    await Promise.all(names.flatMap((name) => stores.map((s) => s.ensureCollection({ name, indexes: [['status', 'created_at'], ['organization_id']] }))));
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname LIKE 'rm_raced_%' AND NOT i.indisprimary`,
    );
    expect(rows[0].n).toBe(2 * names.length);
  });
});
