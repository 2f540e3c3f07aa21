import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { CollectionSpec, ReadDoc } from './read-store.port';
import { SqliteReadStore } from './sqlite-read-store.adapter';

describe('SqliteReadStore bulk loads (rebuilds from zero)', () => {
  let dir: string;
  let store: SqliteReadStore;
  let other: SqliteReadStore;
  const docs: CollectionSpec = { name: 'docs', indexes: [['org', 'sort'], ['status']] };
  const people: CollectionSpec = { name: 'people', indexes: [['org']] };

  const indexes = (s: SqliteReadStore) =>
    (s.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`).all() as Array<{ name: string }>).map((r) => r.name);
  const pragma = (name: string) => store.db.pragma(name, { simple: true });

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dojang-read-bulk-'));
    store = new SqliteReadStore(path.join(dir, 'read.db'));
    other = new SqliteReadStore(path.join(dir, 'read.db'));
    await store.ensureCollection(docs);
    await store.ensureCollection(people);
    await store.commit([{ op: 'put', collection: 'docs', doc: { id: 'old', org: 'o', sort: 1, status: 'draft' } }], {});
  });
  afterEach(async () => {
    await store.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('drops the secondary indexes of the collections it loads and builds them again at the end', async () => {
    const before = indexes(store);
    expect(before).toEqual(['ix_docs_org_sort', 'ix_docs_status', 'ix_people_org']);
    const cacheSize = pragma('cache_size');
    const checkpointPages = pragma('wal_autocheckpoint');
    const during = await store.bulkLoad([docs], async () => {
      await store.reset('p', ['docs']);
      await store.ensureCollection(docs);
      const rows: ReadDoc[] = Array.from({ length: 50 }, (_, i) => ({ id: `d${i}`, org: 'o', sort: i, status: i % 2 ? 'sent' : 'draft', _position: i + 1, _generation: 1 }));
      await store.commit(
        rows.map((doc) => ({ op: 'put', collection: 'docs', doc })),
        { p: 50 },
        { p: 1 },
      );
      // Queries still answer (without the index), here and on another connection.
      expect((await other.find('docs', { where: { status: 'sent' } })).length).toBe(25);
      return { indexes: indexes(other), cacheSize: pragma('cache_size'), checkpointPages: pragma('wal_autocheckpoint') };
    });
    expect(during.indexes).toEqual(['ix_people_org']);
    expect(during.cacheSize).not.toBe(cacheSize);
    expect(during.checkpointPages).not.toBe(checkpointPages);
    expect(indexes(store)).toEqual(before);
    expect(pragma('cache_size')).toBe(cacheSize);
    expect(pragma('wal_autocheckpoint')).toBe(checkpointPages);
    expect((await store.find('docs', { where: { org: 'o' }, orderBy: [{ field: 'sort', direction: 'desc' }], limit: 2 })).map((d) => d.id)).toEqual(['d49', 'd48']);
    expect(await store.get('docs', 'old')).toBeNull();
    // The query plan uses the rebuilt index again.
    const plan = store.db.prepare(`EXPLAIN QUERY PLAN SELECT doc FROM rm_docs WHERE json_extract(doc, '$.status') = 'sent'`).all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toContain('ix_docs_status');
  });

  it('builds the indexes again and restores its settings when the load fails', async () => {
    const before = indexes(store);
    const cacheSize = pragma('cache_size');
    await expect(
      store.bulkLoad([docs, people], async () => {
        expect(indexes(store)).toEqual([]);
        throw new Error('replay failed');
      }),
    ).rejects.toThrow('replay failed');
    expect(indexes(store)).toEqual(before);
    expect(pragma('cache_size')).toBe(cacheSize);
  });

  it('lets another connection write the loading tables meanwhile, fenced as usual', async () => {
    await store.bulkLoad([docs], async () => {
      const generation = await store.reset('p', ['docs']);
      await other.commit([{ op: 'put', collection: 'docs', doc: { id: 'server', org: 'o', sort: 0, _position: 3, _generation: generation } }], { p: 3 }, { p: generation });
      await expect(other.commit([{ op: 'put', collection: 'docs', doc: { id: 'stale', _position: 9 } }], { p: 9 }, { p: 0 })).rejects.toMatchObject({ name: 'StaleGenerationError' });
      await store.commit([{ op: 'put', collection: 'docs', doc: { id: 'rebuilt', org: 'o', sort: 1, _position: 4, _generation: generation } }], { p: 4 }, { p: generation });
    });
    expect((await store.find('docs', { where: { org: 'o' } })).map((d) => d.id).sort()).toEqual(['rebuilt', 'server']);
    expect(await store.getCheckpoint('p')).toBe(4);
  });

  it('runs a load inside another as a plain one', async () => {
    const inner = await store.bulkLoad([docs], () => store.bulkLoad([people], async () => indexes(store)));
    // The inner load kept people's index; the outer one dropped docs' indexes until its end.
    expect(inner).toEqual(['ix_people_org']);
    expect(indexes(store)).toEqual(['ix_docs_org_sort', 'ix_docs_status', 'ix_people_org']);
  });
});

/**
 * Another process on the same DATA_DIR holding the write lock (a CLI rebuild): the writes of this
 * one wait for it without freezing the event loop (a synchronous busy_timeout of 10 s did).
 */
describe('SqliteReadStore while another connection holds the write lock', () => {
  let dir: string;
  let store: SqliteReadStore;
  let other: SqliteReadStore;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dojang-read-busy-'));
    store = new SqliteReadStore(path.join(dir, 'read.db'));
    other = new SqliteReadStore(path.join(dir, 'read.db'));
    await store.ensureCollection({ name: 'docs' });
  });
  afterEach(async () => {
    await store.close();
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits, compare-and-swaps and counts once the lock is free, with timers firing all along', async () => {
    other.db.exec('BEGIN IMMEDIATE');
    let last = Date.now();
    let longestStall = 0;
    const ticker = setInterval(() => {
      longestStall = Math.max(longestStall, Date.now() - last);
      last = Date.now();
    }, 10);
    setTimeout(() => other.db.exec('COMMIT'), 600);
    try {
      const [, swapped, count] = await Promise.all([
        store.commit([{ op: 'put', collection: 'docs', doc: { id: 'd1', _position: 1 } }], { p: 1 }),
        store.putIfVersion('docs', { id: 'd2' }, null),
        store.incrementWindow('k', 0, 60_000),
      ]);
      expect(swapped).toBe(true);
      expect(count).toBe(1);
      expect(await store.get('docs', 'd1')).toMatchObject({ _position: 1 });
      expect(longestStall).toBeLessThan(400);
    } finally {
      clearInterval(ticker);
    }
  });
});
