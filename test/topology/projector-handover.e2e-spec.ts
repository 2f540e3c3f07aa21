import * as fs from 'fs';
import { Client } from 'pg';
import { SEAT_APPLICATION_NAME } from '@dojang/read-store/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { apiClient, ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import { eventually } from '../support/worker-process';

jest.setTimeout(300_000);

const pgServer = postgresTestServer();

/**
 * The projector election as an operator sees it (docs/OPERATIONS.md, "Several machines"): two API
 * processes on one PostgreSQL database, one of them runs the projections, the server itself says
 * which (its seat's session is named after the process), and when that process is SIGKILLed the
 * other takes the role over and every read of the survivor keeps answering its own writes.
 */
(pgServer ? describe : describe.skip)(`the projector role moves when its process dies${pgServer ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  const dirs: string[] = [];
  const running: ServerProcess[] = [];
  let env: NodeJS.ProcessEnv;
  let key: string;
  let admin: Client;
  // Before the database's own afterAll, which drops it and so ends whatever is still connected.
  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await admin?.end();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const db = throwawayPostgresDatabase(pgServer ?? '', 'dojang_handover_pg');

  const start = () => {
    const dataDir = tempDataDir('dojang-handover-');
    dirs.push(dataDir);
    // The role changes are logged at info.
    return startServer({ dataDir, env: { ...env, ROLE: 'api', LOG_LEVEL: 'info' }, readyTimeoutMs: 120_000 }).then((p) => {
      running.push(p);
      return p;
    });
  };

  /** The pid of the process whose seat holds the projector lock, read from the server alone. */
  async function projectorPid(): Promise<number | undefined> {
    const { rows } = await admin.query<{ application_name: string }>(
      `SELECT a.application_name FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
        WHERE a.datname = current_database() AND l.locktype = 'advisory' AND l.granted
          AND a.application_name LIKE $1 || '/%'`,
      [SEAT_APPLICATION_NAME],
    );
    if (rows.length > 1) throw new Error(`two projectors: ${rows.map((r) => r.application_name).join(', ')}`);
    return rows.length ? Number(rows[0].application_name.split('/').pop()) : undefined;
  }

  const saysProjector = (p: ServerProcess) => p.output().stdout.includes('this process runs the projections');

  /** Creates a document through `p` and reads it back through `p` at once, in the list too. */
  async function writeAndRead(p: ServerProcess, title: string): Promise<void> {
    const call = apiClient(p.url, key);
    const created = await call('POST', '/v1/documents', { title, content: '<p>본문</p>' });
    expect(created.status).toBe(201);
    const got = await call('GET', `/v1/documents/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.title).toBe(title);
    const list = await call('GET', '/v1/documents?limit=100');
    expect((list.body.data as Array<{ id: string }>).map((d) => d.id)).toContain(created.body.id);
  }

  beforeAll(async () => {
    ensureBuilt();
    env = { SECRET_KEY: 'projector-handover-secret-key-0123456789', DATABASE_URL: db.url(), DATABASE_POOL_SIZE: '4', RATE_LIMIT_PER_MINUTE: '100000' };
    const cliDir = tempDataDir('dojang-handover-cli-');
    dirs.push(cliDir);
    const org = await runCli(['org', 'create', '--name', '승계 주식회사'], { dataDir: cliDir, env });
    expect(org.code).toBe(0);
    key = org.json().keys.test;
    admin = new Client({ connectionString: db.url(), application_name: 'projector-handover-spec' });
    // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
    admin.on('error', () => undefined);
    await admin.connect();
  });

  it('names the projector on the server, hands the role over on SIGKILL, and reads keep following writes', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const pid = await eventually(projectorPid, 'a projector');
    const projector = [a, b].find((p) => p.child.pid === pid);
    const follower = [a, b].find((p) => p !== projector)!;
    expect(projector).toBeDefined();
    await eventually(async () => saysProjector(projector!) || undefined, 'the projector logs its role');
    expect(saysProjector(follower)).toBe(false);

    // Both answer their own writes: the projector by projecting, the follower by waiting for it.
    await writeAndRead(follower, '따르는 쪽 계약서');
    await writeAndRead(projector!, '투영하는 쪽 계약서');

    await projector!.kill();
    // The server ends the dead process's session and with it the lock: the follower takes the role.
    const next = await eventually(async () => {
      const now = await projectorPid();
      return now === follower.child.pid ? now : undefined;
    }, 'the survivor takes the role');
    expect(next).toBe(follower.child.pid);
    await eventually(async () => saysProjector(follower) || undefined, 'the survivor logs its new role');
    await writeAndRead(follower, '승계 후 계약서');

    // The restarted process joins as a follower, and the documents of all three writes are there.
    const restarted = await start();
    await writeAndRead(restarted, '재시작 후 계약서');
    expect(await projectorPid()).toBe(follower.child.pid);
    expect(saysProjector(restarted)).toBe(false);
    const list = await apiClient(restarted.url, key)('GET', '/v1/documents?limit=100');
    expect((list.body.data as Array<{ title: string }>).map((d) => d.title).sort()).toEqual(
      ['따르는 쪽 계약서', '투영하는 쪽 계약서', '승계 후 계약서', '재시작 후 계약서'].sort(),
    );
  });
});
