import * as fs from 'fs';
import * as os from 'os';
import { Client } from 'pg';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { pdfFixture } from '@dojang/pdf/testing/fixtures';
import { ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import { FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { faultFlows } from '../support/fault-flows';
import { request } from '../support/process-request';
import { startSmtpReceiver } from '../support/topology-receivers';
import { eventually, startWorkerProcess, WorkerProcess } from '../support/worker-process';

/** How long the storm test ends every backend every 100 ms (a longer soak: DOJANG_STORM_SECONDS=60). */
const STORM_SECONDS = Math.max(1, Number(process.env.DOJANG_STORM_SECONDS) || 10);
/**
 * Document clients in the storm: four (two per API process), enough for retries to cross from one
 * process to the other. The soak is judged on 200 Idempotency-Keys per run (issue 33), each first
 * tried during the terminations; on a loaded machine a key can take seconds of 503s to go through,
 * so the soak also starts a new key every 250 ms whatever the answers (240 in 60 s).
 */
const STORM_LANES = 4;
const STORM_KEY_EVERY_MS = process.env.DOJANG_STORM_SECONDS ? 250 : undefined;
/**
 * How long, at least, the mid-SMTP worker stays SIGSTOPped: until the other worker's copy is recorded
 * in npm test, and the issue's literal 60 s with DOJANG_FREEZE_SECONDS=60 (docs/BENCHMARKS.md).
 */
const FREEZE_MS = Math.max(0, Number(process.env.DOJANG_FREEZE_SECONDS) || 0) * 1000;

jest.setTimeout(300_000);

const pgServer = postgresTestServer();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_MS = 3000;
const CLAIM_MS = 4000;

/**
 * Issue 24: faults an operator meets, with the real processes (a ROLE=api server and workers,
 * compiled) on PostgreSQL through a TCP fault proxy: the database stopped under load, backends
 * terminated under load, a worker SIGKILLed in the middle of an SMTP send to a slow mail server,
 * a worker SIGSTOPped past its leases. Each case checks that every process stays up and comes
 * back to work by itself, no acknowledged write is lost or doubled, the API answers 503 with
 * Retry-After (never 500) while the store is away and readiness says so, and every message
 * arrives at least once and at most twice with its delivery recorded once. docs/OPERATIONS.md
 * ("Faults and what they cost") tabulates these outcomes.
 */
(pgServer ? describe : describe.skip)(`faults, as processes on PostgreSQL${pgServer ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  const dirs: string[] = [];
  let proxy: FaultProxy;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let admin: Client;
  let api: ServerProcess;
  /** A second API process on the same database: the storm spreads its clients and retries over both. */
  let api2: ServerProcess;
  const workers: WorkerProcess[] = [];
  let env: NodeJS.ProcessEnv;
  let live: string;

  // Before the database's own afterAll, which drops it and so ends whatever is still connected.
  afterAll(async () => {
    for (const w of workers) {
      if (w.alive()) w.child.kill('SIGCONT');
    }
    await Promise.all([api?.stop(), api2?.stop(), ...workers.map((w) => w.stop())]);
    await proxy?.close();
    await smtp?.close();
    await admin?.end();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  const db = throwawayPostgresDatabase(pgServer ?? '', 'dojang_faults_pg');

  const dataDir = (who: string) => {
    const dir = tempDataDir(`dojang-faults-${who}-`);
    dirs.push(dir);
    return dir;
  };
  const startWorker = async () => {
    const w = await startWorkerProcess({ dataDir: dataDir('worker'), env: { ...env, ROLE: 'worker' }, readyTimeoutMs: 120_000 });
    workers.push(w);
    return w;
  };
  const alive = (p: { child: { exitCode: number | null; signalCode: NodeJS.Signals | null } }) => p.child.exitCode === null && p.child.signalCode === null;
  const mailsTo = (to: string) => smtp.received.filter((m) => m.to.includes(to)).length;

  beforeAll(async () => {
    ensureBuilt();
    const target = new URL(db.url());
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    smtp = await startSmtpReceiver();
    admin = new Client({ connectionString: db.url(), application_name: 'faults-spec' });
    admin.on('error', () => undefined);
    await admin.connect();
    env = {
      SECRET_KEY: 'faults-test-secret-0123456789abcdef',
      DATABASE_URL: proxy.url(db.url()),
      DATABASE_POOL_SIZE: '4',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Dojang <sign@dojang.test>',
      RATE_LIMIT_PER_MINUTE: '100000',
      REACTOR_LEASE_MS: String(LEASE_MS),
      MESSAGE_CLAIM_MS: String(CLAIM_MS),
      LOG_LEVEL: 'warn',
    };
    const cliEnv = { ...env, DATABASE_URL: db.url() };
    const org = await runCli(['org', 'create', '--name', '장애 주식회사'], { dataDir: dataDir('cli'), env: cliEnv });
    expect(org.code).toBe(0);
    live = org.json().keys.live;
    expect((await runCli(['credits', 'grant', '--org', org.json().organization.id, '--amount', '1000'], { dataDir: dataDir('cli'), env: cliEnv })).code).toBe(0);
    const startApi = () => startServer({ dataDir: dataDir('api'), env: { ...env, ROLE: 'api' }, readyTimeoutMs: 120_000 });
    [api, api2] = await Promise.all([startApi(), startApi(), startWorker()]);
    await eventually(async () => ((await request(api.url, 'GET', '/v1/health/ready', null)).status === 200 ? true : undefined), 'readiness with a worker');
  });

  const { load, lossesAndDuplicates, noLossNoDuplicates, sendDocument, delivery } = faultFlows({
    api: () => api.url,
    key: () => live,
    query: <R>(sql: string, params: unknown[]) => admin.query(sql, params) as unknown as Promise<{ rows: R[] }>,
  });

  it('PostgreSQL stopped for 10 s under load: both processes stay up, the API answers 503 + Retry-After and readiness 503, then all recovers', async () => {
    const writes = load('정지');
    await eventually(async () => (writes.acked.size >= 3 ? true : undefined), 'writes before the outage').catch((err: Error) => {
      throw new Error(`${err.message}; refused: ${writes.refused.slice(0, 3).join(' | ')}`);
    });
    proxy.down();
    await sleep(2500);
    const during = await request(api.url, 'POST', '/v1/documents', live, { title: '정지 중', content: '<p>x</p>' });
    expect(during.status).toBe(503);
    expect(during.body.error.code).toBe('service_unavailable');
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    const ready = await request(api.url, 'GET', '/v1/health/ready', null);
    expect(ready.status).toBe(503);
    expect(ready.body.error.code).toBe('not_ready');
    expect((await request(api.url, 'GET', '/v1/health', null)).status).toBe(200);
    await sleep(7500);
    expect(alive(api)).toBe(true);
    expect(workers.every(alive)).toBe(true);
    proxy.up();

    await eventually(async () => ((await request(api.url, 'GET', '/v1/health/ready', null)).status === 200 ? true : undefined), 'readiness after the outage', 60_000);
    const before = writes.acked.size;
    await eventually(async () => (writes.acked.size >= before + 3 ? true : undefined), 'writes after the outage');
    await writes.stop();
    expect(writes.statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(writes.statuses).toContain(503);
    expect(writes.retryAfterMissing()).toBe(0);
    await noLossNoDuplicates(writes.acked, '정지');
    // The worker resumed by itself: a message sent now arrives, recorded.
    const id = await sendDocument('after-outage@example.com');
    await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), 'the mail after the outage recorded');
    expect(mailsTo('after-outage@example.com')).toBe(1);
    expect(alive(api) && workers.every(alive)).toBe(true);
  });

  it('backends terminated five times under load: both processes stay up and no write is lost or doubled', async () => {
    const writes = load('종료');
    await eventually(async () => (writes.acked.size >= 2 ? true : undefined), 'writes before the terminations').catch((err: Error) => {
      throw new Error(`${err.message}; refused: ${writes.refused.slice(0, 3).join(' | ')}`);
    });
    for (let i = 0; i < 5; i++) {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
      await sleep(400);
    }
    const before = writes.acked.size;
    await eventually(async () => (writes.acked.size >= before + 3 ? true : undefined), 'writes after the terminations');
    await writes.stop();
    expect(alive(api)).toBe(true);
    expect(workers.every(alive)).toBe(true);
    expect(writes.statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    await noLossNoDuplicates(writes.acked, '종료');
  });

  it(`every backend terminated every 100 ms for ${STORM_SECONDS} s under creations, uploads and sends on two API processes: no process exits (same PIDs), no 500, no upload or document stored twice`, async () => {
    // Issue 33 finding 2: an API process died of an unhandled 'error' event on a pg Client (57P01)
    // during terminations every 300 ms with uploads running. Every connection of every process is
    // ended again and again: pooled ones mid-query and idle, the LISTEN connections, the projector
    // seat, the workers' leases. Finding 1 (one key, two resources) is sharpest across processes:
    // a key's retry goes to the other API, which knows of the first attempt only through the store.
    // 10 s in npm test; DOJANG_STORM_SECONDS=60 is the issue's soak (docs/BENCHMARKS.md,
    // "Backend terminations").
    const processes = () => [api, api2, ...workers];
    const pids = processes().map((p) => p.child.pid);
    expect(processes().every(alive)).toBe(true);
    const apis = () => [api.url, api2.url];
    const load0 = os.loadavg()[0];
    const writes = load('폭풍', { apis, lanes: STORM_LANES, keyEveryMs: STORM_KEY_EVERY_MS, giveUpMs: (STORM_SECONDS + 60) * 1000 });
    const pdf = pdfFixture('chromium-korean-contract-a4.pdf');
    const uploads = { acked: new Map<string, string>(), statuses: [] as number[], stopped: false, acrossApis: 0 };
    const upload = async (n: number) => {
      const filename = `폭풍-${n}.pdf`;
      for (let tries = 0; tries < 200 && !uploads.stopped; tries++) {
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), filename);
        // Attempts take turns between the two APIs, as the documents' do.
        const target = apis()[(n + tries) % 2];
        const res = await fetch(`${target}/v1/files`, { method: 'POST', headers: { Authorization: `Bearer ${live}`, 'Idempotency-Key': `storm-upload-${n}` }, body: form }).catch(() => null);
        // Refused or reset: wait as for a 503, or an API that died would turn this loop into a busy
        // one that starves the rest of the run of CPU.
        if (!res) {
          await sleep(200);
          continue;
        }
        uploads.statuses.push(res.status);
        const body = (await res.json().catch(() => null)) as { id?: string } | null;
        if (res.status === 201 && body?.id) {
          if (tries % 2 !== 0) uploads.acrossApis++;
          return uploads.acked.set(filename, body.id);
        }
        await sleep(res.status === 409 || res.status === 503 ? 200 : 50);
      }
    };
    // One upload client per API process.
    const uploading = Promise.all(
      [0, 1].map(async (lane) => {
        for (let n = lane; !uploads.stopped; n += 2) await upload(n);
      }),
    );
    // Three documents sent while the storm runs. A step refused with 503 leaves a draft behind and
    // the next try starts over with a new document, so the check below is never vacuous because
    // every try fell on a termination (on a machine too slow for any during the storm, the first
    // is sent after it).
    const sends = (async () => {
      const sent: string[] = [];
      for (let n = 0; n < 200 && (!uploads.stopped || sent.length === 0) && sent.length < 3; n++) {
        const id = await sendDocument(`storm-${n}@example.com`).catch(() => '');
        if (id) sent.push(id);
        else await sleep(200);
      }
      return sent;
    })();
    await eventually(async () => (writes.acked.size >= 2 && uploads.acked.size >= 1 ? true : undefined), 'writes and uploads before the storm', 60_000);
    const atStart = { docs: writes.acked.size, files: uploads.acked.size, keys: writes.started() };
    let ended = 0;
    for (const stop = Date.now() + STORM_SECONDS * 1000; Date.now() < stop; ) {
      const { rows } = await admin.query<{ n: string }>(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      ended += Number(rows[0].n);
      await sleep(100);
    }
    const load1 = os.loadavg()[0];
    const before = { docs: writes.acked.size, files: uploads.acked.size };
    const keysInStorm = writes.started() - atStart.keys;
    await eventually(async () => (writes.acked.size >= before.docs + 2 && uploads.acked.size >= before.files + 1 ? true : undefined), 'writes and uploads after the storm', 60_000).catch((err: Error) => {
      // Say which process went, and what it printed last, rather than only that nothing came.
      const gone = processes()
        .filter((p) => !alive(p))
        .map((p) => `pid ${p.child.pid} exited (${p.child.exitCode ?? p.child.signalCode}):\n${p.output().stderr.slice(-4000)}`);
      throw new Error(`${err.message}; refused: ${writes.refused.slice(-3).join(' | ')}; upload statuses: ${uploads.statuses.slice(-10).join(',')}\n${gone.join('\n')}`);
    });
    uploads.stopped = true;
    await Promise.all([writes.stop(), uploading]);
    const sent = await sends;

    const documents = await lossesAndDuplicates(writes.acked, '폭풍');
    const { rows } = await admin.query<{ filename: string; n: string }>(`SELECT doc->>'filename' AS filename, count(*) AS n FROM rm_files WHERE doc->>'filename' LIKE '폭풍-%' GROUP BY 1`);
    const stored = new Map(rows.map((r) => [r.filename, Number(r.n)]));
    const files = {
      lost: [...uploads.acked.keys()].filter((filename) => !stored.has(filename)),
      duplicates: [...stored].filter(([, n]) => n > 1).map(([filename, n]) => `${filename} × ${n}`),
    };
    const exited = processes().filter((p) => !alive(p)).length;
    const statuses = [...writes.statuses, ...uploads.statuses];
    // The soak (DOJANG_STORM_SECONDS set) reports its counts for docs/BENCHMARKS.md, whatever the
    // assertions below then say.
    if (process.env.DOJANG_STORM_SECONDS) {
      const during = before.docs - atStart.docs + before.files - atStart.files;
      console.log(
        [
          `storm ${STORM_SECONDS} s, 2 API processes + ${workers.length} worker, ${STORM_LANES} document clients and a key every ${STORM_KEY_EVERY_MS} ms, 2 upload clients: ${ended} backends ended`,
          `${keysInStorm} document keys first tried during the storm, ${writes.started()} in all, ${writes.started() - writes.acked.size} never answered 201 (given up after ${STORM_SECONDS + 60} s)`,
          `${writes.acked.size + uploads.acked.size} Idempotency-Keys acknowledged (${writes.acked.size} documents, ${uploads.acked.size} uploads; ${during} answered during the storm itself; ${writes.acrossApis() + uploads.acrossApis} by the other API than their first attempt's)`,
          `${documents.duplicates.length + files.duplicates.length} stored twice, ${documents.lost.length + files.lost.length} acknowledged writes lost, ${exited} process exits (${pids.join(', ')})`,
          `${statuses.length} requests, ${statuses.filter((s) => s === 503).length} answered 503, ${statuses.filter((s) => s >= 500 && s !== 503).length} other 5xx; ${sent.length} signing requests sent`,
          `load average (1 min) ${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end of the storm`,
        ].join('; '),
      );
    }
    expect(ended).toBeGreaterThan(20);
    // The same processes, never restarted, all still up.
    expect(processes().map((p) => [p.child.pid, alive(p)])).toEqual(pids.map((pid) => [pid, true]));
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(writes.acked.size).toBeGreaterThan(0);
    expect(documents).toEqual({ lost: [], duplicates: [] });
    expect(files).toEqual({ lost: [], duplicates: [] });
    // The workers still send: each signing request sent during the storm is delivered and recorded.
    for (const id of sent) await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), `the signing request of ${id} recorded`, 60_000);
  });

  it('a worker SIGKILLed mid-SMTP (the mail server had the message, not yet its reply): delivered at least once, at most twice, recorded once', async () => {
    smtp.setReplyDelay(3000);
    const to = 'killed-mid-send@example.com';
    const id = await sendDocument(to);
    await eventually(async () => (mailsTo(to) >= 1 ? true : undefined), 'the mail at the server');
    const victim = workers.find(alive)!;
    await victim.kill();
    smtp.setReplyDelay(0);
    await startWorker();
    await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), 'the delivery recorded after the kill', 60_000);
    expect(await delivery(id)).toEqual({ status: 'sent', records: 1 });
    expect(mailsTo(to)).toBeGreaterThanOrEqual(1);
    expect(mailsTo(to)).toBeLessThanOrEqual(2);
    await sleep(CLAIM_MS);
    expect(mailsTo(to)).toBeLessThanOrEqual(2);
  });

  it('a worker SIGSTOPped past its leases: another takes over, and SIGCONT causes no third send', async () => {
    await startWorker();
    const { rows } = await admin.query<{ owner: string }>(`SELECT doc->>'owner' AS owner FROM rm_reactor_leases WHERE id = 'signing_notifications'`);
    const holderPid = Number(rows[0]?.owner?.split(':')[1]);
    const holder = workers.find((w) => alive(w) && w.child.pid === holderPid);
    expect(holder).toBeDefined();
    holder!.child.kill('SIGSTOP');
    try {
      const to = 'while-frozen@example.com';
      const id = await sendDocument(to);
      await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), 'the mail sent by the other worker', LEASE_MS * 4 + 20_000);
      expect(mailsTo(to)).toBe(1);
    } finally {
      holder!.child.kill('SIGCONT');
    }
    await sleep(LEASE_MS + CLAIM_MS);
    expect(workers.filter((w) => w !== holder && w.child.signalCode !== 'SIGKILL').every(alive)).toBe(true);
    expect(alive(holder!)).toBe(true);
    const counts = new Map<string, number>();
    for (const m of smtp.received) for (const to of m.to) counts.set(to, (counts.get(to) ?? 0) + 1);
    expect([...counts.values()].every((n) => n >= 1 && n <= 2)).toBe(true);
    expect(mailsTo('while-frozen@example.com')).toBe(1);
    expect((await request(api.url, 'GET', '/v1/health/ready', null)).status).toBe(200);
  });

  it('issue 33: a worker SIGSTOPped mid-SMTP past its claim sends no third copy on SIGCONT: two copies at most, one Message-ID, both attempts in the message log and the evidence', async () => {
    while (workers.filter(alive).length < 2) await startWorker();
    type Attempt = { claim: number; attempt: number; worker: string; outcome: string; error?: string | null };
    const logOf = async (documentId: string) =>
      (await admin.query<{ doc: { status: string; claims: number; sends?: Attempt[] } }>(`SELECT doc FROM rm_message_log WHERE doc->>'document_id' = $1`, [documentId])).rows[0]?.doc;
    const to = 'frozen-mid-smtp@example.com';
    // The mail server takes the message and holds its reply; when released it answers 451
    // (transient), which is what makes the woken worker's retry loop want to send again.
    smtp.holdReplies(451);
    let frozen: WorkerProcess | undefined;
    try {
      const id = await sendDocument(to);
      await eventually(async () => (mailsTo(to) === 1 && smtp.heldReplies() === 1 ? true : undefined), 'the first copy at the server, its reply held', 60_000);
      const first = await eventually(async () => (await logOf(id))?.sends?.[0], 'the first attempt in the message log');
      expect(first).toMatchObject({ claim: 1, attempt: 1, outcome: 'sending' });
      frozen = workers.find((w) => alive(w) && `${first.worker}`.endsWith(`:${w.child.pid}`));
      expect(frozen).toBeDefined();
      frozen!.child.kill('SIGSTOP');
      const frozenAt = Date.now();
      // The 451 reaches the frozen worker's socket; it reads it only on SIGCONT. Later copies are answered at once.
      smtp.releaseReplies();

      // The claim runs out; the other worker takes it over (claim 2) and sends the second copy.
      await eventually(async () => ((await delivery(id)).records === 1 ? true : undefined), 'the second copy sent and recorded by the other worker', LEASE_MS * 4 + CLAIM_MS * 4 + 30_000);
      expect(mailsTo(to)).toBe(2);
      await sleep(Math.max(0, frozenAt + FREEZE_MS - Date.now()));
      expect(mailsTo(to)).toBe(2);
      frozen!.child.kill('SIGCONT');

      // Woken, the worker reads its 451 and would retry: the fence finds claim 2 and drops it. The
      // log then holds its late answer beside the other claim's send.
      const sends = await eventually(async () => {
        const row = await logOf(id);
        return row?.sends?.[0]?.outcome === 'failed' ? row.sends : undefined;
      }, 'the woken worker\'s answer in the message log', 60_000);
      expect(sends.map((a) => [a.claim, a.attempt, a.outcome])).toEqual([
        [1, 1, 'failed'],
        [2, 1, 'sent'],
      ]);
      // Frozen past the SMTP socket timeout (30 s; the issue's 60 s with DOJANG_FREEZE_SECONDS=60),
      // the woken worker's timers run before it reads its socket: its attempt fails as a timeout
      // instead of the 451. Either way a transient failure, whose retry the fence must drop.
      expect(sends[0].error).toMatch(FREEZE_MS >= 30_000 ? /451|Timeout/ : /451/);
      expect(sends[1].worker).not.toBe(sends[0].worker);
      expect(await logOf(id)).toMatchObject({ status: 'sent', claims: 2 });
      // Two copies, never a third, under one Message-ID a recipient can de-duplicate on.
      const copies = smtp.received.filter((m) => m.to.includes(to));
      expect(copies).toHaveLength(2);
      expect(copies[0].messageId).toMatch(/^<msg_[0-9a-f]{24}@dojang\.test>$/);
      expect(copies[1].messageId).toBe(copies[0].messageId);
      // The delivery evidence shows both sends.
      const { rows } = await admin.query<{ data: { sends?: Array<{ claim: number; outcome: string }> } }>(`SELECT data FROM events WHERE stream_id = $1 AND type = 'MessageDelivered'`, [`delivery-${id}`]);
      expect(rows).toHaveLength(1);
      expect(rows[0].data.sends?.map((a) => [a.claim, a.outcome])).toEqual([
        [1, 'unanswered'],
        [2, 'sent'],
      ]);
    } finally {
      smtp.releaseReplies();
      if (frozen && alive(frozen)) frozen.child.kill('SIGCONT');
    }
    expect(workers.filter((w) => w.child.signalCode !== 'SIGKILL').every(alive)).toBe(true);
  });
});
