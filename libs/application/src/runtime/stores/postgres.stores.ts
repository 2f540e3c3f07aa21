import { Pool } from 'pg';
import { PostgresBlobStore } from '@dojang/blob-store/postgres';
import { PostgresEventStore } from '@dojang/event-store/postgres';
import { PostgresReadStore } from '@dojang/read-store/postgres';
import { assertPostgresReachable, createPostgresPool } from '@dojang/postgres';
import { AppConfig } from '../config';
import { Stores } from './stores';

/**
 * PostgreSQL for all three ports (DATABASE_URL): one pool per process shared by the event store,
 * the read store and the blob store, plus the event store's own LISTEN connection. The server is
 * asked once before anything else, so an unreachable URL fails the boot with a message naming
 * the store; migrations run under an advisory lock, so several processes may start at once.
 */
export async function openPostgresStores(config: AppConfig): Promise<Stores> {
  const url = config.databaseUrl!;
  const pool: Pool = createPostgresPool(url, {
    max: config.databasePoolSize,
    applicationName: `dojang-${config.role}`,
    connectionTimeoutMillis: config.storeConnectTimeoutMs,
  });
  try {
    await assertPostgresReachable(pool);
    const events = new PostgresEventStore(pool, { connectionString: url });
    const reads = new PostgresReadStore(pool);
    const blobs = new PostgresBlobStore(pool);
    await events.init();
    await reads.init();
    await blobs.init();
    return {
      kind: 'postgres',
      events,
      reads,
      blobs,
      async closeShared() {
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
}
