import Database from 'better-sqlite3';
import { assertCollectionName, assertFieldName, CollectionSpec, Condition, FindQuery, ReadDoc, BatchReads, ReadStore, readsByCollection, RowConflictError, RowRead, Scalar, StaleGenerationError, stillAsRead, Write } from './read-store.port';
import { SQLITE_SYNC_BUSY_TIMEOUT_MS, retryWhileBusy } from '@dojang/sqlite';


function table(collection: string): string {
  assertCollectionName(collection);
  return `rm_${collection}`;
}

function field(name: string): string {
  assertFieldName(name);
  return `json_extract(doc, '$.${name}')`;
}

function toSql(value: Scalar): Scalar {
  // JSON booleans come back from json_extract as 0/1.
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/** Ids per getMany statement. */
const GET_MANY_WIDTH = 200;

/** Page cache while a bulk load runs (KiB, as `cache_size` takes it negative): its batches fit. */
const BULK_CACHE_KIB = 64 * 1024;
/** WAL pages between checkpoints while a bulk load runs (4 KiB pages: 64 MiB), 1,000 otherwise. */
const BULK_CHECKPOINT_PAGES = 16_384;

interface WriteStatements {
  put: Database.Statement;
  del: Database.Statement;
}

/**
 * Read models in SQLite, one table per collection holding JSON documents, queried with
 * json_extract and served by expression indexes. Uses its own connection with synchronous=NORMAL:
 * read models can always be rebuilt from the event log, so they do not pay for a full fsync.
 */
export class SqliteReadStore implements ReadStore {
  readonly db: Database.Database;
  private readonly known = new Set<string>();
  private readonly stmtCache = new Map<string, Database.Statement>();
  private readonly writeStmts = new Map<string, WriteStatements>();
  /** Collections a bulk load is writing: their secondary indexes wait for its end. */
  private bulk: Map<string, CollectionSpec> | null = null;
  private windowsReady = false;
  /** Commits of read-model rows made through this connection, which `data_version` does not count. */
  private ownWrites = 0;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`busy_timeout = ${SQLITE_SYNC_BUSY_TIMEOUT_MS}`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL, generation INTEGER NOT NULL DEFAULT 0)`);
    addColumnIfMissing(this.db, 'checkpoints', 'generation', 'INTEGER NOT NULL DEFAULT 0');
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmtCache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmtCache.set(sql, s);
    }
    return s;
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    // DDL takes the write lock too (a process booting while a rebuild holds it).
    await retryWhileBusy(() => this.ensureSync(spec.name));
    // During a bulk load of this collection its indexes are built once, when the load ends.
    if (this.bulk?.has(spec.name)) return;
    await retryWhileBusy(() => this.createIndexes(spec));
  }

  private createIndexes(spec: CollectionSpec): void {
    for (const index of spec.indexes ?? []) {
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${indexName(spec.name, index)} ON ${table(spec.name)} (${index.map(field).join(', ')})`);
    }
  }

  /**
   * A from-zero rebuild of `collections`. Their secondary indexes are dropped first (emptying and
   * refilling the tables then maintains only the primary key) and built again once at the end,
   * in one sorted pass each, even when `load` fails. Meanwhile this connection keeps a larger
   * page cache (a batch's pages stay in memory instead of spilling mid-transaction) and
   * checkpoints the WAL every 64 MiB instead of every 4 MiB; both are restored at the end, then
   * one checkpoint (an fsync of the WAL and of the database) settles the rebuilt rows. Durability
   * of each commit is unchanged (synchronous stays NORMAL). Other connections (a running server)
   * go on reading and writing the same tables; their lookups are only slower until the indexes
   * are back. Not reentrant: a bulk load inside another runs as a plain load.
   */
  async bulkLoad<T>(collections: CollectionSpec[], load: () => Promise<T>): Promise<T> {
    if (this.bulk) return load();
    const specs = new Map(collections.map((c) => [c.name, c]));
    const cacheSize = this.db.pragma('cache_size', { simple: true }) as number;
    const checkpointPages = this.db.pragma('wal_autocheckpoint', { simple: true }) as number;
    this.bulk = specs;
    try {
      for (const spec of specs.values()) {
        this.ensureSync(spec.name);
        for (const index of spec.indexes ?? []) this.db.exec(`DROP INDEX IF EXISTS ${indexName(spec.name, index)}`);
      }
      this.db.pragma(`cache_size = ${-BULK_CACHE_KIB}`);
      this.db.pragma(`wal_autocheckpoint = ${BULK_CHECKPOINT_PAGES}`);
      return await load();
    } finally {
      this.bulk = null;
      try {
        for (const spec of specs.values()) this.createIndexes(spec);
      } finally {
        this.db.pragma(`cache_size = ${cacheSize}`);
        this.db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
        // PASSIVE: never waits for readers; what it cannot copy now a later checkpoint will.
        this.db.pragma('wal_checkpoint(PASSIVE)');
      }
    }
  }

  private ensureSync(collection: string) {
    if (this.known.has(collection)) return;
    // `position` and `generation` mirror the row's `_position` and `_generation`, so the replay
    // guard of commit() compares columns instead of parsing both JSON documents on every upsert.
    const t = table(collection);
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER, generation INTEGER NOT NULL DEFAULT 0)`);
    // A data directory from before a column: add and fill it once.
    if (addColumnIfMissing(this.db, t, 'position', 'INTEGER')) this.db.exec(`UPDATE ${t} SET position = json_extract(doc, '$._position')`);
    addColumnIfMissing(this.db, t, 'generation', 'INTEGER NOT NULL DEFAULT 0');
    this.known.add(collection);
  }

  async get<T extends ReadDoc = ReadDoc>(collection: string, id: string): Promise<T | null> {
    return this.getSync<T>(collection, id);
  }

  getSync<T extends ReadDoc = ReadDoc>(collection: string, id: string): T | null {
    this.ensureSync(collection);
    const row = this.stmt(`SELECT doc FROM ${table(collection)} WHERE id = ?`).get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async getMany<T extends ReadDoc = ReadDoc>(collection: string, ids: string[]): Promise<Map<string, T>> {
    this.ensureSync(collection);
    const out = new Map<string, T>();
    // One prepared statement of fixed width per collection (unused slots bound to NULL, which
    // matches nothing): a projection batch reads thousands of rows in a few queries.
    const select = this.stmt(`SELECT id, doc FROM ${table(collection)} WHERE id IN (${'?, '.repeat(GET_MANY_WIDTH - 1)}?)`);
    for (let i = 0; i < ids.length; i += GET_MANY_WIDTH) {
      const params: Array<string | null> = ids.slice(i, i + GET_MANY_WIDTH);
      while (params.length < GET_MANY_WIDTH) params.push(null);
      for (const row of select.all(...params) as Array<{ id: string; doc: string }>) out.set(row.id, JSON.parse(row.doc) as T);
    }
    return out;
  }

  async find<T extends ReadDoc = ReadDoc>(collection: string, query: FindQuery): Promise<T[]> {
    this.ensureSync(collection);
    const clauses: string[] = [];
    const params: Scalar[] = [];
    for (const [name, cond] of Object.entries(query.where ?? {})) {
      addCondition(name, cond, clauses, params);
    }
    let sql = `SELECT doc FROM ${table(collection)}`;
    if (clauses.length) sql += ` WHERE ${clauses.join(' AND ')}`;
    if (query.orderBy?.length) {
      sql += ` ORDER BY ${query.orderBy.map((o) => `${field(o.field)} ${o.direction === 'desc' ? 'DESC' : 'ASC'}`).join(', ')}`;
    }
    if (query.limit !== undefined) {
      sql += ` LIMIT ?`;
      params.push(Math.max(0, Math.floor(query.limit)));
    }
    return (this.stmt(sql).all(...params) as Array<{ doc: string }>).map((r) => JSON.parse(r.doc) as T);
  }

  async commit(writes: Write[], checkpoints: Record<string, number>, generations: Record<string, number> = {}, reads?: BatchReads): Promise<void> {
    await retryWhileBusy(() => this.commitSync(writes, checkpoints, generations, reads));
  }

  /**
   * `data_version` changes when another connection (another process, or another store object on
   * the same file) commits; this connection's own writes are counted apart. Equal marks: nothing
   * was committed in between, so rows read since the first mark are as stored (a rebuild's batch
   * checks a dozen rows per event otherwise: an eighth of its time).
   */
  async changeMark(): Promise<string> {
    return this.changeMarkSync();
  }

  private changeMarkSync(): string {
    // Through the prepared-statement cache: `db.pragma()` compiles the statement anew on each call,
    // and a projection batch and each commit that checks its rows take a mark.
    const { data_version } = this.stmt('PRAGMA data_version').get() as { data_version: number };
    return `${data_version}:${this.ownWrites}`;
  }

  /**
   * The rows of `reads` no longer as the batch found them. Run inside the write transaction: no
   * other connection commits between this check and the writes.
   */
  private movedSync(byCollection: Map<string, RowRead[]>): Array<{ collection: string; id: string }> {
    const moved: Array<{ collection: string; id: string }> = [];
    for (const [collection, reads] of byCollection) {
      const select = this.stmt(`SELECT id, position, generation FROM ${table(collection)} WHERE id IN (${'?, '.repeat(GET_MANY_WIDTH - 1)}?)`);
      for (let i = 0; i < reads.length; i += GET_MANY_WIDTH) {
        const chunk = reads.slice(i, i + GET_MANY_WIDTH);
        const params: Array<string | null> = chunk.map((r) => r.id);
        while (params.length < GET_MANY_WIDTH) params.push(null);
        const stored = new Map((select.all(...params) as Array<{ id: string; position: number | null; generation: number }>).map((r) => [r.id, r]));
        for (const read of chunk) if (!stillAsRead(read, stored.get(read.id))) moved.push({ collection, id: read.id });
      }
    }
    return moved;
  }

  /** The put and delete of a collection, prepared once (a rebuild commits thousands of rows). */
  private writeStatements(collection: string): WriteStatements {
    let s = this.writeStmts.get(collection);
    if (!s) {
      this.ensureSync(collection);
      const t = table(collection);
      s = {
        // (generation, position) compared in order: a newer generation always wins, an older
        // one never does, and within one generation a replay of an older event is a no-op.
        put: this.db.prepare(
          `INSERT INTO ${t} (id, doc, position, generation) VALUES (?, ?, ?, ?)
           ON CONFLICT(id) DO UPDATE SET doc = excluded.doc, position = excluded.position, generation = excluded.generation
           WHERE excluded.generation > generation
              OR (excluded.generation = generation AND (position IS NULL OR excluded.position IS NULL OR position <= excluded.position))`,
        ),
        del: this.db.prepare(`DELETE FROM ${t} WHERE id = ? AND generation <= ?`),
      };
      this.writeStmts.set(collection, s);
    }
    return s;
  }

  commitSync(writes: Write[], checkpoints: Record<string, number>, generations: Record<string, number> = {}, reads?: BatchReads): void {
    // Statements and JSON are made before the transaction: the write lock, which a running
    // server's commits wait for, is held only for the writes themselves.
    const n = writes.length;
    const stmts = new Array<WriteStatements>(n);
    const json = new Array<string | null>(n);
    for (let i = 0; i < n; i++) {
      const w = writes[i];
      stmts[i] = this.writeStatements(w.collection);
      json[i] = w.op === 'put' ? JSON.stringify(w.doc) : null;
    }
    // IMMEDIATE: the write lock is taken (waiting for it as long as busy_timeout allows) before
    // the fence is read. A deferred transaction that reads first cannot upgrade to a writer once
    // another connection has committed; SQLite then fails it at once with "database is locked".
    const fence = Object.entries(generations);
    const moves = Object.entries(checkpoints);
    const readRows = readsByCollection(reads?.rows ?? []);
    for (const collection of readRows.keys()) this.ensureSync(collection);
    this.db.transaction(() => {
      // The fence is read inside the write transaction, so no reset can slip in before the writes.
      // One statement for all of them (a batch of one request's events commits a dozen).
      if (fence.length) {
        const current = this.generationsSync();
        const stale = fence.filter(([name, generation]) => (current.get(name) ?? 0) !== generation).map(([name]) => name);
        if (stale.length) throw new StaleGenerationError(stale);
      }
      // Then the rows the batch built on: still as it read them, or nothing is written. Checked
      // row by row unless nothing at all was committed since the batch's mark (taken inside the
      // write transaction, this mark counts every commit before ours).
      if (readRows.size && (reads?.since === undefined || reads.since !== this.changeMarkSync())) {
        const moved = this.movedSync(readRows);
        if (moved.length) throw new RowConflictError(moved);
      }
      for (let i = 0; i < n; i++) {
        const w = writes[i];
        if (w.op === 'put') {
          stmts[i].put.run(w.doc.id, json[i], typeof w.doc._position === 'number' ? w.doc._position : null, generationOf(w.doc));
        } else {
          stmts[i].del.run(w.id, w.generation ?? 0);
        }
      }
      if (moves.length) {
        // Every checkpoint in one statement; a row of another generation is not updated, so not counted.
        const moved = this.stmt(
          `INSERT INTO checkpoints (name, position, generation) VALUES ${moves.map(() => '(?, ?, ?)').join(', ')}
           ON CONFLICT(name) DO UPDATE SET position = MAX(position, excluded.position) WHERE generation = excluded.generation`,
        ).run(moves.flatMap(([name, position]) => [name, position, generations[name] ?? 0]));
        if (moved.changes !== moves.length) {
          // A checkpoint of another generation (a caller that passed no fence): roll it all back.
          const current = this.generationsSync();
          throw new StaleGenerationError(moves.filter(([name]) => (current.get(name) ?? 0) !== (generations[name] ?? 0)).map(([name]) => name));
        }
      }
      this.ownWrites++;
    }).immediate();
  }

  /** Every projection's generation, as stored. */
  private generationsSync(): Map<string, number> {
    const rows = this.stmt(`SELECT name, generation FROM checkpoints`).all() as Array<{ name: string; generation: number }>;
    return new Map(rows.map((r) => [r.name, r.generation]));
  }

  async putIfVersion(collection: string, doc: ReadDoc, expectedVersion: number | null): Promise<boolean> {
    await retryWhileBusy(() => this.ensureSync(collection));
    if (typeof doc.id !== 'string' || doc.id === '') throw new Error('read-model document without an id');
    const json = JSON.stringify({ ...doc, _version: (expectedVersion ?? 0) + 1 });
    this.ownWrites++;
    const result = await retryWhileBusy(() =>
      expectedVersion === null
        ? this.stmt(`INSERT INTO ${table(collection)} (id, doc, position) VALUES (?, ?, NULL) ON CONFLICT(id) DO NOTHING`).run(doc.id, json)
        : this.stmt(`UPDATE ${table(collection)} SET doc = ? WHERE id = ? AND IFNULL(json_extract(doc, '$._version'), 0) = ?`).run(
            json,
            doc.id,
            expectedVersion,
          ),
    );
    return result.changes === 1;
  }

  async getCheckpoint(name: string): Promise<number> {
    const row = this.stmt(`SELECT position FROM checkpoints WHERE name = ?`).get(name) as { position: number } | undefined;
    return row?.position ?? 0;
  }

  async getCheckpoints(names: string[]): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of names) out[name] = await this.getCheckpoint(name);
    return out;
  }

  async getGenerations(names: string[]): Promise<Record<string, number>> {
    const current = this.generationsSync();
    return Object.fromEntries(names.map((name) => [name, current.get(name) ?? 0]));
  }

  async reset(name: string, collections: string[]): Promise<number> {
    return retryWhileBusy(() => this.resetSync(name, collections));
  }

  private resetSync(name: string, collections: string[]): number {
    const generation = this.db.transaction(() => {
      // Emptied rather than dropped: another connection (a running server) keeps reading and
      // writing these tables during a rebuild, and must never meet a missing table.
      for (const c of collections) {
        const exists = this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table(c));
        if (exists) this.db.exec(`DELETE FROM ${table(c)}`);
      }
      // The row stays (position 0, next generation): deleting it would restart the generation
      // count and let a stale runner's checkpoint back in.
      this.ownWrites++;
      return (
        this.db
          .prepare(
            `INSERT INTO checkpoints (name, position, generation) VALUES (?, 0, 1)
             ON CONFLICT(name) DO UPDATE SET position = 0, generation = generation + 1 RETURNING generation`,
          )
          .get(name) as { generation: number }
      ).generation;
    }).immediate();
    return generation;
  }

  async incrementWindow(key: string, windowStart: number, ttlMs: number, hits = 1): Promise<number> {
    return retryWhileBusy(() => this.incrementWindowSync(key, windowStart, ttlMs, hits));
  }

  private incrementWindowSync(key: string, windowStart: number, ttlMs: number, hits: number): number {
    if (!this.windowsReady) {
      this.db.exec(
        `CREATE TABLE IF NOT EXISTS windows (key TEXT NOT NULL, window_start INTEGER NOT NULL, count INTEGER NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (key, window_start))`,
      );
      this.db.exec(`CREATE INDEX IF NOT EXISTS ix_windows_expires_at ON windows (expires_at)`);
      this.windowsReady = true;
    }
    const row = this.stmt(
      `INSERT INTO windows (key, window_start, count, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(key, window_start) DO UPDATE SET count = count + excluded.count RETURNING count`,
    ).get(key, windowStart, hits, windowStart + ttlMs) as { count: number };
    // A window's first hits sweep the counters whose windows are over: cheap (indexed) and rare.
    if (row.count === hits) this.stmt(`DELETE FROM windows WHERE expires_at <= ?`).run(windowStart);
    return row.count;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

function generationOf(doc: ReadDoc): number {
  return typeof doc._generation === 'number' ? doc._generation : 0;
}

function indexName(collection: string, fields: string[]): string {
  return `ix_${collection}_${fields.join('_')}`;
}

/** Adds a column to a table created by an older version; true when it was missing. */
function addColumnIfMissing(db: Database.Database, tableName: string, column: string, type: string): boolean {
  const columns = db.prepare(`PRAGMA table_info(${tableName})`).all() as Array<{ name: string }>;
  if (columns.some((c) => c.name === column)) return false;
  db.exec(`ALTER TABLE ${tableName} ADD COLUMN ${column} ${type}`);
  return true;
}

function addCondition(name: string, cond: Condition, clauses: string[], params: Scalar[]) {
  const f = field(name);
  if (cond === null) {
    clauses.push(`${f} IS NULL`);
    return;
  }
  if (typeof cond !== 'object') {
    clauses.push(`${f} = ?`);
    params.push(toSql(cond));
    return;
  }
  const ops: Array<[keyof typeof cond, string]> = [
    ['$gt', '>'],
    ['$gte', '>='],
    ['$lt', '<'],
    ['$lte', '<='],
  ];
  for (const [op, sqlOp] of ops) {
    const v = cond[op];
    if (v !== undefined) {
      clauses.push(`${f} ${sqlOp} ?`);
      params.push(toSql(v as Scalar));
    }
  }
  if (cond.$ne !== undefined) {
    if (cond.$ne === null) clauses.push(`${f} IS NOT NULL`);
    else {
      clauses.push(`(${f} IS NULL OR ${f} <> ?)`);
      params.push(toSql(cond.$ne));
    }
  }
  if (cond.$in !== undefined) {
    // SQL's IN never matches NULL; null in the list means "null or missing", as `field: null` does.
    const values = cond.$in.filter((v) => v !== null);
    const alternatives: string[] = [];
    if (values.length) {
      alternatives.push(`${f} IN (${values.map(() => '?').join(', ')})`);
      params.push(...values.map(toSql));
    }
    if (values.length < cond.$in.length) alternatives.push(`${f} IS NULL`);
    clauses.push(alternatives.length ? `(${alternatives.join(' OR ')})` : '0');
  }
}
