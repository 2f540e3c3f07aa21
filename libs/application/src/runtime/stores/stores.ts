import { BlobStore } from '@dojang/blob-store';
import { EventStore } from '@dojang/event-store';
import { ReadStore } from '@dojang/read-store';
import { AppConfig } from '../config';

/** The three ports, opened together for one backend. */
export interface Stores {
  /** Which configuration was chosen, for logs and the boot-wiring tests. */
  kind: StoreKind;
  events: EventStore;
  reads: ReadStore;
  blobs: BlobStore;
  /** Closes what the three share (a connection pool, a client) after the stores themselves. */
  closeShared(): Promise<void>;
}

export type StoreKind = 'sqlite' | 'postgres' | 'esdb+mongo';

/**
 * Which backend a configuration selects: `DATABASE_URL` (PostgreSQL for all three ports), or
 * `EVENTSTORE_URL` with `MONGO_URL` (the design card), or neither (embedded SQLite + files).
 * Half a design-card configuration is refused rather than mixed with the embedded stores: an
 * operator who set one URL expects it to be used.
 */
export function storeKind(config: Pick<AppConfig, 'databaseUrl' | 'eventStoreUrl' | 'mongoUrl'>): StoreKind {
  if (config.databaseUrl) {
    if (config.eventStoreUrl || config.mongoUrl) {
      throw new Error('DATABASE_URL selects PostgreSQL for every store: unset EVENTSTORE_URL and MONGO_URL, or DATABASE_URL');
    }
    return 'postgres';
  }
  if (config.eventStoreUrl || config.mongoUrl) {
    if (!config.eventStoreUrl || !config.mongoUrl) {
      throw new Error('EVENTSTORE_URL and MONGO_URL go together (events in EventStoreDB, read models and blobs in MongoDB)');
    }
    return 'esdb+mongo';
  }
  return 'sqlite';
}
