/**
 * Bulk send benchmark (issue 23): one job of N rows on the embedded store (and on PostgreSQL when
 * DOJANG_TEST_POSTGRES_URL names a server: a throwaway database), sent by the server's own worker
 * (ROLE=all, one process). Reports documents sent per second (from the job's start to its
 * completion), the server's CPU time per document, its peak RSS while it runs, and GET /v1/health latency (p50/p99/max)
 * sampled by one client every 20 ms during the job: what the API feels while a job runs.
 *
 * Run (after `npm run build`, or it builds):
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/bulk-send.bench.ts
 *   npm run bench -- --only bulk-send --no-write          (the same, as a scenario)
 * BULK_BENCH_ROWS sets the rows (default 1000); BULK_BENCH_STORES=sqlite,postgres picks the stores;
 * BULK_SEND_PACE_MS is passed to the server; BULK_BENCH_CPU_PROF=<dir> writes the server's
 * V8 CPU profile there (node --cpu-prof).
 */
import * as fs from 'fs';
import http from 'node:http';
import { createTestDatabase, dropTestDatabase, postgresTestServer } from '@dojang/postgres/testing/postgres-test-database';
import { ensureBuilt, runCli, startServer, tempDataDir } from '../test/support/built-server';

const ROWS = Number(process.env.BULK_BENCH_ROWS ?? 1000);
const PG_SERVER = postgresTestServer();
const STORES = (process.env.BULK_BENCH_STORES ?? (PG_SERVER ? 'sqlite,postgres' : 'sqlite')).split(',').map((s) => s.trim());

function call(base: string, method: string, path: string, key: string | null, body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      base + path,
      { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null, ms: Number(process.hrtime.bigint() - t0) / 1e6 });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/**
 * CPU seconds the server process has used (user + system, its PDF pool's threads included), from
 * /proc: on a machine shared with other work, the cost of a job that wall time alone hides.
 * The PostgreSQL server's own processes are not counted.
 */
function cpuSeconds(pid: number): number {
  // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
/** USER_HZ: 100 on Linux on every architecture this runs on. */
const CLOCK_TICKS = 100;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

interface BulkBenchResult {
  store: string;
  rows: number;
  status: string;
  counts: Record<string, number>;
  seconds: number;
  documents_per_second: number;
  rss_mb: { start: number; peak: number };
  /** The server's CPU time from the job's start to its completion, and per document sent. */
  cpu: { seconds: number; ms_per_document: number };
  health_ms: { samples: number; p50: number; p99: number; max: number };
  /** GET /v1/documents?limit=20 by the job's organization, every 100 ms: a read an integrator makes meanwhile. */
  list_ms: { samples: number; p50: number; p99: number; max: number };
  load_average: string;
}

async function runOne(store: string): Promise<BulkBenchResult> {
  const dataDir = tempDataDir('dojang-bulk-bench-');
  const databaseUrl = store === 'postgres' ? await createTestDatabase(PG_SERVER!, 'dojang_bulk_bench') : null;
  const env = {
    SECRET_KEY: 'bulk-bench-secret-0123456789abcdef',
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'warn',
    BULK_SEND_PACE_MS: process.env.BULK_SEND_PACE_MS ?? '0',
    ...(process.env.BULK_SEND_WINDOW ? { BULK_SEND_WINDOW: process.env.BULK_SEND_WINDOW } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  const org = await runCli(['org', 'create', '--name', '벤치 주식회사'], { dataDir, env, timeoutMs: 60_000 });
  if (org.code !== 0) throw new Error(org.stderr);
  const key = org.json().keys.test as string;
  const profDir = process.env.BULK_BENCH_CPU_PROF;
  const server = await startServer({ dataDir, env: { ...env, ROLE: 'all' }, readyTimeoutMs: 120_000, ...(profDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] } : {}) });
  try {
    const template = await call(server.url, 'POST', '/v1/templates', key, {
      name: '근로계약서',
      content: '<p>{{name}}님의 근로계약서</p>',
      roles: [{ role: 'employee', auth: 'none' }],
      fields: [{ role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 }],
    });
    if (template.status !== 201) throw new Error(JSON.stringify(template.body));
    const rows = Array.from({ length: ROWS }, (_, i) => ({ roles: { employee: { name: `직원${i + 1}`, email: `hire-${i + 1}@example.com` } }, variables: { name: `직원${i + 1}` } }));
    const rssStart = rssMb(server.child.pid!);
    const cpuStart = cpuSeconds(server.child.pid!);
    const t0 = Date.now();
    const job = await call(server.url, 'POST', '/v1/bulk_sends', key, { template_id: template.body.id, rows });
    if (job.status !== 200) throw new Error(JSON.stringify(job.body));
    process.stderr.write(`[bench] job ${job.body.id}: ${ROWS} rows accepted in ${job.ms.toFixed(0)} ms\n`);
    const health: number[] = [];
    let peakRss = rssStart;
    let done = false;
    const probe = (async () => {
      while (!done) {
        health.push((await call(server.url, 'GET', '/v1/health', null)).ms);
        peakRss = Math.max(peakRss, rssMb(server.child.pid!));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const lists: number[] = [];
    const listProbe = (async () => {
      while (!done) {
        lists.push((await call(server.url, 'GET', '/v1/documents?limit=20', key)).ms);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    let last = 0;
    for (;;) {
      const p = await call(server.url, 'GET', `/v1/bulk_sends/${job.body.id}`, key);
      if (p.body.status !== 'running') break;
      if (p.body.counts.sent - last >= 250) {
        last = p.body.counts.sent;
        process.stderr.write(`[bench] ${last} sent after ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const seconds = (Date.now() - t0) / 1000;
    const cpu = cpuSeconds(server.child.pid!) - cpuStart;
    done = true;
    await Promise.all([probe, listProbe]);
    const final = (await call(server.url, 'GET', `/v1/bulk_sends/${job.body.id}`, key)).body;
    const sorted = [...health].sort((a, b) => a - b);
    const listSorted = [...lists].sort((a, b) => a - b);
    const result: BulkBenchResult = {
      store,
      rows: ROWS,
      status: final.status,
      counts: final.counts,
      seconds: Number(seconds.toFixed(1)),
      documents_per_second: Number((final.counts.sent / seconds).toFixed(1)),
      rss_mb: { start: Math.round(rssStart), peak: Math.round(peakRss) },
      cpu: { seconds: Number(cpu.toFixed(1)), ms_per_document: Number(((cpu * 1000) / Math.max(1, final.counts.sent)).toFixed(1)) },
      health_ms: { samples: sorted.length, p50: Number(pct(sorted, 50).toFixed(1)), p99: Number(pct(sorted, 99).toFixed(1)), max: Number(sorted[sorted.length - 1].toFixed(1)) },
      list_ms: { samples: listSorted.length, p50: Number(pct(listSorted, 50).toFixed(1)), p99: Number(pct(listSorted, 99).toFixed(1)), max: Number(listSorted[listSorted.length - 1].toFixed(1)) },
      load_average: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    };
    return result;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) await dropTestDatabase(PG_SERVER!, databaseUrl);
  }
}

/** The scenario's entry (bench/scenarios/bulk-send.scenario.ts): one job per store, one after the other. */
export async function runBulkSendBench(): Promise<{ rows: Array<{ name: string; value: number; unit: string }>; markdown: string }> {
  ensureBuilt();
  const results: BulkBenchResult[] = [];
  for (const store of STORES) results.push(await runOne(store));
  const rows = results.flatMap((r) => [
    { name: `bulk send ${r.rows} rows, ${r.store}: documents/s`, value: r.documents_per_second, unit: 'documents/s' },
    { name: `bulk send ${r.rows} rows, ${r.store}: GET /v1/health p99`, value: r.health_ms.p99, unit: 'ms' },
    { name: `bulk send ${r.rows} rows, ${r.store}: GET /v1/documents p99`, value: r.list_ms.p99, unit: 'ms' },
    { name: `bulk send ${r.rows} rows, ${r.store}: peak RSS`, value: r.rss_mb.peak, unit: 'MB' },
    { name: `bulk send ${r.rows} rows, ${r.store}: server CPU per document`, value: r.cpu.ms_per_document, unit: 'ms' },
  ]);
  const markdown = [
    '| store | rows | job took | documents/s | server CPU (per document) | RSS start → peak | `GET /v1/health` p50 / p99 / max | `GET /v1/documents` p50 / p99 / max | load average |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.store} | ${r.rows} | ${r.seconds} s | ${r.documents_per_second} | ${r.cpu.seconds} s (${r.cpu.ms_per_document} ms) | ${r.rss_mb.start} → ${r.rss_mb.peak} MB | ${r.health_ms.p50} / ${r.health_ms.p99} / ${r.health_ms.max} ms (${r.health_ms.samples} samples) | ${r.list_ms.p50} / ${r.list_ms.p99} / ${r.list_ms.max} ms (${r.list_ms.samples}) | ${r.load_average} |`,
    ),
  ].join('\n');
  return { rows, markdown };
}

if (require.main === module) {
  runBulkSendBench().then(
    ({ markdown }) => process.stdout.write(markdown + '\n'),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
