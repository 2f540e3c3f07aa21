import { Pool, PoolConfig } from 'pg';

export interface PostgresPoolOptions {
  /** Connections in this process's pool (DATABASE_POOL_SIZE, default 10). */
  max?: number;
  /** Shown in pg_stat_activity, so an operator can tell the processes apart. */
  applicationName?: string;
  /** How long to wait for a connection (also the boot's reachability check). */
  connectionTimeoutMillis?: number;
}

/**
 * One pool per process, shared by the event store, the read store and the blob store. Connection
 * errors on idle clients are logged rather than thrown: pg emits them on the pool, and an
 * unhandled 'error' event would kill the process when the server restarts.
 */
export function createPostgresPool(url: string, options: PostgresPoolOptions = {}): Pool {
  const config: PoolConfig = {
    connectionString: url,
    max: options.max ?? (Number(process.env.DATABASE_POOL_SIZE) || 10),
    application_name: options.applicationName ?? 'dojang',
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    // A pooled connection whose peer vanished fails its next query in seconds, not hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const pool = new Pool(config);
  pool.on('error', (err) => console.error('[postgres] idle client error:', err.message));
  return pool;
}

/** Fails fast, naming the store, when the server cannot be reached (boot wiring). */
export async function assertPostgresReachable(pool: Pool, what = 'PostgreSQL (DATABASE_URL)'): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    throw new Error(`${what} is unreachable: ${(err as Error).message}`);
  }
}
