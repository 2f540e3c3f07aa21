/**
 * Bulk send benchmark (issue 23): one job of N rows on the embedded store, sent by the server's
 * own worker (ROLE=all, one process). Reports documents sent per second (from the job's start to
 * its completion), the server's peak RSS while it runs, and GET /v1/health latency (p50/p99/max)
 * sampled by one client every 20 ms during the job: what the API feels while a job runs.
 *
 * Run (after `npm run build`, or it builds):
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/bulk-send.bench.ts
 * BULK_BENCH_ROWS sets the rows (default 2000); BULK_SEND_PACE_MS is passed to the server.
 */
import * as fs from 'fs';
import http from 'node:http';
import { ensureBuilt, runCli, startServer, tempDataDir } from '../test/support/built-server';

const ROWS = Number(process.env.BULK_BENCH_ROWS ?? 2000);

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

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  ensureBuilt();
  const dataDir = tempDataDir('dojang-bulk-bench-');
  const env = { SECRET_KEY: 'bulk-bench-secret-0123456789abcdef', RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'warn', BULK_SEND_PACE_MS: process.env.BULK_SEND_PACE_MS ?? '0' };
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
    done = true;
    await probe;
    const final = (await call(server.url, 'GET', `/v1/bulk_sends/${job.body.id}`, key)).body;
    const sorted = [...health].sort((a, b) => a - b);
    const result = {
      rows: ROWS,
      status: final.status,
      counts: final.counts,
      seconds: Number(seconds.toFixed(1)),
      documents_per_second: Number((final.counts.sent / seconds).toFixed(1)),
      rss_mb: { start: Math.round(rssStart), peak: Math.round(peakRss) },
      health_ms: { samples: sorted.length, p50: Number(pct(sorted, 50).toFixed(1)), p99: Number(pct(sorted, 99).toFixed(1)), max: Number(sorted[sorted.length - 1].toFixed(1)) },
      load_average: fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    };
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
