import type { Migration } from '@dojang/postgres';

/**
 * The PostgreSQL event store's schema. Append-only: a released migration is never edited (its
 * snapshot test fails), a change is a new `events_000N_…` entry after the last.
 *
 * `global_position` comes from an identity sequence, but is only ever drawn while the append
 * transaction holds the store's advisory lock (see the adapter's header), so position order is
 * commit order. Gaps are allowed (a rolled-back append keeps its sequence values); readers never
 * rely on density. `event_id` is text, not uuid: the port promises nothing about its format.
 */
export const EVENT_STORE_MIGRATIONS: readonly Migration[] = [
  {
    id: 'events_0001_events',
    sql: `
      CREATE TABLE events (
        global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        stream_id text NOT NULL,
        stream_revision integer NOT NULL CHECK (stream_revision >= 0),
        event_id text NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_event_id_key UNIQUE (event_id),
        CONSTRAINT events_stream_revision_key UNIQUE (stream_id, stream_revision)
      );
    `,
  },
];
