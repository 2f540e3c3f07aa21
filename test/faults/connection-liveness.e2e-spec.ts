import { Pool } from 'pg';
import { ListeningConnection, createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { FaultProxy, startFaultProxy } from '../support/fault-proxy';

const server = postgresTestServer();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (const giveUp = started + timeoutMs; Date.now() < giveUp; ) {
    if (await check()) return Date.now() - started;
    await sleep(20);
  }
  throw new Error(`not within ${timeoutMs} ms: ${what}`);
}

/**
 * Issue 24 §8: the LISTEN and projector-seat connections used the OS default keep-alive (about two
 * hours): a connection that died silently went unnoticed, and the seat's session lock outlived a
 * frozen holder. Now each long-lived connection is pinged and replaced when a ping goes
 * unanswered, and the server ends a session left idle (a frozen process stops pinging).
 */
(server ? describe : describe.skip)(`long-lived connections notice a dead peer within seconds${server ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  let proxy: FaultProxy;
  let pool: Pool;
  const open: ListeningConnection[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });
  // Before the database's own afterAll, which drops it.
  afterAll(async () => {
    await proxy?.close();
    await pool?.end();
  });
  const database = server ? throwawayPostgresDatabase(server, 'dojang_liveness_pg') : undefined;
  beforeAll(async () => {
    const u = new URL(database!.url());
    proxy = await startFaultProxy({ host: u.hostname, port: Number(u.port || 5432) });
    pool = createPostgresPool(database!.url(), { max: 2, applicationName: 'liveness-spec' });
  });

  function connection(role: string, extra: { pingMs?: number; pingTimeoutMs?: number; idleSessionTimeoutMs?: number; viaProxy?: boolean }) {
    const seen = { ups: 0, lost: 0 };
    const url = extra.viaProxy ? proxy.url(database!.url()) : database!.url();
    const c = new ListeningConnection({
      config: { connectionString: url },
      channel: 'liveness_channel',
      role,
      reconnectDelayMs: 20,
      maxReconnectDelayMs: 100,
      onNotification: () => undefined,
      up: () => void seen.ups++,
      lost: () => void seen.lost++,
      ...extra,
    });
    open.push(c);
    return { c, seen };
  }
  const sessions = async (role: string) =>
    (await pool.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE $1 || '/%'`, [role])).rowCount;

  it('a connection that goes silent (no FIN, no RST) is dropped by its ping and replaced', async () => {
    const { c, seen } = connection('liveness-silent', { viaProxy: true, pingMs: 200, pingTimeoutMs: 500 });
    await c.start();
    expect(seen.ups).toBe(1);
    proxy.stall();
    const took = await until(() => seen.lost === 1 && seen.ups === 2, 'the silent connection replaced', 5000);
    expect(took).toBeLessThan(3000);
  });

  it('the server ends the session of a holder that stopped pinging (a frozen process), and a pinging one stays', async () => {
    const frozen = connection('liveness-frozen', { pingMs: 0, idleSessionTimeoutMs: 700 });
    const alive = connection('liveness-alive', { pingMs: 200, idleSessionTimeoutMs: 700 });
    await frozen.c.start();
    await alive.c.start();
    expect(await sessions('liveness-frozen')).toBe(1);
    // The frozen one's session is ended by the server; it notices and comes back (this process is not really frozen).
    await until(() => frozen.seen.lost >= 1, 'the idle session ended by the server', 5000);
    await sleep(1000);
    expect(alive.seen.lost).toBe(0);
    expect(alive.seen.ups).toBe(1);
  });
});
