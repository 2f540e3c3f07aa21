/**
 * An in-process stand-in for the few MongoDB driver calls the MongoDB adapters make, for tests that
 * must run without a server: collections of documents keyed by `_id`, sessions whose transactions
 * keep their writes apart until commit (and drop them on abort), a log of every operation, and
 * failures on demand. Filters understand `_id`, equality and `$in`; other operators match anything
 * (the tests that use them look at the calls, not the results).
 */

type Doc = { _id: string; [field: string]: unknown };

export interface FakeOp {
  collection: string;
  op: string;
  /** Whether the call carried a session that was inside a transaction. */
  inTransaction: boolean;
  args: unknown[];
}

export class FakeSession {
  inTransaction = false;
  pending: Array<() => void> = [];
  aborted = 0;
  committed = 0;

  async withTransaction<T>(fn: () => Promise<T>): Promise<T> {
    this.inTransaction = true;
    this.pending = [];
    try {
      const out = await fn();
      for (const apply of this.pending) apply();
      this.committed++;
      return out;
    } catch (err) {
      this.aborted++;
      throw err;
    } finally {
      this.pending = [];
      this.inTransaction = false;
    }
  }
}

function matches(doc: Doc, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, cond]) => {
    if (key.startsWith('$')) return true;
    if (cond !== null && typeof cond === 'object' && !Array.isArray(cond)) {
      const ops = cond as Record<string, unknown>;
      if (Array.isArray(ops.$in)) return ops.$in.includes(doc[key]);
      return true;
    }
    return doc[key] === cond;
  });
}

export class FakeCursor {
  sorts: Array<Record<string, 1 | -1>> = [];
  constructor(private readonly docs: Doc[]) {}
  sort(spec: Record<string, 1 | -1>) {
    this.sorts.push(spec);
    return this;
  }
  limit() {
    return this;
  }
  async close() {}
  async toArray() {
    return this.docs.map((d) => ({ ...d }));
  }
}

export class FakeCollection {
  readonly docs = new Map<string, Doc>();
  indexes: Array<{ name: string; key: Record<string, 1 | -1> }> = [];
  /** Rejections the next calls of a method meet, one per call. */
  failures: Record<string, Error[]> = {};
  cursors: FakeCursor[] = [];

  constructor(
    readonly name: string,
    private readonly db: FakeDb,
  ) {}

  private record(op: string, args: unknown[], options?: { session?: FakeSession }) {
    this.db.ops.push({ collection: this.name, op, inTransaction: Boolean(options?.session?.inTransaction), args });
    const failure = this.failures[op]?.shift();
    if (failure) throw failure;
  }

  /** Applies now, or at commit when the call is part of a transaction. */
  private write(options: { session?: FakeSession } | undefined, apply: () => void) {
    if (options?.session?.inTransaction) options.session.pending.push(apply);
    else apply();
  }

  find(filter: Record<string, unknown> = {}, options?: { session?: FakeSession }) {
    this.record('find', [filter], options);
    const cursor = new FakeCursor([...this.docs.values()].filter((d) => matches(d, filter)));
    this.cursors.push(cursor);
    return cursor;
  }

  async findOne(filter: Record<string, unknown>, options?: { session?: FakeSession }) {
    this.record('findOne', [filter], options);
    return [...this.docs.values()].find((d) => matches(d, filter)) ?? null;
  }

  async bulkWrite(ops: Array<Record<string, any>>, options?: { session?: FakeSession }) {
    this.record('bulkWrite', [ops], options);
    this.write(options, () => {
      for (const op of ops) {
        if (op.replaceOne) this.docs.set(op.replaceOne.filter._id, { ...op.replaceOne.replacement });
        if (op.deleteOne) this.docs.delete(op.deleteOne.filter._id);
      }
    });
    return {};
  }

  async updateOne(filter: { _id: string }, update: { $set?: Record<string, unknown> }, options?: { session?: FakeSession; upsert?: boolean }) {
    this.record('updateOne', [filter, update], options);
    this.write(options, () => {
      const doc = this.docs.get(filter._id) ?? { _id: filter._id };
      this.docs.set(filter._id, { ...doc, ...(update.$set ?? {}) });
    });
    return {};
  }

  async createIndexes(specs: Array<{ name: string; key: Record<string, 1 | -1> }>) {
    this.record('createIndexes', [specs]);
    this.indexes.push(...specs);
    return specs.map((s) => s.name);
  }

  async createIndex(key: Record<string, 1 | -1>, options: { name: string }) {
    this.record('createIndex', [key, options]);
    this.indexes.push({ name: options.name, key });
    return options.name;
  }

  async findOneAndUpdate(filter: { _id: string }, update: { $inc?: Record<string, number>; $set?: Record<string, unknown> }) {
    this.record('findOneAndUpdate', [filter, update]);
    const doc: Doc = { ...(this.docs.get(filter._id) ?? { _id: filter._id }), ...(update.$set ?? {}) };
    for (const [f, n] of Object.entries(update.$inc ?? {})) doc[f] = Number(doc[f] ?? 0) + n;
    this.docs.set(filter._id, doc);
    return { ...doc };
  }

  /** Runs before the next drop (a test's interleaving: another process acting in the gap). */
  beforeDrop: (() => Promise<void>) | null = null;

  async drop() {
    this.record('drop', []);
    const before = this.beforeDrop;
    this.beforeDrop = null;
    if (before) await before();
    this.docs.clear();
    return true;
  }
}

export class FakeDb {
  readonly collections = new Map<string, FakeCollection>();
  readonly ops: FakeOp[] = [];

  collection(name: string): FakeCollection {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new FakeCollection(name, this)));
    return c;
  }

  async createCollection(name: string) {
    this.collection(name);
  }

  /** What `hello` answers (a replica set member by default); null: an old server without `hello`. */
  hello: Record<string, unknown> | null = { isWritablePrimary: true, setName: 'rs0', ok: 1 };
  readonly commands: Array<Record<string, unknown>> = [];

  async command(cmd: Record<string, unknown>) {
    this.commands.push(cmd);
    if ('hello' in cmd && this.hello === null) throw new Error('no such command: hello');
    if ('hello' in cmd || 'isMaster' in cmd) return { ...(this.hello ?? { ismaster: true, setName: 'rs0' }), ok: 1 };
    return { ok: 1 };
  }
}

export class FakeMongoClient {
  readonly database = new FakeDb();
  readonly sessions: FakeSession[] = [];

  db() {
    return this.database;
  }

  async withSession<T>(fn: (session: FakeSession) => Promise<T>): Promise<T> {
    const session = new FakeSession();
    this.sessions.push(session);
    return fn(session);
  }

  async close() {}
}
