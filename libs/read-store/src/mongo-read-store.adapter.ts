import { randomUUID } from 'crypto';
import { AnyBulkWriteOperation, ClientSession, Collection, Db, Document, MongoClient, MongoServerError } from 'mongodb';
import { assertCollectionName, assertFieldName, CollectionSpec, Condition, FindQuery, ReadDoc, BatchReads, ReadStore, readsByCollection, RowConflictError, RowRead, Scalar, StaleGenerationError, stillAsRead, Write } from './read-store.port';


const NAMESPACE_EXISTS = 48;
const DUPLICATE_KEY = 11000;

interface StoredDoc {
  _id: string;
  [field: string]: unknown;
}

interface WindowDoc {
  _id: string;
  count: number;
  expires_at: Date;
}

interface CheckpointDoc {
  _id: string;
  position: number;
  /** Absent on checkpoints written before generations existed: generation 0. */
  generation?: number;
  /**
   * The last batch commit's own token: every commit changes the document (an update to the same
   * position would be a no-op, which conflicts with nothing), so of two concurrent transactions
   * committing the projection one meets a write conflict and runs again after the other.
   */
  commit?: string;
  /** While a reset drops the collections (ms since the epoch): no commit of this projection lands. */
  resetting_until?: number;
}

type Op = AnyBulkWriteOperation<StoredDoc>;

export interface MongoReadStoreOptions {
  /** Defaults to the database named in the connection string. */
  dbName?: string;
}

function collectionName(collection: string): string {
  assertCollectionName(collection);
  return `rm_${collection}`;
}

function field(name: string): string {
  assertFieldName(name);
  return name;
}

/**
 * Read models in MongoDB: one collection per read-model collection, documents keyed by `_id = id`.
 * A commit is one transaction (MongoDB must run as a replica set, as docker-compose.yml does): the
 * generation fence, the row writes and the checkpoints, so a failure halfway leaves nothing ahead
 * of the checkpoint (the runner skips an event any of whose rows is ahead, so a row written without
 * its batch's other rows would lose those for good). Inside it a put only replaces a stored document
 * whose (`_generation`, `_position`) is not newer, so a replayed or stale batch never moves a
 * document backwards; a concurrent commit touching the same documents is a write conflict, which
 * the driver retries with fresh reads.
 */
/**
 * Refuses, naming the fix, a MongoDB that cannot run transactions: every commit of the read models
 * is one (a standalone server answers the first with "Transaction numbers are only allowed on a
 * replica set member or mongos", long after boot). `hello` names the replica set (`setName`) or a
 * mongos router (`msg: 'isdbgrid'`); servers before 4.4.2 answer `isMaster` instead.
 */
export async function assertMongoRunsTransactions(db: Db): Promise<void> {
  let hello: Document;
  try {
    hello = await db.command({ hello: 1 });
  } catch {
    hello = await db.command({ isMaster: 1 });
  }
  if (typeof hello.setName === 'string' && hello.setName) return;
  if (hello.msg === 'isdbgrid') return;
  throw new Error(
    'MongoDB (MONGO_URL) is a standalone server: the read models commit in transactions, which need a replica set ' +
      '(a single-node one will do: start mongod with --replSet rs0 and run rs.initiate(), as docker-compose.yml does) or a sharded cluster',
  );
}

/** How long a reset keeps commits of its projection out while it drops the collections, at most. */
const RESET_FENCE_MS = 60_000;

export class MongoReadStore implements ReadStore {
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  /** For operators' tooling and tests (e.g. listing indexes); projections go through the port. */
  readonly db: Db;
  private windowsIndex: Promise<void> | undefined;

  /** Pass a MongoClient to share its connection pool (e.g. with the GridFS blob store). */
  constructor(urlOrClient: string | MongoClient, options: MongoReadStoreOptions = {}) {
    this.ownsClient = typeof urlOrClient === 'string';
    this.client = typeof urlOrClient === 'string' ? new MongoClient(urlOrClient) : urlOrClient;
    this.db = this.client.db(options.dbName);
  }

  private coll(collection: string): Collection<StoredDoc> {
    return this.db.collection<StoredDoc>(collectionName(collection));
  }

  private get checkpoints(): Collection<CheckpointDoc> {
    return this.db.collection<CheckpointDoc>('checkpoints');
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    const name = collectionName(spec.name);
    try {
      await this.db.createCollection(name);
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === NAMESPACE_EXISTS)) throw err;
    }
    const indexes = (spec.indexes ?? []).filter((fields) => fields.length > 0);
    if (indexes.length === 0) return;
    // `_id` last: find() breaks ties on it, so a sort on an index's trailing fields plus that
    // tiebreak is the index's own order (or its reverse) and is read from the index, not sorted in
    // memory. A new name: an index of the same name with other keys would be refused.
    await this.db.collection(name).createIndexes(
      indexes.map((fields) => ({
        name: `ix_${fields.join('_')}__id`,
        key: { ...Object.fromEntries(fields.map((f) => [field(f), 1])), _id: 1 },
      })),
    );
  }

  async get<T extends ReadDoc = ReadDoc>(collection: string, id: string): Promise<T | null> {
    const doc = await this.coll(collection).findOne({ _id: id }, { projection: { _id: 0 } });
    return (doc as T | null) ?? null;
  }

  async getMany<T extends ReadDoc = ReadDoc>(collection: string, ids: string[]): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    if (ids.length === 0) return out;
    const docs = await this.coll(collection).find({ _id: { $in: ids } }, { projection: { _id: 0 } }).toArray();
    for (const doc of docs as unknown as T[]) out.set(doc.id, doc);
    return out;
  }

  async find<T extends ReadDoc = ReadDoc>(collection: string, query: FindQuery): Promise<T[]> {
    const filter: Document = {};
    for (const [name, cond] of Object.entries(query.where ?? {})) {
      const condition = toMongo(cond);
      if (condition !== undefined) filter[field(name)] = condition;
    }
    const cursor = this.coll(collection).find(filter, { projection: { _id: 0 } });
    if (query.orderBy?.length) {
      const sort: Record<string, 1 | -1> = {};
      for (const o of query.orderBy) sort[field(o.field)] = o.direction === 'desc' ? -1 : 1;
      // Ties in the requested keys come back in a stable order, so paging does not skip or repeat.
      // In the direction of the last key: the indexes end in `_id: 1`, so the sort walks one
      // forwards or backwards.
      if (!('_id' in sort)) sort._id = sort[field(query.orderBy[query.orderBy.length - 1].field)];
      cursor.sort(sort);
    }
    if (query.limit !== undefined) {
      const limit = Math.max(0, Math.floor(query.limit));
      // limit(0) means "no limit" to MongoDB.
      if (limit === 0) {
        await cursor.close();
        return [];
      }
      cursor.limit(limit);
    }
    return (await cursor.toArray()) as unknown as T[];
  }

  async commit(writes: Write[], checkpoints: Record<string, number>, generations: Record<string, number> = {}, reads?: BatchReads): Promise<void> {
    await this.client.withSession((session) =>
      session.withTransaction(() => this.commitIn(session, writes, checkpoints, generations, reads?.rows ?? []), {
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority' },
      }),
    );
  }

  /** One attempt of a commit's transaction; the driver runs it again after a write conflict. */
  private async commitIn(
    session: ClientSession,
    writes: Write[],
    checkpoints: Record<string, number>,
    generations: Record<string, number>,
    reads: RowRead[],
  ): Promise<void> {
    const names = [...new Set([...Object.keys(generations), ...Object.keys(checkpoints)])];
    const stored = new Map<string, CheckpointDoc>();
    if (names.length) {
      for (const doc of await this.checkpoints.find({ _id: { $in: names } }, { session }).toArray()) stored.set(doc._id, doc);
    }
    // A checkpoint moves only within its generation (absent = 0): the fence against a rebuild.
    const stale = names.filter((name) => (stored.get(name)?.generation ?? 0) !== (generations[name] ?? 0));
    if (stale.length) throw new StaleGenerationError(stale);
    // A reset is dropping the collections (outside any transaction: MongoDB cannot drop inside
    // one): a commit now, even of the new generation, could lose rows to the drop while its
    // checkpoint stayed ahead of them. The runner reloads and tries again.
    const resetting = names.filter((name) => (stored.get(name)?.resetting_until ?? 0) > Date.now());
    if (resetting.length) throw new StaleGenerationError(resetting);

    // The rows the batch built on, still as it read them, in this transaction's snapshot. Two
    // batches of a projection both write its checkpoint document, so one of two concurrent ones
    // meets a write conflict and runs again, and then sees the other's rows here.
    const moved: Array<{ collection: string; id: string }> = [];
    for (const [collection, list] of readsByCollection(reads)) {
      const found = await this.coll(collection)
        .find({ _id: { $in: list.map((r) => r.id) } }, { session, projection: { _id: 1, _generation: 1, _position: 1 } })
        .toArray();
      const stored = new Map(found.map((doc) => [doc._id, { generation: numberOr(doc._generation, 0), position: numberOr(doc._position, null) }]));
      for (const r of list) if (!stillAsRead(r, stored.get(r.id))) moved.push({ collection, id: r.id });
    }
    if (moved.length) throw new RowConflictError(moved);

    const byCollection = new Map<string, Write[]>();
    for (const w of writes) {
      let list = byCollection.get(w.collection);
      if (!list) byCollection.set(w.collection, (list = []));
      list.push(w);
    }
    // Sequential: a transaction's operations may not run in parallel.
    for (const [collection, list] of byCollection) await this.applyIn(session, this.coll(collection), list);

    const token = randomUUID();
    for (const [name, position] of Object.entries(checkpoints)) {
      await this.checkpoints.updateOne(
        { _id: name },
        { $set: { position: Math.max(stored.get(name)?.position ?? 0, position), generation: generations[name] ?? 0, commit: token } },
        { upsert: true, session },
      );
    }
  }

  /**
   * Reads the (`_generation`, `_position`) of every row the writes touch, inside the transaction,
   * and sends only the writes the port allows, in order, as one ordered bulk write.
   */
  private async applyIn(session: ClientSession, coll: Collection<StoredDoc>, writes: Write[]): Promise<void> {
    const ids = [...new Set(writes.map((w) => (w.op === 'put' ? w.doc.id : w.id)))];
    const rows = new Map<string, RowVersion | null>();
    const found = await coll.find({ _id: { $in: ids } }, { session, projection: { _id: 1, _generation: 1, _position: 1 } }).toArray();
    for (const doc of found) rows.set(doc._id, { generation: numberOr(doc._generation, 0), position: numberOr(doc._position, undefined) });
    const ops: Op[] = [];
    for (const w of writes) {
      if (w.op === 'put') {
        const replacement = asStored(w.doc);
        const row = { generation: numberOr(replacement._generation, 0), position: numberOr(replacement._position, undefined) };
        if (!mayReplace(rows.get(replacement._id) ?? null, row)) continue;
        ops.push({ replaceOne: { filter: { _id: replacement._id }, replacement, upsert: true } });
        rows.set(replacement._id, row);
      } else {
        const existing = rows.get(w.id) ?? null;
        if (!existing || existing.generation > (w.generation ?? 0)) continue;
        ops.push({ deleteOne: { filter: { _id: w.id } } });
        rows.set(w.id, null);
      }
    }
    if (ops.length) await coll.bulkWrite(ops, { ordered: true, session });
  }

  async putIfVersion(collection: string, doc: ReadDoc, expectedVersion: number | null): Promise<boolean> {
    if (typeof doc.id !== 'string' || doc.id === '') throw new Error('read-model document without an id');
    const json = JSON.parse(JSON.stringify(doc)) as ReadDoc;
    const replacement: StoredDoc = { ...json, _id: json.id, _version: (expectedVersion ?? 0) + 1 };
    if (expectedVersion === null) {
      try {
        await this.coll(collection).insertOne(replacement);
        return true;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
    }
    // No upsert: a missing row never matches. A row without _version is version 0.
    const version = expectedVersion === 0 ? { $in: [0, null] } : expectedVersion;
    const result = await this.coll(collection).replaceOne({ _id: json.id, _version: version }, replacement);
    return result.matchedCount === 1;
  }

  async getCheckpoint(name: string): Promise<number> {
    const doc = await this.checkpoints.findOne({ _id: name });
    return doc?.position ?? 0;
  }

  async getCheckpoints(names: string[]): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of names) out[name] = 0;
    if (names.length === 0) return out;
    for (const doc of await this.checkpoints.find({ _id: { $in: names } }).toArray()) out[doc._id] = doc.position;
    return out;
  }

  async getGenerations(names: string[]): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of names) out[name] = 0;
    if (names.length === 0) return out;
    for (const doc of await this.checkpoints.find({ _id: { $in: names } }).toArray()) out[doc._id] = doc.generation ?? 0;
    return out;
  }

  async reset(name: string, collections: string[]): Promise<number> {
    // Checkpoint first: if we stop halfway, a checkpoint of 0 over leftover documents rebuilds
    // correctly (guarded puts), while a kept checkpoint over dropped collections would not. The
    // document stays, at the next generation, so runners of the old one are fenced off; and until
    // the drops are done it refuses commits of the new generation too (a runner that reloaded in
    // the gap would write rows the drop then loses, its checkpoint ahead of them). A reset that
    // dies halfway lifts that fence by itself after RESET_FENCE_MS.
    const doc = await this.checkpoints.findOneAndUpdate(
      { _id: name },
      { $set: { position: 0, resetting_until: Date.now() + RESET_FENCE_MS }, $inc: { generation: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    const generation = doc?.generation ?? 1;
    for (const c of collections) await this.coll(c).drop();
    await this.checkpoints.updateOne({ _id: name, generation }, { $set: { resetting_until: 0 } });
    return generation;
  }

  async incrementWindow(key: string, windowStart: number, ttlMs: number, hits = 1): Promise<number> {
    const windows = this.db.collection<WindowDoc>('windows');
    // A TTL index removes a counter once its window is over (MongoDB sweeps about once a minute).
    // A failed attempt is forgotten, so the next request tries again instead of failing until restart.
    this.windowsIndex ??= windows
      .createIndex({ expires_at: 1 }, { name: 'ttl_expires_at', expireAfterSeconds: 0 })
      .then(() => undefined)
      .catch((err) => {
        this.windowsIndex = undefined;
        throw err;
      });
    await this.windowsIndex;
    const _id = `${key}|${windowStart}`;
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await windows.findOneAndUpdate(
          { _id },
          { $inc: { count: hits }, $setOnInsert: { expires_at: new Date(windowStart + ttlMs) } },
          { upsert: true, returnDocument: 'after' },
        );
        return doc?.count ?? hits;
      } catch (err) {
        // Two first hits racing to insert the same window: the loser retries as an update.
        if (attempt < 3 && err instanceof MongoServerError && err.code === DUPLICATE_KEY) continue;
        throw err;
      }
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}

interface RowVersion {
  generation: number;
  position: number | undefined;
}

function numberOr<T>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' ? value : fallback;
}

/**
 * Documents go in as the JSON the SQLite adapter would store: Dates become strings and undefined
 * fields disappear (the driver would otherwise store BSON dates and nulls).
 */
function asStored(doc: ReadDoc): StoredDoc {
  if (typeof doc.id !== 'string' || doc.id === '') throw new Error('read-model document without an id');
  const json = JSON.parse(JSON.stringify(doc)) as ReadDoc;
  return { ...json, _id: json.id };
}

/** A put replaces a row of an older generation, or of its own at no later position (see the port). */
function mayReplace(existing: RowVersion | null, next: RowVersion): boolean {
  if (!existing) return true;
  if (existing.generation !== next.generation) return existing.generation < next.generation;
  return next.position === undefined || existing.position === undefined || existing.position <= next.position;
}

/** undefined for an operator object with no operators: it constrains nothing, as in SQLite. */
function toMongo(cond: Condition): unknown {
  if (cond === null || typeof cond !== 'object') return cond;
  const out: Record<string, Scalar | Scalar[]> = {};
  for (const op of ['$gt', '$gte', '$lt', '$lte', '$ne'] as const) {
    const v = cond[op];
    if (v !== undefined) out[op] = v;
  }
  if (cond.$in !== undefined) out.$in = cond.$in;
  return Object.keys(out).length ? out : undefined;
}
