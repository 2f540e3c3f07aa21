import { Pool, PoolClient } from 'pg';

/** A client checked out of the pool with a guard against its connection dropping. */
export interface GuardedClient {
  readonly client: PoolClient;
  /** The connection error pg emitted while the client was out, if any. */
  readonly lost: Error | undefined;
  /** Back to the pool; a client whose connection dropped (or `err`) is destroyed instead. */
  release(err?: Error | boolean): void;
}

/**
 * `pool.connect()` with an `'error'` listener for as long as the client is checked out. pg emits a
 * connection lost between two queries (the server ended the session, restarted, a cut network) as
 * an `'error'` event on the client; the pool listens only while the client is idle, and an
 * `'error'` with no listener ends the process. The next query fails anyway, and that failure is
 * what the caller handles; the listener only keeps the process alive and marks the client broken.
 */
export async function checkoutClient(pool: Pool): Promise<GuardedClient> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (err: Error) => (lost ??= err);
  client.on('error', onError);
  let released = false;
  return {
    client,
    get lost() {
      return lost;
    },
    release(err?: Error | boolean) {
      if (released) return;
      released = true;
      client.off('error', onError);
      client.release(err ?? lost);
    },
  };
}

/** Runs `work` with a guarded client and gives it back (destroyed when its connection broke or `work` says so). */
export async function withClient<R>(pool: Pool, work: (client: PoolClient, markBroken: (err: Error) => void) => Promise<R>): Promise<R> {
  const held = await checkoutClient(pool);
  let broken: Error | undefined;
  try {
    return await work(held.client, (err) => (broken ??= err));
  } finally {
    held.release(broken);
  }
}

/**
 * One transaction on a guarded client: BEGIN, `work`, COMMIT; on failure ROLLBACK, and when the
 * ROLLBACK fails too the connection is gone and is not given back to the pool.
 */
export function inTransaction<R>(pool: Pool, work: (client: PoolClient) => Promise<R>): Promise<R> {
  return withClient(pool, async (client, markBroken) => {
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // After a failed COMMIT the transaction is over and this ROLLBACK only warns.
      await client.query('ROLLBACK').catch((rollbackError: Error) => markBroken(rollbackError));
      throw err;
    }
  });
}
