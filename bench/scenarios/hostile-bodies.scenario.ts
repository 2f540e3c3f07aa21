import * as fs from 'fs';
import * as http from 'http';
import { startServer, tempDataDir } from '../../test/support/built-server';
import { BenchContext, BenchRow, BenchScenario, HttpResult } from '../harness';
import { rssMb, rssSampler } from './isolation.scenario';

interface Refusal {
  kind: string;
  status: number;
  param: string | null;
  ms: number;
  /** Until the status line and headers arrived. */
  headersMs: number;
  /** Since the first hostile body was sent. */
  atMs: number;
}

/**
 * One request with its body as bytes, on a connection of its own (Content-Length declared), read
 * to the end of the answer. The server answers a refused body while it still arrives and closes the
 * connection after it (refused-body.ts); Node's client then stops sending.
 */
function send(url: string, method: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string; headersMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(url, { method, agent: false, headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) } }, (res) => {
      const headersMs = performance.now() - t0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headersMs }));
      res.on('error', reject);
    });
    // Once answered, the rest of the body may be cut off (EPIPE, a reset): the answer is what counts.
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(body);
  });
}

const emptyObjects = (n: number) => `[${'{},'.repeat(n - 1)}{}]`;

/**
 * Issue 33 §9 and §10: bodies a test key can send that used to hold the event loop for seconds to
 * minutes before their lengths were checked. One client sends them back to back (each waits for
 * its answer) while GET /v1/health is measured at 16 connections. Goals: each refused with 400 and
 * its param in under 100 ms, health p99 under 50 ms meanwhile, RSS back under 400 MB afterwards.
 */
export const hostileBodiesScenario: BenchScenario = {
  id: 'hostile-bodies',
  title: 'Hostile bodies (issue 33 §9, §10) next to GET /v1/health',
  async run(ctx) {
    // --cpu-prof profiles this server too (its .cpuprofile is summarised at the end of the run).
    const nodeArgs = ctx.options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${ctx.options.cpuProfDir}`, '--cpu-prof-name=hostile-bodies-server.cpuprofile'] : [];
    const server = await startServer({ dataDir: tempDataDir('dojang-bench-hostile-'), env: { RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'silent' }, nodeArgs, readyTimeoutMs: 120_000 });
    // Sampled from the first hostile body on (not during the health reference before it).
    let sampler: ReturnType<typeof rssSampler> | undefined;
    const http: HttpResult[] = [];
    const refusals: Refusal[] = [];
    let stop = false;
    let rssAfter: number | null = null;
    let rssBefore: number | null = null;
    try {
      const org = await ctx.createOrg(server.dataDir);
      const auth = { Authorization: `Bearer ${org.test}` };
      const json = (method: string, path: string, body: string) => fetch(server.url + path, { method, headers: { ...auth, 'Content-Type': 'application/json' }, body });
      const doc = (await (await json('POST', '/v1/documents', JSON.stringify({ title: '계약서', content: '<p>본문</p>' }))).json()) as { id: string };
      const brandKeys = `{"brand":{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',')}}}`;
      const cases: Array<[string, string, string, string | Buffer]> = [
        ['fields: 3,000,000 empty objects (9 MB)', 'PUT', `/v1/documents/${doc.id}/fields`, `{"fields":${emptyObjects(3_000_000)}}`],
        ['fields: 300,000 empty objects (900 KB)', 'PUT', `/v1/documents/${doc.id}/fields`, `{"fields":${emptyObjects(300_000)}}`],
        ['fields: 30,000 empty objects (90 KB)', 'PUT', `/v1/documents/${doc.id}/fields`, `{"fields":${emptyObjects(30_000)}}`],
        ['template fields: 30,000 empty objects', 'POST', '/v1/templates', `{"name":"t","content":"x","fields":${emptyObjects(30_000)}}`],
        ['participants/batch: 30,000 empty objects', 'POST', `/v1/documents/${doc.id}/participants/batch`, `{"participants":${emptyObjects(30_000)}}`],
        ['brand: [0..99999]', 'PATCH', '/v1/organization', `{"brand":[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]}`],
        ['brand: 100,000 keys', 'PATCH', '/v1/organization', brandKeys],
      ];
      // Each body is encoded once, up front: fetch would turn the 9 MB string into bytes and copy
      // them again on every request (30–70 ms of this process's CPU on a busy machine), which
      // measured the client, not the server's answer.
      for (const c of cases) c[3] = Buffer.from(c[3]);
      const ctx16 = new BenchContext({ ...ctx.options, connections: 16 });
      http.push(await ctx16.measure({ name: 'GET /v1/health alone (reference)', target: server, method: 'GET', path: '/v1/health' }));
      // What the server holds without any hostile body, after the same health load: the level the
      // RSS after the bodies is to be compared with.
      rssBefore = rssMb(server.child.pid);
      sampler = rssSampler(server.child.pid);
      const hostileClient = (async () => {
        const start = performance.now();
        for (let i = 0; !stop; i++) {
          const [kind, method, path, body] = cases[i % cases.length];
          const t0 = performance.now();
          const res = await send(server.url + path, method, auth, body as Buffer);
          const answer = JSON.parse(res.body) as { error?: { param?: string } };
          refusals.push({ kind, status: res.status, param: answer.error?.param ?? null, ms: performance.now() - t0, headersMs: res.headersMs, atMs: t0 - start });
        }
      })();
      http.push(await ctx16.measure({ name: 'GET /v1/health next to hostile bodies', target: server, method: 'GET', path: '/v1/health', goal: { maxP99Ms: 50 } }));
      stop = true;
      await hostileClient;
      // What memory the bodies took is given back: RSS a few seconds after the last one.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      rssAfter = rssMb(server.child.pid);
    } finally {
      stop = true;
      await ctx.stop(server);
      fs.rmSync(server.dataDir, { recursive: true, force: true });
    }
    const rss = sampler?.stop() ?? { peakMb: 0 };
    // HOSTILE_BODIES_TRACE=<file>: every refusal's timings, to see which ones are slow and when.
    if (process.env.HOSTILE_BODIES_TRACE) fs.writeFileSync(process.env.HOSTILE_BODIES_TRACE, JSON.stringify(refusals));
    const rows: BenchRow[] = [
      { name: 'server RSS before the hostile bodies (after the health reference)', value: rssBefore ?? 0, unit: 'MB' },
      { name: 'server RSS peak while hostile bodies were sent', value: rss.peakMb, unit: 'MB' },
      { name: 'server RSS 5 s after the last hostile body', value: rssAfter ?? 0, unit: 'MB' },
    ];
    const table = ['| body | answers | params | p50 ms | max ms |', '|---|---|---|---:|---:|'];
    for (const kind of [...new Set(refusals.map((r) => r.kind))]) {
      const mine = refusals.filter((r) => r.kind === kind);
      const ms = mine.map((r) => r.ms).sort((a, b) => a - b);
      table.push(`| ${kind} | ${[...new Set(mine.map((r) => r.status))].join(', ')} × ${mine.length} | ${[...new Set(mine.map((r) => r.param))].join(', ')} | ${Math.round(ms[Math.floor(ms.length / 2)])} | ${Math.round(ms[ms.length - 1])} |`);
      rows.push({ name: `${kind}: p50 (ms)`, value: Math.round(ms[Math.floor(ms.length / 2)]), unit: 'ms' });
    }
    const markdown = [
      '### Hostile bodies next to GET /v1/health (16 connections)',
      '',
      'One client sends the bodies back to back for the whole run (times include sending them over loopback). Goals: 400 with the param in under 100 ms each, health p99 under 50 ms, RSS back under 400 MB.',
      '',
      ...table,
      '',
      `Server RSS: ${rssBefore ?? '?'} MB before the first (after the health reference), peak ${rss.peakMb} MB while they were sent, ${rssAfter ?? '?'} MB five seconds after the last.`,
      '',
    ].join('\n');
    return { http, rows, markdown };
  },
};
