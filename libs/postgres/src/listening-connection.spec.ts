import { Client, Pool } from 'pg';
import { createPostgresPool } from './pool';
import { ListeningConnection, ListeningConnectionOptions, applicationName } from './listening-connection';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from './testing/postgres-test-database';

const server = postgresTestServer();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  for (const giveUp = Date.now() + timeoutMs; Date.now() < giveUp; ) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}

describe('applicationName', () => {
  it('names the role, the host and the process', () => {
    expect(applicationName('dojang-projector-seat', 4242, 'web-1')).toBe('dojang-projector-seat/web-1/4242');
  });

  it('keeps the pid whole when a long host name would pass the 63 bytes the server keeps', () => {
    const name = applicationName('dojang-events-listener', 4194304, 'h'.repeat(80));
    expect(name).toHaveLength(63);
    expect(name.endsWith('/4194304')).toBe(true);
    expect(name.startsWith('dojang-events-listener/hhh')).toBe(true);
  });
});

(server ? describe : describe.skip)(`ListeningConnection on PostgreSQL${server ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  const database = server ? throwawayPostgresDatabase(server, 'dojang_listen_pg') : undefined;
  let pool: Pool;
  const open: ListeningConnection[] = [];
  beforeAll(() => {
    pool = createPostgresPool(database!.url(), { max: 2, applicationName: 'listening-connection-spec' });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await pool?.end();
  });

  /** A connection on `channel`, recording what it is told. */
  function listening(role: string, extra: Partial<ListeningConnectionOptions> = {}) {
    const seen = { payloads: [] as Array<string | undefined>, ups: 0, lost: 0, downs: [] as number[] };
    const connection = new ListeningConnection({
      config: { connectionString: database!.url() },
      channel: 'spec_channel',
      role,
      reconnectDelayMs: 20,
      maxReconnectDelayMs: 80,
      onNotification: (payload) => seen.payloads.push(payload),
      up: () => {
        seen.ups += 1;
      },
      lost: () => {
        seen.lost += 1;
      },
      down: (_err, wait) => seen.downs.push(wait),
      ...extra,
    });
    open.push(connection);
    return { connection, seen };
  }

  const backends = async (role: string) =>
    (
      await pool.query<{ pid: number; application_name: string }>(
        `SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1 || '/%'`,
        [role],
      )
    ).rows;

  it('hears its channel only, on a session named after the role, the host and the process', async () => {
    const { connection, seen } = listening('spec-hears');
    await connection.start();
    expect(seen.ups).toBe(1);
    const [backend] = await backends('spec-hears');
    expect(backend.application_name).toBe(applicationName('spec-hears'));
    await pool.query(`SELECT pg_notify('other_channel', 'not this'), pg_notify('spec_channel', 'one')`);
    await pool.query(`NOTIFY spec_channel`);
    await until(() => seen.payloads.length === 2, 'two notifications');
    expect(seen.payloads).toEqual(['one', '']);
  });

  it('replaces a session the server ends, runs prepare again and hears what is sent after', async () => {
    const prepared: number[] = [];
    const { connection, seen } = listening('spec-replaced', {
      prepare: async (client: Client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        prepared.push(rows[0].pid);
      },
    });
    await connection.start();
    const [first] = await backends('spec-replaced');
    expect(prepared).toEqual([first.pid]);
    await pool.query('SELECT pg_terminate_backend($1)', [first.pid]);
    await until(() => seen.ups === 2, 'up again');
    expect(seen.lost).toBe(1);
    expect(seen.downs.length).toBeGreaterThanOrEqual(1);
    expect(prepared).toHaveLength(2);
    expect(prepared[1]).not.toBe(first.pid);
    expect(connection.client).not.toBeNull();
    await pool.query(`SELECT pg_notify('spec_channel', 'after')`);
    await until(() => seen.payloads.includes('after'), 'the notification after the reconnect');
  });

  it('counts a failing prepare as a failed connection: its session is closed, and it tries again', async () => {
    let attempts = 0;
    const { connection, seen } = listening('spec-prepare', {
      prepare: () => {
        attempts += 1;
        return attempts < 3 ? Promise.reject(new Error('catch-up failed')) : Promise.resolve();
      },
    });
    await connection.start();
    expect(seen.ups).toBe(0);
    expect(connection.client).toBeNull();
    await until(() => seen.ups === 1, 'up on the third attempt');
    expect(attempts).toBe(3);
    expect(seen.lost).toBe(0);
    // The two sessions whose prepare failed are gone; only the live one is left.
    await until(async () => (await backends('spec-prepare')).length === 1, 'one session left');
  });

  it('backs off doubling up to the bound while the server cannot be reached, and stops once closed', async () => {
    const { connection, seen } = listening('spec-unreachable', { config: { host: '127.0.0.1', port: 1, connectionTimeoutMillis: 500 } });
    await connection.start();
    await until(() => seen.downs.length >= 5, 'five failed attempts');
    expect(seen.downs.slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
    await connection.close();
    const after = seen.downs.length;
    await sleep(250);
    expect(seen.downs.length).toBe(after);
    expect(seen.ups).toBe(0);
  });

  it('ends its session on close, and does not come back', async () => {
    const { connection, seen } = listening('spec-close');
    await connection.start();
    expect(await backends('spec-close')).toHaveLength(1);
    await connection.close();
    expect(connection.client).toBeNull();
    await until(async () => (await backends('spec-close')).length === 0, 'the session gone');
    await sleep(150);
    expect(await backends('spec-close')).toHaveLength(0);
    expect(seen.lost).toBe(0);
    expect(seen.downs).toEqual([]);
  });
});
