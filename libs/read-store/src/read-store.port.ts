/**
 * The read store port: read models built by projections, plus the small amount of shared,
 * non-event-sourced bookkeeping every API process needs (checkpoints). Adapters: SQLite (embedded
 * default, same file family as the event store) and MongoDB (production).
 */

export const READ_STORE = Symbol('READ_STORE');

/** A read-model row. `_position` is the global position of the last event applied to it. */
export interface ReadDoc {
  id: string;
  _position?: number;
  [field: string]: unknown;
}

export type Write =
  | { op: 'put'; collection: string; doc: ReadDoc }
  | { op: 'delete'; collection: string; id: string };

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
   * Applies projection writes and moves the checkpoints, atomically where the store allows it
   * (SQLite: one transaction). In MongoDB the checkpoints are written after the writes, which is
   * safe because every write is an idempotent upsert guarded by `_position`.
   */
  commit(writes: Write[], checkpoints: Record<string, number>): Promise<void>;
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
  /** Drops a projection's collections and resets its checkpoint to 0 (rebuild from zero). */
  reset(name: string, collections: string[]): Promise<void>;
  /**
   * Counts `hits` (default 1) on `key` in the fixed window starting at `windowStart` (epoch ms)
   * and returns the count including them. Atomic across processes on the same store (rate limits
   * shared by every API process): one upsert-and-return in SQLite, findOneAndUpdate with $inc in
   * MongoDB. A window's counter is kept for `ttlMs` after `windowStart`, then removed.
   */
  incrementWindow(key: string, windowStart: number, ttlMs: number, hits?: number): Promise<number>;
  close(): Promise<void>;
}
