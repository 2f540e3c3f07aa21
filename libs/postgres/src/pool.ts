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
 * unhandled 'error' event would kill the process when the server restarts. Every client also
 * keeps a listener of its own from its first connection (below).
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
  // The pool listens to a client only while it is idle, and checkoutClient while it is checked out
  // through it. This listener stays for the client's whole life, so no moment (a bare
  // pool.connect(), a library's checkout, the instant between acquiring and guarding) leaves a
  // connected client without one: pg emits a session the server ended (57P01, a restart, a cut
  // network) as an 'error' event, and one with no listener ends the process. The failure itself
  // reaches whoever runs the next query on it; this only keeps the process alive.
  pool.on('connect', (client) => client.on('error', () => undefined));
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
