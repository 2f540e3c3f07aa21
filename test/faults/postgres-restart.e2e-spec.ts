import * as fs from 'fs';
import { Client } from 'pg';
import { ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import { faultFlows } from '../support/fault-flows';
import { postgresBinDir, PrivatePostgres, startPrivatePostgres } from '../support/private-postgres';
import { request } from '../support/process-request';
import { startSmtpReceiver } from '../support/topology-receivers';
import { eventually, startWorkerProcess, WorkerProcess } from '../support/worker-process';

jest.setTimeout(300_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 24: the PostgreSQL server itself restarted and stopped under load, with the real processes
 * (a ROLE=api server and a worker, compiled). The proxy in faults.e2e-spec.ts cuts connections;
 * here the server really goes away — every backend ends, the postmaster closes its port, and on
 * start a new one answers with fresh backends — as `pg_ctlcluster restart` does to an operator.
 * The machine's shared server serves the other suites meanwhile, so this one is the test's own
 * (test/support/private-postgres.ts). Needs the server binaries, which every machine of the
 * project has (PostgreSQL 15); where they are missing the suite fails, saying so.
 */
describe('PostgreSQL restarted and stopped under load, as processes', () => {
  let pg: PrivatePostgres;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let api: ServerProcess;
  let worker: WorkerProcess;
  let env: NodeJS.ProcessEnv;
  const extraWorkers: WorkerProcess[] = [];
  let live: string;
  const dirs: string[] = [];
  const dataDir = (who: string) => {
    const dir = tempDataDir(`dojang-pg-restart-${who}-`);
    dirs.push(dir);
    return dir;
  };
  const alive = (p: { child: { exitCode: number | null; signalCode: NodeJS.Signals | null } }) => p.child.exitCode === null && p.child.signalCode === null;

  /** One short-lived connection per query: the server under test goes away, and so would a held one. */
  async function query<R>(sql: string, params: unknown[]): Promise<{ rows: R[] }> {
    const client = new Client({ connectionString: pg.url('dojang'), application_name: 'pg-restart-spec' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query(sql, params)) as unknown as { rows: R[] };
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const { load, noLossNoDuplicates, sendDocument, delivery } = faultFlows({ api: () => api.url, key: () => live, query });

  beforeAll(async () => {
    if (!postgresBinDir()) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql: install postgresql-15');
    ensureBuilt();
    pg = await startPrivatePostgres();
    const setup = new Client({ connectionString: pg.url() });
    // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
    setup.on('error', () => undefined);
    await setup.connect();
    await setup.query('CREATE DATABASE dojang');
    await setup.end();
    smtp = await startSmtpReceiver();
    env = {
      SECRET_KEY: 'pg-restart-test-secret-0123456789abcdef',
      DATABASE_URL: pg.url('dojang'),
      DATABASE_POOL_SIZE: '4',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Dojang <sign@dojang.test>',
      RATE_LIMIT_PER_MINUTE: '100000',
      REACTOR_LEASE_MS: '3000',
      LOG_LEVEL: 'warn',
    };
    const org = await runCli(['org', 'create', '--name', '재시작 주식회사'], { dataDir: dataDir('cli'), env });
    expect(org.code).toBe(0);
    live = org.json().keys.live;
    expect((await runCli(['credits', 'grant', '--org', org.json().organization.id, '--amount', '1000'], { dataDir: dataDir('cli'), env })).code).toBe(0);
    [api, worker] = await Promise.all([
      startServer({ dataDir: dataDir('api'), env: { ...env, ROLE: 'api' }, readyTimeoutMs: 120_000 }),
      startWorkerProcess({ dataDir: dataDir('worker'), env: { ...env, ROLE: 'worker' }, readyTimeoutMs: 120_000 }),
    ]);
    await eventually(async () => ((await request(api.url, 'GET', '/v1/health/ready', null)).status === 200 ? true : undefined), 'readiness with a worker');
  });

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop(), ...extraWorkers.map((w) => w.stop())]);
    await smtp?.close();
    pg?.destroy();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a restart, then 8 s stopped: both processes stay up, 503 + Retry-After and readiness 503 meanwhile, no write lost or doubled, mail flows again', async () => {
    const writes = load('재시작');
    await eventually(async () => (writes.acked.size >= 3 ? true : undefined), 'writes before the restart').catch((err: Error) => {
      throw new Error(`${err.message}; refused: ${writes.refused.slice(0, 3).join(' | ')}`);
    });

    // A fast restart: every backend is terminated and the server is back within a second or two.
    pg.restart();
    let before = writes.acked.size;
    await eventually(async () => (writes.acked.size >= before + 3 ? true : undefined), 'writes after the restart', 60_000);
    expect(alive(api) && alive(worker)).toBe(true);

    // Stopped: the port is closed, so every new connection is refused.
    pg.stop();
    try {
      await sleep(2000);
      const during = await request(api.url, 'POST', '/v1/documents', live, { title: '정지 중', content: '<p>x</p>' });
      expect(during.status).toBe(503);
      expect(during.body.error.code).toBe('service_unavailable');
      expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
      const ready = await request(api.url, 'GET', '/v1/health/ready', null);
      expect(ready.status).toBe(503);
      expect((await request(api.url, 'GET', '/v1/health', null)).status).toBe(200);
      await sleep(6000);
      expect(alive(api)).toBe(true);
      expect(alive(worker)).toBe(true);
    } finally {
      pg.start();
    }

    await eventually(async () => ((await request(api.url, 'GET', '/v1/health/ready', null)).status === 200 ? true : undefined), 'readiness after the start', 60_000);
    before = writes.acked.size;
    await eventually(async () => (writes.acked.size >= before + 3 ? true : undefined), 'writes after the start', 60_000);
    await writes.stop();
    expect(writes.refused).toEqual([]);
    expect(writes.statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(writes.statuses).toContain(503);
    expect(writes.retryAfterMissing()).toBe(0);
    await noLossNoDuplicates(writes.acked, '재시작');

    // The worker came back by itself: a message sent now arrives once, recorded once.
    const id = await sendDocument('after-restart@example.com');
    await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), 'the mail after the restart recorded', 60_000);
    expect(smtp.received.filter((m) => m.to.includes('after-restart@example.com')).length).toBe(1);
    expect(alive(api) && alive(worker)).toBe(true);
  });

  it('a second worker whose clock runs 3 minutes ahead (libfaketime): it takes no lease early, each mail goes once, and it takes over from a killed worker', async () => {
    // The process's own clock really is wrong: libfaketime shifts every wall-clock read of the
    // process (Date.now(), new Date()), as a host with a broken NTP would. Leases and claims are
    // timed by the database's clock (ReadStore.serverTime), so the skewed worker must not think
    // the other's lease has run out.
    const faketime = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'].find((f) => fs.existsSync(f));
    if (!faketime) throw new Error('libfaketime not found: install the Debian package faketime (.ci/run does)');
    const ahead = await startWorkerProcess({
      dataDir: dataDir('ahead'),
      env: { ...env, ROLE: 'worker', LD_PRELOAD: faketime, FAKETIME: '+180s', FAKETIME_DONT_FAKE_MONOTONIC: '1', FAKETIME_NO_CACHE: '1' },
      readyTimeoutMs: 120_000,
    });
    extraWorkers.push(ahead);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await sendDocument(`skew-${i}@example.com`));
    for (const id of ids) await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), `the mail of ${id} recorded`, 60_000);
    // Time for a wrongly expired lease to be taken and the mails sent again.
    await sleep(4000);
    for (let i = 0; i < 4; i++) expect(smtp.received.filter((m) => m.to.includes(`skew-${i}@example.com`)).length).toBe(1);
    for (const id of ids) expect((await delivery(id)).records).toBe(1);

    // The worker on the right clock dies: the one ahead takes over once the lease has run out by the database's clock.
    await worker.kill();
    const id = await sendDocument('after-skewed-takeover@example.com');
    await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), 'the mail sent by the skewed worker', 60_000);
    expect(smtp.received.filter((m) => m.to.includes('after-skewed-takeover@example.com')).length).toBe(1);
    expect(alive(ahead)).toBe(true);
  });
});
