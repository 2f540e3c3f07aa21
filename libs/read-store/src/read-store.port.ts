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
  getCheckpoint(name: string): Promise<number>;
  getCheckpoints(names: string[]): Promise<Record<string, number>>;
  /** Drops a projection's collections and resets its checkpoint to 0 (rebuild from zero). */
  reset(name: string, collections: string[]): Promise<void>;
  close(): Promise<void>;
}
