import { AnyBulkWriteOperation, Collection, Db, Document, Filter, MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
import { CollectionSpec, Condition, FindQuery, ReadDoc, ReadStore, Scalar, StaleGenerationError, Write } from './read-store.port';

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
  /** Absent on checkpoints written before generations existed: generation 0. */
  generation?: number;
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
 * whose (`_generation`, `_position`) is not newer, so replaying a batch after a crash (writes done,
 * checkpoint not yet moved), a stale batch arriving late, or a runner still at the generation
 * before a rebuild never moves a document backwards. The generation fence is checked before the
 * writes, and the checkpoint only moves within its generation.
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

  async commit(writes: Write[], checkpoints: Record<string, number>, generations: Record<string, number> = {}): Promise<void> {
    const names = Object.keys(generations);
    if (names.length) {
      const current = await this.getGenerations(names);
      const stale = names.filter((name) => current[name] !== generations[name]);
      if (stale.length) throw new StaleGenerationError(stale);
    }
    const byCollection = new Map<string, Op[]>();
    for (const w of writes) {
      let ops = byCollection.get(w.collection);
      if (!ops) byCollection.set(w.collection, (ops = []));
      ops.push(w.op === 'put' ? putOp(w.doc) : { deleteOne: { filter: { _id: w.id, ...generationAtMost(w.generation ?? 0) } } });
    }
    for (const [collection, ops] of byCollection) await this.apply(this.coll(collection), ops);

    const moved = Object.entries(checkpoints).map(([name, position]) => this.moveCheckpoint(name, position, generations[name] ?? 0));
    const results = await Promise.all(moved);
    const fenced = Object.keys(checkpoints).filter((_, i) => !results[i]);
    if (fenced.length) throw new StaleGenerationError(fenced);
  }

  /** Moves a checkpoint forward within its generation; false when the projection has moved on to another. */
  private async moveCheckpoint(name: string, position: number, generation: number): Promise<boolean> {
    try {
      const filter: Document = { _id: name, generation: generation === 0 ? { $in: [0, null] } : generation };
      await this.checkpoints.updateOne(
        filter as Filter<CheckpointDoc>,
        // With generation > 0 the filter's equality already gives an inserted checkpoint its generation.
        generation === 0 ? { $max: { position }, $setOnInsert: { generation } } : { $max: { position } },
        { upsert: true },
      );
      return true;
    } catch (err) {
      // The upsert collided with the checkpoint of another generation.
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
      throw err;
    }
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
    // document stays, at the next generation, so runners of the old one are fenced off.
    const doc = await this.checkpoints.findOneAndUpdate(
      { _id: name },
      { $set: { position: 0 }, $inc: { generation: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    for (const c of collections) await this.coll(c).drop();
    return doc?.generation ?? 1;
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
  const generation = typeof json._generation === 'number' ? json._generation : 0;
  // Replaces a row of an older generation, or of this one at no later position (see the port).
  const sameGeneration = generation === 0 ? { _generation: { $in: [0, null] } } : { _generation: generation };
  const olderGeneration = generation === 0 ? null : { $or: [{ _generation: { $exists: false } }, { _generation: { $lt: generation } }] };
  const replayable = typeof position === 'number' ? { ...sameGeneration, _position: { $not: { $gt: position } } } : sameGeneration;
  const filter = { _id: json.id, ...(olderGeneration ? { $or: [replayable, olderGeneration] } : replayable) };
  return { replaceOne: { filter, replacement, upsert: true } };
}

/** Rows a projection at `generation` may delete: of that generation or older. */
function generationAtMost(generation: number): Document {
  return generation === 0
    ? { _generation: { $in: [0, null] } }
    : { $or: [{ _generation: { $exists: false } }, { _generation: { $lte: generation } }] };
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
