/**
 * The read store port: read models built by projections, plus the small amount of shared,
 * non-event-sourced bookkeeping every API process needs (checkpoints). Adapters: SQLite (embedded
 * default, same file family as the event store) and MongoDB (production).
 */

export const READ_STORE = Symbol('READ_STORE');

/**
 * A read-model row. `_position` is the global position of the last event applied to it;
 * `_generation` the generation of its projection that wrote it (absent = 0): a rebuild starts a
 * new generation, and a row of an older one is leftover, never newer, whatever its position.
 */
export interface ReadDoc {
  id: string;
  _position?: number;
  _generation?: number;
  [field: string]: unknown;
}

/**
 * A commit carried a projection generation the store has moved past: the projection was reset
 * (rebuilt) since the runner loaded it. Nothing of the commit was applied (in MongoDB: no row of
 * an older generation can replace a newer one). Reload the checkpoints and generations, and go on
 * from there.
 */
export class StaleGenerationError extends Error {
  constructor(readonly projections: string[]) {
    super(`projection(s) ${projections.join(', ')} were reset since this runner loaded them`);
    this.name = 'StaleGenerationError';
  }
}

/**
 * A commit's rows changed since its batch read them: another runner committed in between (every
 * process projects on the embedded store; on PostgreSQL a follower's fallback catch-up or a
 * projector handing over runs beside the elected one). Nothing of the commit was applied. The
 * runner reads the rows again and applies its events to them as they now stand.
 */
export class RowConflictError extends Error {
  constructor(readonly rows: Array<{ collection: string; id: string }>) {
    super(`${rows.length} read-model row(s) changed since the batch read them (first: ${rows[0]?.collection}/${rows[0]?.id})`);
    this.name = 'RowConflictError';
  }
}

/** A row as stored, by the two columns every adapter mirrors: what commit's `reads` compare. */
export interface RowVersion {
  /** `_generation` (absent = 0). */
  generation: number;
  /** `_position` (absent = null). */
  position: number | null;
}

/** A row a batch's events were applied to, as the batch found it: `found` null when it was absent. */
export interface RowRead {
  collection: string;
  id: string;
  found: RowVersion | null;
}

/**
 * A batch's reads, for commit: the rows it built on, and optionally the store's `changeMark()`
 * taken before the first of them was read.
 */
export interface BatchReads {
  rows: RowRead[];
  since?: unknown;
}

/** A batch's reads by collection, in order: each adapter checks a collection's rows in one query. */
export function readsByCollection(rows: readonly RowRead[]): Map<string, RowRead[]> {
  const out = new Map<string, RowRead[]>();
  for (const read of rows) {
    const list = out.get(read.collection);
    if (list) list.push(read);
    else out.set(read.collection, [read]);
  }
  return out;
}

/** Whether a row is still as the batch read it: the same generation and position, or still absent. */
export function stillAsRead(read: RowRead, stored: RowVersion | undefined): boolean {
  if (!stored) return read.found === null;
  return read.found !== null && read.found.generation === stored.generation && read.found.position === stored.position;
}

/** The version of a row as read (`get`, `getMany`), for a commit's `reads`. */
export function rowVersion(doc: ReadDoc | null | undefined): RowVersion | null {
  if (!doc) return null;
  return { generation: typeof doc._generation === 'number' ? doc._generation : 0, position: typeof doc._position === 'number' ? doc._position : null };
}

export type Write =
  | { op: 'put'; collection: string; doc: ReadDoc }
  /** `generation`: the deleting projection's generation (absent = 0); newer rows are kept. */
  | { op: 'delete'; collection: string; id: string; generation?: number };

export type Scalar = string | number | boolean | null;

export type Condition =
  | Scalar
  | { $gt?: Scalar; $gte?: Scalar; $lt?: Scalar; $lte?: Scalar; $in?: Scalar[]; $ne?: Scalar };

export interface FindQuery {
  /** Equality or comparison conditions on top-level fields, all of which must hold. */
  where?: Record<string, Condition>;
  /** Sort keys in priority order. */
  orderBy?: Array<{ field: string; direction: 'asc' | 'desc' }>;
  limit?: number;
}

export interface CollectionSpec {
  name: string;
  /** Compound indexes as lists of top-level field names. */
  indexes?: string[][];
}

export interface ReadStore {
  /** Creates the collection and its indexes if missing (idempotent). */
  ensureCollection(spec: CollectionSpec): Promise<void>;
  get<T extends ReadDoc = ReadDoc>(collection: string, id: string): Promise<T | null>;
  getMany<T extends ReadDoc = ReadDoc>(collection: string, ids: string[]): Promise<Map<string, T>>;
  find<T extends ReadDoc = ReadDoc>(collection: string, query: FindQuery): Promise<T[]>;
  /**
   * Applies projection writes and moves the checkpoints atomically: one transaction (SQLite,
   * PostgreSQL; MongoDB on its replica set). All or nothing matters: the runner skips an event any
   * of whose rows is already ahead, so a row committed without its batch's other rows and
   * checkpoint would make those rows miss the event for good.
   *
   * `generations` fences the commit against a concurrent rebuild: each named projection must
   * still be at that generation (a checkpoint without one counts as generation 0), else it throws
   * StaleGenerationError. Rows are compared by (`_generation`, `_position`): a put replaces a
   * row of an older generation, or of the same one at no later position; a delete removes a row
   * of the same or an older generation only.
   *
   * `reads` fences the commit against another runner's: every row the batch's events were applied
   * to, as the batch found it. Each must still be so (same `_generation` and `_position`, or still
   * absent), checked inside the transaction, else it throws RowConflictError and applies nothing.
   * The position guard on puts alone is not enough: a batch reads its rows with several queries
   * outside the transaction, so it can read one row before another runner's commit and the next
   * after it, skip an event because the fresher row already carries it, and then write the staler
   * row at a later position without that event (a count short for good). Adapters serialize the
   * check with the commits of the same projections (SQLite: the write lock; PostgreSQL: the
   * checkpoint rows the fence locks first; MongoDB: the checkpoint documents both transactions write).
   * With `reads.since` (a `changeMark()`), a store that can tell nothing at all was committed
   * since that mark skips the row checks: the rows are as read.
   */
  commit(writes: Write[], checkpoints: Record<string, number>, generations?: Record<string, number>, reads?: BatchReads): Promise<void>;
  /**
   * Optional: a mark of everything committed so far, cheap to take, for `commit`'s `reads.since`
   * (SQLite: the file's change counter as this connection sees it, and this connection's own
   * commits). Stores without it check every row read.
   */
  changeMark?(): Promise<unknown>;
  /**
   * Optimistic concurrency for shared bookkeeping rows that are not projections (webhook delivery
   * claims, timers): writes `doc` only if the stored row's `_version` equals `expectedVersion`, or,
   * with null, only if no row with this id exists yet. The stored row gets
   * `_version = (expectedVersion ?? 0) + 1` (a row without `_version` counts as version 0).
   * Returns whether it wrote. Atomic across processes on the same store: one conditional statement
   * in SQLite, a filtered replace / insert in MongoDB.
   */
  putIfVersion(collection: string, doc: ReadDoc, expectedVersion: number | null): Promise<boolean>;
  getCheckpoint(name: string): Promise<number>;
  getCheckpoints(names: string[]): Promise<Record<string, number>>;
  /** Each projection's generation (0 until its first reset). */
  getGenerations(names: string[]): Promise<Record<string, number>>;
  /**
   * Empties a projection's collections (SQLite keeps the tables and indexes a running server is
   * using; MongoDB drops them), resets its checkpoint to 0 and starts its next generation,
   * which it returns (rebuild from zero, fenced against runners still at the old generation).
   */
  reset(name: string, collections: string[]): Promise<number>;
  /**
   * Optional. Runs `load`, a from-zero rebuild that resets and refills `collections`, with
   * whatever makes bulk writes cheaper on this store (SQLite: the collections' secondary indexes
   * dropped and built once at the end, a larger page cache, fewer WAL checkpoints). Everything
   * else holds meanwhile: other connections read and write as usual (lookups may be slower until
   * the end), commits keep their atomicity, fences and durability. Without it, `load` runs as is.
   */
  bulkLoad?<T>(collections: CollectionSpec[], load: () => Promise<T>): Promise<T>;
  /**
   * Counts `hits` (default 1) on `key` in the fixed window starting at `windowStart` (epoch ms)
   * and returns the count including them. Atomic across processes on the same store (rate limits
   * shared by every API process): one upsert-and-return in SQLite, findOneAndUpdate with $inc in
   * MongoDB. A window's counter is kept for `ttlMs` after `windowStart`, then removed.
   */
  incrementWindow(key: string, windowStart: number, ttlMs: number, hits?: number): Promise<number>;
  /**
   * The store server's own clock, where processes on several machines share the store
   * (PostgreSQL): leases written by one machine and judged by another are decided by this one
   * clock, so a skewed machine clock cannot make two holders. Absent on a store that lives on one
   * machine (SQLite: its local clock is everyone's).
   */
  serverTime?(): Promise<Date>;
  close(): Promise<void>;
}

/** What a process taking part in the projector election hears. */
export interface ProjectorHandlers {
  /** True once this process holds the projector role; false when it lost it (its connection dropped). */
  onRole(projector: boolean): void;
  /**
   * Checkpoints some process committed (name → position), as they are committed, and the stored
   * ones whenever the election's connection (re)connects.
   */
  onCheckpoints(positions: Record<string, number>): void;
}

/**
 * Optional: a read store shared by several processes (PostgreSQL) can let one of them run the
 * projections, the others waiting for the checkpoints it commits instead of projecting every
 * event again. A process joins until the returned function is called; when the projector's
 * process dies, another takes the role over.
 */
export interface ProjectorElection {
  joinProjectors(handlers: ProjectorHandlers): Promise<() => Promise<void>>;
}

export function hasProjectorElection(store: ReadStore): store is ReadStore & ProjectorElection {
  return typeof (store as Partial<ProjectorElection>).joinProjectors === 'function';
}

/**
 * The one rule for a collection's name, in every adapter and for plugins alike, so a projection
 * that works on one store works on all: lower_snake_case of at most 60 characters. 60, not 63:
 * PostgreSQL's table is `rm_<name>`, and PostgreSQL silently cuts identifiers past 63 bytes.
 */
export const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,59}$/;
/** A field a query filters, sorts or indexes by; also keeps query operators ($where) and dotted paths out. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function assertCollectionName(collection: string): string {
  if (!COLLECTION_NAME.test(collection)) throw new Error(`invalid collection name ${collection}`);
  return collection;
}

export function assertFieldName(name: string): string {
  if (!FIELD_NAME.test(name)) throw new Error(`invalid field name ${name}`);
  return name;
}
