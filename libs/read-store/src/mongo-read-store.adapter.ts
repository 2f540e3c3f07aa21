import { AnyBulkWriteOperation, Collection, Db, Document, MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
import { CollectionSpec, Condition, FindQuery, ReadDoc, ReadStore, Scalar, Write } from './read-store.port';

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
// Also keeps query operators ($where) and dotted paths out of filters and sorts.
const FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

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
}

type Op = AnyBulkWriteOperation<StoredDoc>;

export interface MongoReadStoreOptions {
  /** Defaults to the database named in the connection string. */
  dbName?: string;
}

function collectionName(collection: string): string {
  if (!NAME.test(collection)) throw new Error(`invalid collection name ${collection}`);
  return `rm_${collection}`;
}

function field(name: string): string {
  if (!FIELD.test(name)) throw new Error(`invalid field name ${name}`);
  return name;
}

/**
 * Read models in MongoDB: one collection per read-model collection, documents keyed by `_id = id`.
 * Writes and checkpoints are not in one transaction; instead a put only replaces a stored document
 * whose `_position` is not newer, so replaying a batch after a crash (writes done, checkpoint not
 * yet moved) or a stale batch arriving late never moves a document backwards.
 */
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
    await this.db.collection(name).createIndexes(
      indexes.map((fields) => ({
        name: `ix_${fields.join('_')}`,
        key: Object.fromEntries(fields.map((f) => [field(f), 1])),
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
      if (!('_id' in sort)) sort._id = 1;
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

  async commit(writes: Write[], checkpoints: Record<string, number>): Promise<void> {
    const byCollection = new Map<string, Op[]>();
    for (const w of writes) {
      let ops = byCollection.get(w.collection);
      if (!ops) byCollection.set(w.collection, (ops = []));
      ops.push(w.op === 'put' ? putOp(w.doc) : { deleteOne: { filter: { _id: w.id } } });
    }
    for (const [collection, ops] of byCollection) await this.apply(this.coll(collection), ops);

    const moves = Object.entries(checkpoints).map(([name, position]) => ({
      updateOne: { filter: { _id: name }, update: { $max: { position } }, upsert: true },
    }));
    if (moves.length) await this.checkpoints.bulkWrite(moves, { ordered: false });
  }

  /**
   * Ordered, so a put and a delete of the same id keep their order. A guarded put whose stored
   * document is newer fails as a duplicate-key upsert: that op is settled on its own and the rest
   * of the batch continues after it.
   */
  private async apply(coll: Collection<StoredDoc>, ops: Op[]): Promise<void> {
    let rest = ops;
    while (rest.length) {
      try {
        await coll.bulkWrite(rest, { ordered: true });
        return;
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError)) throw err;
        const first = ([] as Array<{ code: number; index: number }>).concat(err.writeErrors)[0];
        const op = first ? rest[first.index] : undefined;
        if (!first || first.code !== DUPLICATE_KEY || !op || !('replaceOne' in op)) throw err;
        await retryGuardedPut(coll, op);
        rest = rest.slice(first.index + 1);
      }
    }
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

  async reset(name: string, collections: string[]): Promise<void> {
    // Checkpoint first: if we stop halfway, a checkpoint of 0 over leftover documents rebuilds
    // correctly (guarded puts), while a kept checkpoint over dropped collections would not.
    await this.checkpoints.deleteOne({ _id: name });
    for (const c of collections) await this.coll(c).drop();
  }

  async incrementWindow(key: string, windowStart: number, ttlMs: number, hits = 1): Promise<number> {
    const windows = this.db.collection<WindowDoc>('windows');
    // A TTL index removes a counter once its window is over (MongoDB sweeps about once a minute).
    this.windowsIndex ??= windows.createIndex({ expires_at: 1 }, { name: 'ttl_expires_at', expireAfterSeconds: 0 }).then(() => undefined);
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

/**
 * Documents go in as the JSON the SQLite adapter would store: Dates become strings and undefined
 * fields disappear (the driver would otherwise store BSON dates and nulls).
 */
function putOp(doc: ReadDoc): Op {
  if (typeof doc.id !== 'string' || doc.id === '') throw new Error('read-model document without an id');
  const json = JSON.parse(JSON.stringify(doc)) as ReadDoc;
  const replacement: StoredDoc = { ...json, _id: json.id };
  const position = json._position;
  const filter =
    typeof position === 'number' ? { _id: json.id, _position: { $not: { $gt: position } } } : { _id: json.id };
  return { replaceOne: { filter, replacement, upsert: true } };
}

/**
 * A duplicate key on a guarded upsert means a document with that id exists: either it is newer
 * (nothing to do) or it was inserted concurrently after our filter missed it (try once more).
 */
async function retryGuardedPut(coll: Collection<StoredDoc>, op: Extract<Op, { replaceOne: unknown }>): Promise<void> {
  const { filter, replacement } = op.replaceOne;
  try {
    await coll.replaceOne(filter, replacement, { upsert: true });
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
  }
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
