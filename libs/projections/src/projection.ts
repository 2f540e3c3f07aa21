import { StoredEvent } from '@dojang/event-store';
import { CollectionSpec, ReadDoc, Write } from '@dojang/read-store';

export interface RowKey {
  collection: string;
  id: string;
}

/** The rows an event touches, loaded by the runner before evolve runs (null when absent). */
export type RowLookup = (collection: string, id: string) => ReadDoc | null;

/**
 * A read endpoint a plugin projection declares, so its rows are served over HTTP without a
 * controller of its own: `GET /v1/extensions/{projection}/{name}` (a page of rows) and
 * `GET /v1/extensions/{projection}/{name}/{id}` (one row), for any key of the organization,
 * auditor keys included. Rows are scoped like every answer: the collection's rows must carry
 * `organization_id` and `livemode` (from the event's metadata), and a caller sees only those of
 * its organization and its key's mode; any other row is 404.
 */
export interface ReadEndpoint {
  /** lower_snake_case, unique within the projection: the URL's last segment. */
  readonly name: string;
  /** One of the projection's own collections. */
  readonly collection: string;
  /** What the rows are; shown in the endpoint's 404 and in docs you write for it. */
  readonly description?: string;
  /** Top-level fields a caller may filter on (`?month=2026-03`): equality with the string given. */
  readonly filters?: readonly string[];
}

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
  /** Plugins only: read endpoints the API serves under /v1/extensions/{name}/ (see ReadEndpoint). */
  readonly endpoints?: readonly ReadEndpoint[];
}

export const rowKey = (collection: string, id: string) => `${collection}\u0000${id}`;
