import { randomBytes } from 'crypto';
import { Client, Pool, PoolClient } from 'pg';
import { PostgresBlobStore } from '@dojang/blob-store/postgres';
import { createPostgresPool, runMigrations } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { PostgresReadStore } from '@dojang/read-store/postgres';

const server = postgresTestServer();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 24 §2: the API exited when a connection dropped during a large upload. A client checked out
 * of the pool has no 'error' listener of the pool's; pg emits a connection the server ended between
 * two queries as an 'error' event on it, and with no listener Node ends the process. Here the
 * backend of a checked-out client is terminated (pg_terminate_backend, on this spec's own
 * database) while it sits idle between two statements, in each place that takes clients.
 */
(server ? describe : describe.skip)(`a held client's backend terminated${server ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  let admin: Client;
  const pools: Pool[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  // Jest's own handler would fail the run; this one records, so the test can say what happened.
  let jestHandlers: NodeJS.UncaughtExceptionListener[] = [];

  beforeEach(() => {
    uncaught.length = 0;
    jestHandlers = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', onUncaught);
  });
  afterEach(() => {
    process.off('uncaughtException', onUncaught);
    for (const h of jestHandlers) process.on('uncaughtException', h);
  });
  // Before the database's own afterAll, which drops it and so ends whatever is still connected.
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
  });
  const database = server ? throwawayPostgresDatabase(server, 'dojang_held_client_pg') : undefined;
  beforeAll(async () => {
    admin = new Client({ connectionString: database!.url() });
    // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
    admin.on('error', () => undefined);
    await admin.connect();
  });

  /**
   * A pool whose checked-out clients lose their backend just before their first statement of
   * the kind `when` matches: the server ends the session while the client is idle in its owner's
   * hands, and waits until the client has heard of it.
   */
  function poolTerminatingBefore(when: RegExp): Pool {
    const pool = createPostgresPool(database!.url(), { max: 2, applicationName: 'held-client-spec' });
    pools.push(pool);
    let armed = true;
    pool.on('acquire', (client: PoolClient) => {
      const patched = client as unknown as { query: (...args: unknown[]) => unknown; terminating?: boolean };
      if (patched.terminating) return;
      patched.terminating = true;
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      patched.query = (...args: unknown[]) => {
        const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text ?? '');
        if (!armed || !when.test(text)) return query(...args);
        armed = false;
        return (async () => {
          await admin.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
          await sleep(300);
          return query(...args);
        })();
      };
    });
    return pool;
  }

  async function survives(work: () => Promise<unknown>, pool: Pool): Promise<void> {
    await expect(work()).rejects.toThrow(/connection|terminat|not queryable/i);
    expect(uncaught).toEqual([]);
    // The broken client was not handed back: the pool serves the next caller.
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows[0].one).toBe(1);
  }

  it('PostgresBlobStore.put (an upload in its transaction)', async () => {
    const pool = poolTerminatingBefore(/^BEGIN/);
    const blobs = new PostgresBlobStore(pool);
    await runMigrations(createPoolFor(), []); // the database is reachable
    await new PostgresBlobStore(createPoolFor()).init();
    await survives(() => blobs.put(randomBytes(1_500_000)), pool);
  });

  it('PostgresReadStore.reset (a projection rebuild)', async () => {
    const setup = new PostgresReadStore(createPoolFor());
    await setup.init();
    const pool = poolTerminatingBefore(/^BEGIN/);
    const reads = new PostgresReadStore(pool);
    await survives(() => reads.reset('documents', ['documents']), pool);
  });

  it('runMigrations (a process starting)', async () => {
    const pool = poolTerminatingBefore(/CREATE TABLE IF NOT EXISTS dojang_migrations/);
    await survives(() => runMigrations(pool, [{ id: 'held_client_0001', sql: 'SELECT 1' }]), pool);
  });

  it('a client taken with a bare pool.connect() (any caller, any library): every pooled client keeps a listener', async () => {
    // CI, issue 33's storm: an API process died of "Emitted 'error' event on Client instance" from a
    // connected client's 'end'. Every checkout in this code goes through checkoutClient, but the pool
    // itself must not depend on that: a client is never without an 'error' listener, checked out or not.
    const pool = createPostgresPool(database!.url(), { max: 1, applicationName: 'held-client-bare' });
    pools.push(pool);
    const client = await pool.connect();
    const ended = new Promise((resolve) => client.once('end', resolve));
    await admin.query('SELECT pg_terminate_backend($1)', [(client as unknown as { processID: number }).processID]);
    await ended;
    expect(uncaught).toEqual([]);
    await expect(client.query('SELECT 1')).rejects.toThrow(/connection|terminat|not queryable/i);
    client.release(true);
    const { rows } = await pool.query<{ one: number }>('SELECT 1 AS one');
    expect(rows[0].one).toBe(1);
  });

  function createPoolFor(): Pool {
    const pool = createPostgresPool(database!.url(), { max: 1, applicationName: 'held-client-setup' });
    pools.push(pool);
    return pool;
  }
});
