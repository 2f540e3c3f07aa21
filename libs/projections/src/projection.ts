import { StoredEvent } from '@dojang/event-store';
import { CollectionSpec, ReadDoc, Write } from '@dojang/read-store';

export interface RowKey {
  collection: string;
  id: string;
}

/** The rows an event touches, loaded by the runner before evolve runs (null when absent). */
export type RowLookup = (collection: string, id: string) => ReadDoc | null;

/**
 * A projection is pure: it names the rows an event touches, then says what to write given their
 * current content. The runner does all I/O, batching and idempotency, so the same projection runs
 * on SQLite and MongoDB and can be tested without either.
 */
export interface Projection {
  readonly name: string;
  /**
   * Bump it when `evolve` changes what it writes: the next process to start with the new version
   * resets the projection (new generation, checkpoint 0) and replays the log into it. The
   * checkpoint keeps the projection's name, so existing data directories don't replay for nothing.
   * Absent = 1 (built-ins); plugins must set it.
   */
  readonly version?: number;
  readonly collections: CollectionSpec[];
  readonly handles: ReadonlySet<string>;
  keys(event: StoredEvent): RowKey[];
  evolve(event: StoredEvent, rows: RowLookup): Write[];
}

export const rowKey = (collection: string, id: string) => `${collection}\u0000${id}`;
