import { randomUUID } from 'crypto';
import { FindQuery, ReadDoc, ReadStore, rowVersion, Write } from './read-store.port';

export interface ReadStoreContractOptions {
  /** Number of secondary indexes (not the primary key) on a read-model collection. */
  indexCount?: (store: ReadStore, collection: string) => Promise<number>;
  /**
   * Whether a put is skipped when the stored document has a higher `_position`. MongoDB needs it
   * (writes and checkpoints are not atomic); SQLite commits both in one transaction instead.
   */
  guardsStalePuts?: boolean;
}

/**
 * The behaviour every ReadStore adapter must have. `make` is called for each test; all instances
 * from one suite run share the same storage. Tests use their own fresh collection and checkpoint
 * names, so the storage need not be empty.
 */
export function readStoreContract(name: string, make: () => Promise<ReadStore>, options: ReadStoreContractOptions = {}): void {
  describe(`ReadStore contract: ${name}`, () => {
    const run = randomUUID().replace(/-/g, '').slice(0, 8);
    let counter = 0;
    const opened: ReadStore[] = [];
    let store: ReadStore;

    /** A collection (or checkpoint) name no other test has used. */
    const fresh = (kind = 't') => `${kind}${run}_${++counter}`;
    const put = (collection: string, doc: ReadDoc): Write => ({ op: 'put', collection, doc });
    const del = (collection: string, id: string): Write => ({ op: 'delete', collection, id });
    const ids = (docs: ReadDoc[]) => docs.map((d) => d.id);

    beforeEach(async () => {
      store = await make();
      opened.push(store);
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    describe('collections', () => {
      it('creates a collection with its indexes, idempotently', async () => {
        const c = fresh();
        const spec = { name: c, indexes: [['status', 'created_at'], ['organization_id']] };
        await store.ensureCollection(spec);
        await store.ensureCollection(spec);
        if (options.indexCount) expect(await options.indexCount(store, c)).toBe(2);
        await store.commit([put(c, { id: 'a', status: 'draft', created_at: '2024-01-01', organization_id: 'org_1' })], {});
        expect(await store.find(c, { where: { status: 'draft' }, orderBy: [{ field: 'created_at', direction: 'asc' }] })).toHaveLength(1);
      });

      it('rejects collection and field names that could escape their place', async () => {
        await expect(store.ensureCollection({ name: 'Bad-Name; drop' })).rejects.toThrow();
        const c = fresh();
        await store.ensureCollection({ name: c });
        await expect(store.find(c, { where: { 'a.b': 1 } })).rejects.toThrow();
        await expect(store.find(c, { where: { $where: 1 } })).rejects.toThrow();
        await expect(store.find(c, { orderBy: [{ field: "x') --", direction: 'asc' }] })).rejects.toThrow();
      });

      it('holds every collection name to one rule: 60 characters are taken, 61 refused on every store', async () => {
        const longest = `${fresh()}_`.padEnd(60, 'x');
        await store.ensureCollection({ name: longest });
        await store.commit([put(longest, { id: 'a' })], {});
        expect(ids(await store.find(longest, {}))).toEqual(['a']);
        await expect(store.ensureCollection({ name: `${longest}x` })).rejects.toThrow(/invalid collection name/);
      });
    });

    describe('documents', () => {
      it('puts, gets, gets many and deletes through commit', async () => {
        const c = fresh();
        await store.ensureCollection({ name: c });
        const a = { id: 'a', title: '근로계약서', _position: 1 };
        const b = { id: 'b', title: 'NDA', _position: 2 };
        const d = { id: 'd', title: 'Lease', _position: 3 };
        await store.commit([put(c, a), put(c, b), put(c, d)], {});
        expect(await store.get(c, 'a')).toEqual(a);
        expect(await store.get(c, 'missing')).toBeNull();
        const many = await store.getMany(c, ['a', 'missing', 'd']);
        expect([...many.keys()].sort()).toEqual(['a', 'd']);
        expect(many.get('d')).toEqual(d);
        expect((await store.getMany(c, [])).size).toBe(0);
        await store.commit([del(c, 'b')], {});
        expect(await store.get(c, 'b')).toBeNull();
        await store.commit([del(c, 'never-existed')], {});
      });

      it('replaces the whole document on put', async () => {
        const c = fresh();
        await store.commit([put(c, { id: 'a', kept: 1, dropped: 2, _position: 1 })], {});
        await store.commit([put(c, { id: 'a', kept: 3, _position: 2 })], {});
        expect(await store.get(c, 'a')).toEqual({ id: 'a', kept: 3, _position: 2 });
      });

      it('applies a put and a delete of one id in the order given', async () => {
        const c = fresh();
        await store.commit([put(c, { id: 'a', _position: 1 }), del(c, 'a'), del(c, 'b'), put(c, { id: 'b', _position: 1 })], {});
        expect(await store.get(c, 'a')).toBeNull();
        expect(await store.get(c, 'b')).toEqual({ id: 'b', _position: 1 });
      });

      it('round-trips booleans, nulls, nesting and unicode as JSON', async () => {
        const c = fresh();
        const doc = { id: 'a', on: true, off: false, nothing: null, zero: 0, empty: '', nested: { list: [1, null, true, '서명'], deep: { x: -1.5 } } };
        await store.commit([put(c, doc)], {});
        expect(await store.get(c, 'a')).toEqual(doc);
      });

      it('stores values JSON changes as JSON does (Date, undefined)', async () => {
        const c = fresh();
        const at = new Date('2024-05-06T07:08:09.000Z');
        await store.commit([put(c, { id: 'a', at, gone: undefined })], {});
        const got = await store.get(c, 'a');
        expect(got).toEqual({ id: 'a', at: at.toISOString() });
        expect(got && 'gone' in got).toBe(false);
      });

      it('works on a collection nobody ensured', async () => {
        const c = fresh();
        expect(await store.get(c, 'a')).toBeNull();
        expect(await store.find(c, {})).toEqual([]);
        await store.commit([put(c, { id: 'a' })], {});
        expect(await store.get(c, 'a')).toEqual({ id: 'a' });
      });
    });

    describe('find', () => {
      let c: string;
      const docs: ReadDoc[] = [
        { id: 'd1', status: 'draft', amount: 100, signed: false, note: null, title: '가나다', created_at: '2024-01-01' },
        { id: 'd2', status: 'sent', amount: 250, signed: false, note: 'x', title: 'b', created_at: '2024-01-03' },
        { id: 'd3', status: 'completed', amount: 250, signed: true, note: 'y', title: 'a', created_at: '2024-01-02' },
        { id: 'd4', status: 'sent', amount: 50, signed: true, title: 'c', created_at: '2024-01-04' },
        { id: 'd5', status: 'voided', amount: 1000, signed: false, note: null, title: 'd', created_at: '2024-01-05' },
      ];
      const where = async (w: FindQuery['where']) => ids(await store.find(c, { where: w })).sort();

      beforeEach(async () => {
        c = fresh();
        await store.ensureCollection({ name: c, indexes: [['status', 'amount']] });
        await store.commit(
          docs.map((d) => put(c, d)),
          {},
        );
      });

      it('returns everything without conditions, as stored', async () => {
        const all = await store.find(c, {});
        expect(ids(all).sort()).toEqual(['d1', 'd2', 'd3', 'd4', 'd5']);
        expect(all.find((d) => d.id === 'd1')).toEqual(docs[0]);
      });

      it('matches equality on strings, numbers and booleans', async () => {
        expect(await where({ status: 'sent' })).toEqual(['d2', 'd4']);
        expect(await where({ amount: 250 })).toEqual(['d2', 'd3']);
        expect(await where({ signed: true })).toEqual(['d3', 'd4']);
        expect(await where({ signed: false })).toEqual(['d1', 'd2', 'd5']);
        expect(await where({ title: '가나다' })).toEqual(['d1']);
        expect(await where({ status: 'nope' })).toEqual([]);
      });

      it('matches null as null or missing, and $ne: null as present', async () => {
        expect(await where({ note: null })).toEqual(['d1', 'd4', 'd5']);
        expect(await where({ note: { $ne: null } })).toEqual(['d2', 'd3']);
        expect(await where({ nowhere: null })).toEqual(['d1', 'd2', 'd3', 'd4', 'd5']);
      });

      it('matches $ne on a value, including null and missing fields', async () => {
        expect(await where({ status: { $ne: 'sent' } })).toEqual(['d1', 'd3', 'd5']);
        expect(await where({ note: { $ne: 'x' } })).toEqual(['d1', 'd3', 'd4', 'd5']);
        expect(await where({ signed: { $ne: true } })).toEqual(['d1', 'd2', 'd5']);
      });

      it('matches $gt, $gte, $lt, $lte and ranges', async () => {
        expect(await where({ amount: { $gt: 100 } })).toEqual(['d2', 'd3', 'd5']);
        expect(await where({ amount: { $gte: 100 } })).toEqual(['d1', 'd2', 'd3', 'd5']);
        expect(await where({ amount: { $lt: 250 } })).toEqual(['d1', 'd4']);
        expect(await where({ amount: { $lte: 250 } })).toEqual(['d1', 'd2', 'd3', 'd4']);
        expect(await where({ amount: { $gt: 50, $lt: 1000 } })).toEqual(['d1', 'd2', 'd3']);
        expect(await where({ created_at: { $gte: '2024-01-02', $lt: '2024-01-04' } })).toEqual(['d2', 'd3']);
      });

      it('matches $in, with an empty list matching nothing and null matching null or missing', async () => {
        expect(await where({ status: { $in: ['draft', 'completed'] } })).toEqual(['d1', 'd3']);
        expect(await where({ amount: { $in: [50, 1000] } })).toEqual(['d4', 'd5']);
        expect(await where({ status: { $in: [] } })).toEqual([]);
        expect(await where({ note: { $in: ['y', null] } })).toEqual(['d1', 'd3', 'd4', 'd5']);
      });

      it('ands conditions on several fields', async () => {
        expect(await where({ status: 'sent', signed: true })).toEqual(['d4']);
        expect(await where({ status: { $in: ['sent', 'completed'] }, amount: { $gte: 250 }, signed: false })).toEqual(['d2']);
      });

      it('treats an operator object with no operators as no condition', async () => {
        expect(await where({ amount: {} })).toEqual(['d1', 'd2', 'd3', 'd4', 'd5']);
      });

      it('orders by several keys in either direction', async () => {
        const order = async (orderBy: FindQuery['orderBy']) => ids(await store.find(c, { orderBy }));
        expect(await order([{ field: 'created_at', direction: 'asc' }])).toEqual(['d1', 'd3', 'd2', 'd4', 'd5']);
        expect(await order([{ field: 'created_at', direction: 'desc' }])).toEqual(['d5', 'd4', 'd2', 'd3', 'd1']);
        expect(
          await order([
            { field: 'amount', direction: 'desc' },
            { field: 'id', direction: 'asc' },
          ]),
        ).toEqual(['d5', 'd2', 'd3', 'd1', 'd4']);
        expect(
          await order([
            { field: 'amount', direction: 'asc' },
            { field: 'title', direction: 'desc' },
          ]),
        ).toEqual(['d4', 'd1', 'd2', 'd3', 'd5']);
      });

      it('puts null and missing values first ascending and last descending', async () => {
        const asc = ids(await store.find(c, { orderBy: [{ field: 'note', direction: 'asc' }, { field: 'id', direction: 'asc' }] }));
        expect(asc).toEqual(['d1', 'd4', 'd5', 'd2', 'd3']);
        const desc = ids(await store.find(c, { orderBy: [{ field: 'note', direction: 'desc' }, { field: 'id', direction: 'asc' }] }));
        expect(desc).toEqual(['d3', 'd2', 'd1', 'd4', 'd5']);
      });

      it('limits after filtering and ordering', async () => {
        const page = await store.find(c, { where: { status: { $ne: 'voided' } }, orderBy: [{ field: 'amount', direction: 'asc' }], limit: 2 });
        expect(ids(page)).toEqual(['d4', 'd1']);
        expect(await store.find(c, { limit: 0 })).toEqual([]);
        expect(await store.find(c, { limit: 100 })).toHaveLength(5);
      });
    });

    describe('incrementWindow', () => {
      const MINUTE = 60_000;

      it('counts hits per key and per window, starting at 1', async () => {
        const [k1, k2] = [fresh('rl'), fresh('rl')];
        const w0 = 1_767_225_600_000;
        expect(await store.incrementWindow(k1, w0, MINUTE)).toBe(1);
        expect(await store.incrementWindow(k1, w0, MINUTE)).toBe(2);
        expect(await store.incrementWindow(k1, w0, MINUTE)).toBe(3);
        expect(await store.incrementWindow(k2, w0, MINUTE)).toBe(1);
        // The next window starts again from 1; the earlier one is not touched by it.
        expect(await store.incrementWindow(k1, w0 + MINUTE, MINUTE)).toBe(1);
        expect(await store.incrementWindow(k1, w0 + MINUTE, MINUTE)).toBe(2);
      });

      it('loses no hit when many instances count one window at once', async () => {
        const k = fresh('rl');
        const w0 = 1_767_225_660_000;
        const other = await make();
        opened.push(other);
        const counts = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? store : other).incrementWindow(k, w0, MINUTE)));
        expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        expect(await store.incrementWindow(k, w0, MINUTE)).toBe(41);
      });

      it('counts several hits at once', async () => {
        const k = fresh('rl');
        const w0 = 1_767_225_720_000;
        expect(await store.incrementWindow(k, w0, MINUTE, 5)).toBe(5);
        expect(await store.incrementWindow(k, w0, MINUTE)).toBe(6);
        expect(await store.incrementWindow(k, w0, MINUTE, 3)).toBe(9);
      });
    });

    describe('checkpoints', () => {
      it('reads 0 for an unknown checkpoint', async () => {
        expect(await store.getCheckpoint(fresh('cp'))).toBe(0);
        const [x, y] = [fresh('cp'), fresh('cp')];
        expect(await store.getCheckpoints([x, y])).toEqual({ [x]: 0, [y]: 0 });
        expect(await store.getCheckpoints([])).toEqual({});
      });

      it('only ever moves a checkpoint forward', async () => {
        const [p, q, r] = [fresh('cp'), fresh('cp'), fresh('cp')];
        await store.commit([], { [p]: 10 });
        expect(await store.getCheckpoint(p)).toBe(10);
        await store.commit([], { [p]: 5 });
        expect(await store.getCheckpoint(p)).toBe(10);
        await store.commit([], { [p]: 12, [q]: 3 });
        expect(await store.getCheckpoints([p, q, r])).toEqual({ [p]: 12, [q]: 3, [r]: 0 });
        // Positions of a production log exceed 32 bits.
        await store.commit([], { [q]: 2 ** 40 + 7 });
        expect(await store.getCheckpoint(q)).toBe(2 ** 40 + 7);
      });

      it('is the same after a commit applied twice as after once', async () => {
        const c = fresh();
        const cp = fresh('cp');
        await store.commit([put(c, { id: 'gone', _position: 1 }), put(c, { id: 'kept', v: 0, _position: 1 })], { [cp]: 1 });
        const batch: Write[] = [put(c, { id: 'a', v: 1, _position: 5 }), put(c, { id: 'kept', v: 2, _position: 5 }), del(c, 'gone'), put(c, { id: 'b', v: 3, _position: 5 })];
        await store.commit(batch, { [cp]: 5 });
        const once = await store.find(c, { orderBy: [{ field: 'id', direction: 'asc' }] });
        await store.commit(batch, { [cp]: 5 });
        expect(await store.find(c, { orderBy: [{ field: 'id', direction: 'asc' }] })).toEqual(once);
        expect(ids(once)).toEqual(['a', 'b', 'kept']);
        expect(await store.getCheckpoint(cp)).toBe(5);
      });

      if (options.guardsStalePuts) {
        it('never lets an older put overwrite a newer document', async () => {
          const c = fresh();
          await store.commit([put(c, { id: 'a', v: 'new', _position: 10 })], {});
          await store.commit([put(c, { id: 'a', v: 'old', _position: 4 }), put(c, { id: 'b', v: 'after', _position: 4 })], {});
          expect(await store.get(c, 'a')).toEqual({ id: 'a', v: 'new', _position: 10 });
          expect(await store.get(c, 'b')).toEqual({ id: 'b', v: 'after', _position: 4 });
          await store.commit([put(c, { id: 'a', v: 'same', _position: 10 })], {});
          expect((await store.get(c, 'a'))?.v).toBe('same');
          await store.commit([put(c, { id: 'a', v: 'unpositioned' })], {});
          expect(await store.get(c, 'a')).toEqual({ id: 'a', v: 'unpositioned' });
        });
      }
    });

    describe('putIfVersion', () => {
      it('inserts only when absent, then replaces only at the expected version', async () => {
        const c = fresh();
        await store.ensureCollection({ name: c, indexes: [['status']] });
        expect(await store.putIfVersion(c, { id: 'a', status: 'pending' }, null)).toBe(true);
        expect(await store.get(c, 'a')).toEqual({ id: 'a', status: 'pending', _version: 1 });
        // A second insert of the same id loses, and leaves the row alone.
        expect(await store.putIfVersion(c, { id: 'a', status: 'other' }, null)).toBe(false);
        expect(await store.putIfVersion(c, { id: 'a', status: 'stale' }, 0)).toBe(false);
        expect(await store.putIfVersion(c, { id: 'a', status: 'claimed', _version: 99 }, 1)).toBe(true);
        expect(await store.get(c, 'a')).toEqual({ id: 'a', status: 'claimed', _version: 2 });
        expect(await store.putIfVersion(c, { id: 'a', status: 'late' }, 1)).toBe(false);
        expect(ids(await store.find(c, { where: { status: 'claimed', _version: 2 } }))).toEqual(['a']);
        // Nothing to replace: a missing row never matches a version.
        expect(await store.putIfVersion(c, { id: 'missing', status: 'x' }, 1)).toBe(false);
        expect(await store.get(c, 'missing')).toBeNull();
      });

      it('treats a row written by commit (no _version) as version 0', async () => {
        const c = fresh();
        await store.commit([put(c, { id: 'a', n: 1 })], {});
        expect(await store.putIfVersion(c, { id: 'a', n: 2 }, 1)).toBe(false);
        expect(await store.putIfVersion(c, { id: 'a', n: 2 }, 0)).toBe(true);
        expect(await store.get(c, 'a')).toEqual({ id: 'a', n: 2, _version: 1 });
      });

      it('lets exactly one of many concurrent claimers of one version win, across instances', async () => {
        const c = fresh();
        await store.putIfVersion(c, { id: 'job', owner: null }, null);
        const other = await make();
        opened.push(other);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? store : other).putIfVersion(c, { id: 'job', owner: `w${i}` }, 1)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const row = await other.get<ReadDoc & { owner: string }>(c, 'job');
        expect(row?._version).toBe(2);
        expect(row?.owner).toBe(`w${results.indexOf(true)}`);
      });
    });

    describe('reset', () => {
      it("drops a projection's collections and checkpoint, and nothing else", async () => {
        const [c1, c2, other] = [fresh(), fresh(), fresh()];
        const [cp, otherCp] = [fresh('cp'), fresh('cp')];
        await store.ensureCollection({ name: c1, indexes: [['status']] });
        await store.commit([put(c1, { id: 'a', status: 'x' }), put(c2, { id: 'b' }), put(other, { id: 'c' })], { [cp]: 7, [otherCp]: 9 });
        expect(await store.reset(cp, [c1, c2])).toBe(1);
        expect(await store.getGenerations([cp, otherCp])).toEqual({ [cp]: 1, [otherCp]: 0 });
        expect(await store.get(c1, 'a')).toBeNull();
        expect(await store.find(c1, { where: { status: 'x' } })).toEqual([]);
        expect(await store.getMany(c2, ['b'])).toEqual(new Map());
        expect(await store.getCheckpoint(cp)).toBe(0);
        expect(await store.get(other, 'c')).toEqual({ id: 'c' });
        expect(await store.getCheckpoint(otherCp)).toBe(9);

        // Rebuilding after the reset starts from an empty collection.
        await store.ensureCollection({ name: c1, indexes: [['status']] });
        await store.commit([put(c1, { id: 'z', status: 'x', _generation: 1 })], { [cp]: 1 }, { [cp]: 1 });
        expect(ids(await store.find(c1, { where: { status: 'x' } }))).toEqual(['z']);
        expect(await store.getCheckpoint(cp)).toBe(1);
      });

      it('resets collections that never existed', async () => {
        expect(await store.reset(fresh('cp'), [fresh()])).toBe(1);
      });

      it('starts the next generation on every reset', async () => {
        const cp = fresh('cp');
        expect(await store.getGenerations([cp])).toEqual({ [cp]: 0 });
        expect(await store.reset(cp, [])).toBe(1);
        expect(await store.reset(cp, [])).toBe(2);
        expect(await store.getGenerations([cp])).toEqual({ [cp]: 2 });
      });
    });

    describe('generations (a rebuild racing a runner of the old generation)', () => {
      it('refuses a commit fenced with a generation the projection has moved past, writing none of it', async () => {
        const [c, cp] = [fresh(), fresh('cp')];
        await store.commit([put(c, { id: 'a', _position: 5 })], { [cp]: 5 }, { [cp]: 0 });
        await store.reset(cp, [c]);
        const stale = store.commit([put(c, { id: 'b', _position: 9 })], { [cp]: 9 }, { [cp]: 0 });
        await expect(stale).rejects.toMatchObject({ name: 'StaleGenerationError', projections: [cp] });
        expect(await store.get(c, 'b')).toBeNull();
        expect(await store.getCheckpoint(cp)).toBe(0);
        // The current generation commits as usual.
        await store.commit([put(c, { id: 'b', _position: 2, _generation: 1 })], { [cp]: 2 }, { [cp]: 1 });
        expect(await store.get(c, 'b')).toMatchObject({ _position: 2, _generation: 1 });
        expect(await store.getCheckpoint(cp)).toBe(2);
      });

      it('lets a newer generation replace a row whatever its position, and never the reverse', async () => {
        const c = fresh();
        // Written by a runner of the old generation after the reset: far ahead, built on nothing.
        await store.commit([put(c, { id: 'a', v: 'partial', _position: 90 })], {});
        await store.commit([put(c, { id: 'a', v: 'rebuilt', _position: 3, _generation: 1 })], {});
        expect(await store.get(c, 'a')).toMatchObject({ v: 'rebuilt', _position: 3, _generation: 1 });
        // The old generation can neither move it back nor delete it.
        await store.commit([put(c, { id: 'a', v: 'stale', _position: 95 })], {});
        await store.commit([{ op: 'delete', collection: c, id: 'a' }], {});
        expect(await store.get(c, 'a')).toMatchObject({ v: 'rebuilt', _generation: 1 });
        // Within a generation the position guard holds as before.
        await store.commit([put(c, { id: 'a', v: 'older', _position: 2, _generation: 1 })], {});
        expect(await store.get(c, 'a')).toMatchObject({ v: 'rebuilt' });
        await store.commit([{ op: 'delete', collection: c, id: 'a', generation: 1 }], {});
        expect(await store.get(c, 'a')).toBeNull();
      });

      it('moves a checkpoint only within its generation', async () => {
        const cp = fresh('cp');
        await store.reset(cp, []);
        await store.commit([], { [cp]: 4 }, { [cp]: 1 });
        await expect(store.commit([], { [cp]: 50 })).rejects.toMatchObject({ name: 'StaleGenerationError' });
        expect(await store.getCheckpoint(cp)).toBe(4);
      });
    });

    describe('reads (two runners projecting into one store)', () => {
      it('commits a batch whose rows are as it read them, present or absent', async () => {
        const [c, cp] = [fresh(), fresh('cp')];
        await store.commit([put(c, { id: 'job', sent: 1, _position: 1 })], { [cp]: 1 }, { [cp]: 0 });
        const job = await store.get(c, 'job');
        const reads = [
          { collection: c, id: 'job', found: rowVersion(job) },
          { collection: c, id: 'row-2', found: null },
        ];
        await store.commit([put(c, { id: 'job', sent: 2, _position: 2 }), put(c, { id: 'row-2', _position: 2 })], { [cp]: 2 }, { [cp]: 0 }, { rows: reads });
        expect(await store.get(c, 'job')).toMatchObject({ sent: 2, _position: 2 });
        expect(await store.getCheckpoint(cp)).toBe(2);
      });

      it('refuses, writing none of it, a batch built on a row another commit moved since it read it', async () => {
        const [c, cp] = [fresh(), fresh('cp')];
        await store.commit([put(c, { id: 'job', sent: 0, _position: 1 })], { [cp]: 1 }, { [cp]: 0 });
        // This batch reads the job row (sent 0), then another runner commits rows 2 and 3.
        const stale = rowVersion(await store.get(c, 'job'));
        await store.commit([put(c, { id: 'job', sent: 2, _position: 3 }), put(c, { id: 'row-2', _position: 2 }), put(c, { id: 'row-3', _position: 3 })], { [cp]: 3 }, { [cp]: 0 });
        // It read row 3 after that commit (so skips it), row 4 absent: a job at position 4 would say sent 1.
        const reads = [
          { collection: c, id: 'job', found: stale },
          { collection: c, id: 'row-3', found: rowVersion(await store.get(c, 'row-3')) },
          { collection: c, id: 'row-4', found: null },
        ];
        const lost = store.commit([put(c, { id: 'job', sent: 1, _position: 4 }), put(c, { id: 'row-4', _position: 4 })], { [cp]: 4 }, { [cp]: 0 }, { rows: reads });
        await expect(lost).rejects.toMatchObject({ name: 'RowConflictError', rows: [{ collection: c, id: 'job' }] });
        expect(await store.get(c, 'job')).toMatchObject({ sent: 2, _position: 3 });
        expect(await store.get(c, 'row-4')).toBeNull();
        expect(await store.getCheckpoint(cp)).toBe(3);
      });

      it('refuses a batch that read a row absent which is there now, or present which is gone', async () => {
        const [c, cp] = [fresh(), fresh('cp')];
        await store.commit([put(c, { id: 'a', _position: 1 })], { [cp]: 1 }, { [cp]: 0 });
        const a = rowVersion(await store.get(c, 'a'));
        await store.commit([del(c, 'a'), put(c, { id: 'b', _position: 2 })], { [cp]: 2 }, { [cp]: 0 });
        const appeared = store.commit([put(c, { id: 'x', _position: 3 })], { [cp]: 3 }, { [cp]: 0 }, { rows: [{ collection: c, id: 'b', found: null }] });
        await expect(appeared).rejects.toMatchObject({ name: 'RowConflictError', rows: [{ collection: c, id: 'b' }] });
        const gone = store.commit([put(c, { id: 'x', _position: 3 })], { [cp]: 3 }, { [cp]: 0 }, { rows: [{ collection: c, id: 'a', found: a }] });
        await expect(gone).rejects.toMatchObject({ name: 'RowConflictError', rows: [{ collection: c, id: 'a' }] });
        expect(await store.get(c, 'x')).toBeNull();
        expect(await store.getCheckpoint(cp)).toBe(2);
      });

      it('checks the rows despite a change mark once anything was committed since it, by this instance or another', async () => {
        const [c, cp] = [fresh(), fresh('cp')];
        await store.commit([put(c, { id: 'job', n: 0, _position: 1 })], { [cp]: 1 }, { [cp]: 0 });
        for (const writer of [store, await make()]) {
          if (writer !== store) opened.push(writer);
          const since = await store.changeMark?.();
          const read = rowVersion(await store.get(c, 'job'));
          const position = read!.position! + 1;
          await writer.commit([put(c, { id: 'job', n: position, _position: position })], { [cp]: position }, { [cp]: 0 });
          const late = store.commit([put(c, { id: 'job', n: -1, _position: position + 1 })], { [cp]: position + 1 }, { [cp]: 0 }, { rows: [{ collection: c, id: 'job', found: read }], since });
          await expect(late).rejects.toMatchObject({ name: 'RowConflictError' });
          expect(await store.get(c, 'job')).toMatchObject({ n: position });
        }
        // Nothing committed since the mark: the batch goes in.
        const since = await store.changeMark?.();
        const read = rowVersion(await store.get(c, 'job'));
        await store.commit([put(c, { id: 'job', n: 9, _position: 9 })], { [cp]: 9 }, { [cp]: 0 }, { rows: [{ collection: c, id: 'job', found: read }], since });
        expect(await store.get(c, 'job')).toMatchObject({ n: 9 });
      });

      it('compares a row of an older generation by its generation too', async () => {
        const [c, cp] = [fresh(), fresh('cp')];
        await store.commit([put(c, { id: 'a', _position: 7 })], { [cp]: 7 }, { [cp]: 0 });
        const old = rowVersion(await store.get(c, 'a'));
        // Rebuilt by the next generation at a lower position since.
        await store.commit([put(c, { id: 'a', _position: 2, _generation: 1 })], {});
        const late = store.commit([put(c, { id: 'b', _position: 8 })], {}, {}, { rows: [{ collection: c, id: 'a', found: old }] });
        await expect(late).rejects.toMatchObject({ name: 'RowConflictError' });
        await store.commit([put(c, { id: 'b', _position: 8, _generation: 1 })], {}, {}, { rows: [{ collection: c, id: 'a', found: { generation: 1, position: 2 } }] });
        expect(await store.get(c, 'b')).toMatchObject({ _position: 8 });
      });
    });
  });
}
