import { MongoClient } from 'mongodb';
import { ALL_PROJECTIONS } from '@dojang/projections';
import { MongoReadStore, assertMongoRunsTransactions } from './mongo-read-store.adapter';
import { RowConflictError, rowVersion, StaleGenerationError, Write } from './read-store.port';
import { FakeMongoClient } from './testing/fake-mongo';

/**
 * The MongoDB read store against an in-process fake of the driver (no server here): what it sends,
 * inside which transaction, and what survives a failure. The contract suite runs against a real
 * replica set when MONGO_URL is set.
 */

function open() {
  const fake = new FakeMongoClient();
  const store = new MongoReadStore(fake as unknown as MongoClient);
  return { fake, store, db: fake.database };
}

const put = (collection: string, id: string, position: number, extra: Record<string, unknown> = {}): Write => ({
  op: 'put',
  collection,
  doc: { id, _position: position, ...extra },
});

describe('MongoReadStore.commit', () => {
  it('a batch whose second collection fails to write leaves no row and no checkpoint behind', async () => {
    const { store, db } = open();
    db.collection('rm_documents').failures.bulkWrite = [];
    db.collection('rm_audit_entries').failures.bulkWrite = [new Error('connection reset')];

    await expect(
      store.commit([put('documents', 'd1', 10), put('audit_entries', 'a1', 10)], { documents: 10, audit_trail: 10 }, { documents: 0, audit_trail: 0 }),
    ).rejects.toThrow('connection reset');

    // The runner would skip event 10 for the audit trail if the document row were already at 10.
    expect(await store.get('documents', 'd1')).toBeNull();
    expect(await store.get('audit_entries', 'a1')).toBeNull();
    expect(await store.getCheckpoints(['documents', 'audit_trail'])).toEqual({ documents: 0, audit_trail: 0 });
  });

  it('reads the fence, writes the rows and moves the checkpoints inside one transaction', async () => {
    const { store, db, fake } = open();
    await store.commit([put('documents', 'd1', 10), { op: 'delete', collection: 'audit_entries', id: 'a0' }], { documents: 10 }, { documents: 0 });

    const commitOps = db.ops.filter((o) => ['find', 'bulkWrite', 'updateOne'].includes(o.op));
    expect(commitOps.map((o) => `${o.collection}.${o.op}`)).toEqual([
      'checkpoints.find',
      'rm_documents.find',
      'rm_documents.bulkWrite',
      'rm_audit_entries.find',
      'checkpoints.updateOne',
    ]);
    expect(commitOps.every((o) => o.inTransaction)).toBe(true);
    expect(fake.sessions).toHaveLength(1);
    expect(fake.sessions[0].committed).toBe(1);
    expect(await store.get('documents', 'd1')).toMatchObject({ id: 'd1', _position: 10 });
    expect(await store.getCheckpoint('documents')).toBe(10);
  });

  it('keeps the port rules inside the transaction: no row moves backwards, newer generations survive deletes', async () => {
    const { store } = open();
    await store.commit([put('documents', 'd1', 20, { title: 'new' }), put('documents', 'd2', 5, { _generation: 2 })], {});
    await store.commit(
      [put('documents', 'd1', 10, { title: 'old' }), { op: 'delete', collection: 'documents', id: 'd2', generation: 1 }, put('documents', 'd3', 10)],
      {},
    );
    expect(await store.get('documents', 'd1')).toMatchObject({ title: 'new', _position: 20 });
    expect(await store.get('documents', 'd2')).toMatchObject({ _generation: 2 });
    expect(await store.get('documents', 'd3')).toMatchObject({ _position: 10 });
  });

  it('a row another commit moved since the batch read it refuses the whole commit (read inside the transaction)', async () => {
    const { store, db } = open();
    await store.commit([put('bulk_sends', 'job', 1, { sent: 0 })], { bulk_sends: 1 }, { bulk_sends: 0 });
    const stale = rowVersion(await store.get('bulk_sends', 'job'));
    await store.commit([put('bulk_sends', 'job', 3, { sent: 2 })], { bulk_sends: 3 }, { bulk_sends: 0 });
    const before = db.ops.length;
    const lost = store.commit([put('bulk_sends', 'job', 4, { sent: 1 })], { bulk_sends: 4 }, { bulk_sends: 0 }, { rows: [{ collection: 'bulk_sends', id: 'job', found: stale }] });
    await expect(lost).rejects.toBeInstanceOf(RowConflictError);
    expect(db.ops.slice(before).find((o) => o.collection === 'rm_bulk_sends' && o.op === 'find')?.inTransaction).toBe(true);
    expect(await store.get('bulk_sends', 'job')).toMatchObject({ sent: 2, _position: 3 });
    expect(await store.getCheckpoint('bulk_sends')).toBe(3);
    // As it stands now, the same batch commits.
    await store.commit([put('bulk_sends', 'job', 4, { sent: 3 })], { bulk_sends: 4 }, { bulk_sends: 0 }, { rows: [{ collection: 'bulk_sends', id: 'job', found: { generation: 0, position: 3 } }] });
    expect(await store.get('bulk_sends', 'job')).toMatchObject({ sent: 3, _position: 4 });
  });

  it('every commit changes its checkpoint documents, so two concurrent ones always conflict', async () => {
    const { store, db } = open();
    await store.commit([], { documents: 5 }, { documents: 0 });
    const first = (await db.collection('checkpoints').findOne({ _id: 'documents' })) as { commit?: string };
    // The same position again: still a change to the document.
    await store.commit([], { documents: 5 }, { documents: 0 });
    const second = (await db.collection('checkpoints').findOne({ _id: 'documents' })) as { commit?: string };
    expect(first.commit).toEqual(expect.any(String));
    expect(second.commit).not.toBe(first.commit);
  });

  it('a stale generation refuses the whole commit', async () => {
    const { store } = open();
    expect(await store.reset('documents', ['documents'])).toBe(1);
    await expect(store.commit([put('documents', 'd1', 10)], { documents: 10 }, { documents: 0 })).rejects.toBeInstanceOf(StaleGenerationError);
    expect(await store.get('documents', 'd1')).toBeNull();
    expect(await store.getCheckpoint('documents')).toBe(0);
  });
});

describe('MongoReadStore.reset', () => {
  it('refuses a commit of the new generation made while the collections are being dropped, so no checkpoint is left ahead of lost rows', async () => {
    const { store, db } = open();
    let gap: Promise<unknown> = Promise.resolve();
    db.collection('rm_documents').beforeDrop = async () => {
      // Another runner reloaded after the generation moved and commits before the drop.
      const generation = (await store.getGenerations(['documents'])).documents;
      gap = store.commit([put('documents', 'd1', 5, { _generation: generation })], { documents: 5 }, { documents: generation }).then(
        () => 'committed',
        (err: Error) => err.name,
      );
      await gap;
    };
    const generation = await store.reset('documents', ['documents']);
    expect(await gap).toBe('StaleGenerationError');
    // Whatever the gap did, no checkpoint is ahead of a row that is gone.
    expect(await store.getCheckpoint('documents')).toBe(0);
    // Once the reset is over, the new generation commits.
    await store.commit([put('documents', 'd1', 5, { _generation: generation })], { documents: 5 }, { documents: generation });
    expect(await store.get('documents', 'd1')).toMatchObject({ _position: 5 });
    expect(await store.getCheckpoint('documents')).toBe(5);
  });
});

describe('assertMongoRunsTransactions (boot)', () => {
  const dbOf = (fake: FakeMongoClient) => fake.db() as unknown as Parameters<typeof assertMongoRunsTransactions>[0];

  it('accepts a replica set member and a mongos router', async () => {
    const fake = new FakeMongoClient();
    await expect(assertMongoRunsTransactions(dbOf(fake))).resolves.toBeUndefined();
    fake.database.hello = { isWritablePrimary: true, msg: 'isdbgrid' };
    await expect(assertMongoRunsTransactions(dbOf(fake))).resolves.toBeUndefined();
  });

  it('refuses a standalone server, saying commits need a replica set and how to get one', async () => {
    const fake = new FakeMongoClient();
    fake.database.hello = { isWritablePrimary: true };
    await expect(assertMongoRunsTransactions(dbOf(fake))).rejects.toThrow(/standalone server.*replica set.*--replSet/);
  });

  it('asks an old server (no hello) with isMaster', async () => {
    const fake = new FakeMongoClient();
    fake.database.hello = null;
    await expect(assertMongoRunsTransactions(dbOf(fake))).resolves.toBeUndefined();
    expect(fake.database.commands.map((c) => Object.keys(c)[0])).toEqual(['hello', 'isMaster']);
  });
});

describe('MongoReadStore.incrementWindow', () => {
  it('tries the TTL index again after it failed once, instead of failing every request until restart', async () => {
    const { store, db } = open();
    db.collection('windows').failures.createIndex = [new Error('not primary')];
    await expect(store.incrementWindow('key', 0, 60_000)).rejects.toThrow('not primary');
    await expect(store.incrementWindow('key', 0, 60_000)).resolves.toBe(1);
    expect(db.collection('windows').indexes.map((i) => i.name)).toEqual(['ttl_expires_at']);
  });
});

/**
 * Whether MongoDB can read a sort from an index: the index's leading fields are pinned by equality
 * in the filter, and the rest is exactly the sort, walked forwards or backwards.
 */
function indexServes(key: Record<string, number>, filter: Record<string, unknown>, sort: Record<string, number>): boolean {
  const keys = Object.entries(key);
  const sorts = Object.entries(sort);
  if (sorts.length > keys.length) return false;
  const prefix = keys.slice(0, keys.length - sorts.length);
  const rest = keys.slice(keys.length - sorts.length);
  const pinned = prefix.every(([f]) => f in filter && (filter[f] === null || typeof filter[f] !== 'object'));
  const same = rest.every(([f, d], i) => sorts[i][0] === f && sorts[i][1] === d);
  const reversed = rest.every(([f, d], i) => sorts[i][0] === f && sorts[i][1] === -d);
  return pinned && (same || reversed);
}

describe('MongoReadStore sorts and indexes', () => {
  const specs = ALL_PROJECTIONS.flatMap((p) => p.collections).filter((c) => (c.indexes ?? []).length > 0);

  it.each(specs.flatMap((spec) => (spec.indexes ?? []).map((fields) => [spec.name, fields] as const)))(
    '%s: a list by its index %j (leading fields equal, newest or oldest first) is read from that index',
    async (name, fields) => {
      const { store, db } = open();
      await store.ensureCollection(specs.find((s) => s.name === name)!);
      const indexes = db.collection(`rm_${name}`).indexes;
      const where = Object.fromEntries(fields.slice(0, -1).map((f) => [f, 'x']));
      const last = fields[fields.length - 1];
      for (const direction of ['desc', 'asc'] as const) {
        await store.find(name, { where: { ...where, [last]: { $lt: 'z' } }, orderBy: [{ field: last, direction }], limit: 11 });
        const cursor = db.collection(`rm_${name}`).cursors.at(-1)!;
        const [sort] = cursor.sorts;
        const filter = db.ops.filter((o) => o.op === 'find').at(-1)!.args[0] as Record<string, unknown>;
        expect(indexes.some((i) => indexServes(i.key, filter, sort))).toBe(true);
      }
    },
  );

  it('the documents list (organization, mode, not trashed, cursor, newest first) matches an index key pattern exactly', async () => {
    const { store, db } = open();
    for (const spec of specs.filter((s) => s.name === 'documents')) await store.ensureCollection(spec);
    await store.find('documents', {
      where: { organization_id: 'org_1', livemode: false, trashed: false, sort_key: { $lt: 'k' } },
      orderBy: [{ field: 'sort_key', direction: 'desc' }],
      limit: 11,
    });
    const [sort] = db.collection('rm_documents').cursors[0].sorts;
    expect(sort).toEqual({ sort_key: -1, _id: -1 });
    const patterns = db.collection('rm_documents').indexes.map((i) => i.key);
    expect(patterns.map((p) => Object.entries(p))).toContainEqual(Object.entries({ organization_id: 1, livemode: 1, trashed: 1, sort_key: 1, _id: 1 }));
  });
});
