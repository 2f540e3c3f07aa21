/**
 * The whole signing lifecycle per document, over HTTP against the real app on the embedded
 * stores: create → participant (sms_pin) → fields → send → view → PIN → verify → sign → completed
 * (which renders the original at send and stamps and PAdES-signs the final PDF at completion),
 * then the audit version of the file (certificate rendered and appended, countersigned).
 * Reported in completed documents per second and CPU per document, split by thread and by job.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/lifecycle.bench.ts
 *
 * LIFECYCLE_CONCURRENCY (16), LIFECYCLE_DURATION_MS (15000); LIFECYCLE_AUDIT=0 leaves out the
 * audit download; LIFECYCLE_PROFILE=0 leaves out the main thread's sampling profile (the split of
 * its CPU into HTTP, store, application and client), LIFECYCLE_PROFILE_OUT=<file> keeps it;
 * LIFECYCLE_THREADS=1 prints every thread's CPU time.
 */
import 'reflect-metadata';
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as os from 'os';
import * as path from 'path';
import { AdminService, DocumentPdfService, loadConfig, openInfrastructure, startWorker } from '@dojang/application';
import { AUDIT_CERTIFICATE, BUILD_FINAL, COUNTERSIGN, encodePngPixels, RENDER_DOCUMENT, taskCpuMs } from '@dojang/pdf';
import { createApp } from '../apps/api/src/create-app';

const CONCURRENCY = Number(process.env.LIFECYCLE_CONCURRENCY ?? 16);
const DURATION_MS = Number(process.env.LIFECYCLE_DURATION_MS ?? 15_000);
const AUDIT = process.env.LIFECYCLE_AUDIT !== '0';
const PROFILE = process.env.LIFECYCLE_PROFILE !== '0';

/** CPU time (ms) of every thread of this process, by Linux thread id (empty elsewhere). */
function threadCpu(): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[] = [];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    const ms = taskCpuMs(Number(tid));
    if (ms !== null) out.set(Number(tid), ms);
  }
  return out;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a main-thread frame's work belongs; null: look at its caller (Node internals, natives). */
function mainThreadPart(url: string): string | null {
  if (/\/libs\/(event-store|read-store|blob-store|projections|postgres)\//.test(url) || /node_modules\/better-sqlite3\//.test(url)) return 'store + projections';
  if (/\/bench\//.test(url) || /node:internal\/deps\/undici/.test(url)) return 'bench client (fetch)';
  if (/node_modules\/(@nestjs|express|body-parser|router|raw-body|finalhandler|send|serve-static|type-is|accepts|qs|content-type|cookie|on-finished|pino|pino-http|nestjs-pino|class-validator|class-transformer|rxjs|path-to-regexp)\//.test(url)) return 'HTTP (Nest, Express, logging)';
  if (/\/(apps|libs)\//.test(url) && !/node_modules/.test(url)) return 'application + domain (commands, events, evidence)';
  if (/node_modules\//.test(url)) return 'other packages';
  return null;
}

/** Main-thread CPU by part, as shares of the profile's busy samples. */
function mainThreadShares(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const parts = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = byId.get(profile.samples[i]);
    if (!leaf || leaf.callFrame.functionName === '(idle)' || leaf.callFrame.functionName === '(program)') continue;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    let part: string | null = leaf.callFrame.functionName === '(garbage collector)' ? 'garbage collection' : null;
    let http = false;
    for (let id: number | undefined = leaf.id; id !== undefined && part === null; id = parent.get(id)) {
      const url = byId.get(id)!.callFrame.url;
      part = mainThreadPart(url);
      if (/^node:(_http|net|internal\/http|internal\/stream|stream|internal\/streams)/.test(url)) http = true;
    }
    part ??= http ? 'HTTP (Nest, Express, logging)' : 'Node internals, timers, other';
    parts.set(part, (parts.get(part) ?? 0) + ms);
    busy += ms;
  }
  for (const [k, v] of parts) parts.set(k, v / Math.max(busy, 1e-9));
  return parts;
}

function post<T = unknown>(session: inspector.Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res as T))));
}

/** A grey 60×20 PNG as a data URL: the drawn signature. */
function signaturePng(): string {
  const pixels = new Uint8Array(60 * 20 * 4).fill(0x40);
  return `data:image/png;base64,${encodePngPixels(60, 20, 4, pixels).toString('base64')}`;
}

export async function runLifecycleBench(): Promise<{ rows: Array<{ name: string; value: number; unit: string }>; markdown: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-bench-lifecycle-'));
  const config = { ...loadConfig({
      DATA_DIR: dataDir,
      // Every request comes from one address: the limits that guard against one client would stop the bench.
      RATE_LIMIT_PER_MINUTE: '100000000',
      SIGNING_RATE_LIMIT_PER_MINUTE: '100000000',
      SIGNING_IP_RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'silent',
    }), logLevel: 'silent' as const };
  const infra = await openInfrastructure(config);
  await infra.runner.start();
  const worker = await startWorker(infra, { tickIntervalMs: 0 });
  const app = await createApp(infra, { notifier: worker.notifier });
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  const admin = new AdminService(infra);
  const { keys } = await admin.createOrganization({ name: '벤치 주식회사' });
  const auth = { Authorization: `Bearer ${keys.test}`, 'Content-Type': 'application/json' };
  const signature = signaturePng();
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = auth) => {
    const res = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const open = { 'Content-Type': 'application/json' };

  async function oneDocument(i: number): Promise<void> {
    const doc = await call('POST', '/v1/documents', { title: `근로계약서 ${i}`, content: '<h1>근로계약서</h1><p>갑과 을은 다음과 같이 근로계약을 체결한다.</p>' });
    const p = await call('POST', `/v1/documents/${doc.id}/participants`, { name: '김철수', phone: '01012345678' });
    await call('PUT', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 60, y: 80, width: 25, height: 8 }] });
    const sent = await call('POST', `/v1/documents/${doc.id}/send`, {});
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    await call('GET', `/v1/signing/${token}`, undefined, open);
    await call('POST', `/v1/signing/${token}/pin`, undefined, open);
    const outbox = await call('GET', `/v1/outbox?participant_id=${p.id}&channel=sms&limit=10`);
    const pin = outbox.data.find((m: any) => m.kind === 'pin')?.pin;
    await call('POST', `/v1/signing/${token}/verify`, { pin }, open);
    const done = await call('POST', `/v1/signing/${token}/sign`, { consent: true, signature }, open);
    if (done.document.status !== 'completed') throw new Error(`document ${doc.id} ended ${done.document.status}`);
    if (AUDIT) {
      // The audit version: certificate rendered and appended, then countersigned (all in the pool).
      const res = await fetch(`${base}/v1/documents/${doc.id}/file?audit=true`, { headers: { Authorization: auth.Authorization } });
      const pdf = Buffer.from(await res.arrayBuffer());
      if (!res.ok || pdf.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error(`GET /file?audit=true → ${res.status}`);
    }
  }

  // Warm-up: font loading in every pool worker, the signing identity, JIT.
  await Promise.all(Array.from({ length: 4 }, (_, i) => oneDocument(-1 - i)));
  const pool = app.get(DocumentPdfService).pool;
  const session = new inspector.Session();
  if (PROFILE) {
    session.connect();
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.setSamplingInterval', { interval: 1000 });
    await post(session, 'Profiler.start');
  }
  const load0 = os.loadavg()[0];
  const jobs0 = pool.stats();
  const threads0 = threadCpu();
  const cpu0 = process.cpuUsage();
  const started = Date.now();
  let completed = 0;
  let failed = 0;
  let n = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() - started < DURATION_MS) {
        const t0 = Date.now();
        try {
          await oneDocument(n++);
          completed++;
          latencies.push(Date.now() - t0);
        } catch (err) {
          failed++;
          if (failed === 1) console.error(err);
        }
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const threads1 = threadCpu();
  const jobs1 = pool.stats();
  const load1 = os.loadavg()[0];
  const profile = PROFILE ? (await post<{ profile: CpuProfile }>(session, 'Profiler.stop')).profile : null;
  if (PROFILE) session.disconnect();
  // LIFECYCLE_PROFILE_OUT=<file.cpuprofile>: the main thread's profile, for bench/cpu-profile.ts.
  if (profile && process.env.LIFECYCLE_PROFILE_OUT) fs.writeFileSync(process.env.LIFECYCLE_PROFILE_OUT, JSON.stringify(profile));
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  await app.close();
  await worker.stop();
  await infra.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const threadMs = (tid: number) => (threads1.get(tid) ?? 0) - (threads0.get(tid) ?? 0);
  if (process.env.LIFECYCLE_THREADS) {
    for (const [tid] of threads1) console.error(`thread ${tid}${tid === process.pid ? ' (main)' : pool.threadIds().includes(tid) ? ' (pool)' : ''}: ${threadMs(tid).toFixed(0)} ms`);
  }
  const docs = Math.max(1, completed);
  const perDoc = (ms: number) => Math.round((ms / docs) * 10) / 10;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const measured = threads1.size > 0;
  const mainMs = measured ? threadMs(process.pid) : 0;
  const workerMs = pool.threadIds().reduce((sum, tid) => sum + threadMs(tid), 0);
  const job = (id: string) => ({ cpu: (jobs1[id]?.cpu_ms ?? 0) - (jobs0[id]?.cpu_ms ?? 0), phase: (name: string) => (jobs1[id]?.phases[name] ?? 0) - (jobs0[id]?.phases[name] ?? 0) });
  const render = job(RENDER_DOCUMENT.id);
  const final = job(BUILD_FINAL.id);
  const certificate = job(AUDIT_CERTIFICATE.id);
  const countersign = job(COUNTERSIGN.id);
  const jobsMs = render.cpu + final.cpu + certificate.cpu + countersign.cpu;
  const shares = profile ? mainThreadShares(profile) : new Map<string, number>();
  const clientMs = mainMs * (shares.get('bench client (fetch)') ?? 0);
  const rows = [
    { name: 'completed documents (full lifecycle)', value: completed, unit: 'documents' },
    { name: 'failed lifecycles', value: failed, unit: 'documents' },
    { name: 'throughput', value: Math.round((completed / seconds) * 10) / 10, unit: 'documents/s' },
    { name: 'load average (1 min) at start / at end', value: `${load0.toFixed(2)} / ${load1.toFixed(2)}`, unit: '' },
    { name: 'lifecycle latency p50', value: pct(0.5), unit: 'ms' },
    { name: 'lifecycle latency p99', value: pct(0.99), unit: 'ms' },
    { name: 'CPU cores busy (all threads)', value: Math.round((cpuMs / 1000 / seconds) * 100) / 100, unit: 'cores' },
    { name: '**CPU per document, all threads** (API + PDF workers + in-process client)', value: perDoc(cpuMs), unit: 'ms' },
    { name: '**CPU per document without the bench client** (the server\'s)', value: perDoc(cpuMs - clientMs), unit: 'ms' },
    ...(measured
      ? [
          { name: 'main thread (API event loop + client)', value: perDoc(mainMs), unit: 'ms' },
          ...[...shares.entries()].sort((a, b) => b[1] - a[1]).map(([part, share]) => ({ name: `　main thread: ${part}`, value: perDoc(mainMs * share), unit: 'ms' })),
          { name: 'PDF pool workers (2 threads)', value: perDoc(workerMs), unit: 'ms' },
          { name: '　render the original (at send)', value: perDoc(render.cpu), unit: 'ms' },
          { name: '　final PDF: parse + stamp the signature', value: perDoc(final.phase('stamp')), unit: 'ms' },
          { name: '　final PDF: write + PAdES sign', value: perDoc(final.phase('sign')), unit: 'ms' },
          ...(AUDIT
            ? [
                { name: '　audit certificate: render', value: perDoc(certificate.phase('render')), unit: 'ms' },
                { name: '　audit certificate: append to the signed PDF', value: perDoc(certificate.phase('append')), unit: 'ms' },
                { name: '　countersign the bundle', value: perDoc(countersign.cpu), unit: 'ms' },
              ]
            : []),
          { name: '　workers outside jobs (messages, structured clone, GC between jobs)', value: perDoc(Math.max(0, workerMs - jobsMs)), unit: 'ms' },
          { name: 'other threads (V8 GC and compiler helpers, libuv pool, profiler)', value: perDoc(Math.max(0, cpuMs - mainMs - workerMs)), unit: 'ms' },
        ]
      : [{ name: 'pool job CPU (render + final + certificate + countersign)', value: perDoc(jobsMs), unit: 'ms' }]),
  ];
  const markdown = [
    `### Full signing lifecycle (${CONCURRENCY} concurrent documents, ${DURATION_MS / 1000} s, embedded stores, test key${AUDIT ? ', with the audit version' : ''})`,
    '',
    'create → participant (sms_pin) → fields → send (renders and stores the original PDF, in the PDF worker pool) → view → PIN (outbox) → verify → sign (stamps and PAdES-signs the final PDF in the pool) → completed' +
      (AUDIT ? ' → GET /file?audit=true (audit certificate rendered, appended and countersigned in the pool)' : '') +
      '. Goal (issue 11): ≥ 50 documents/s on 2 cores, ≤ 30 ms CPU per document across all threads. CPU is per thread (Linux schedstat): ' +
      "the pool's jobs measure their own worker's CPU, the main thread is split by a 1 ms sampling profile of it.",
    '',
    '| measure | value | unit |',
    '|---|---:|---|',
    ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.unit} |`),
    '',
  ].join('\n');
  return { rows: rows.map((r) => ({ ...r, value: typeof r.value === 'number' ? r.value : 0 })).filter((r) => !r.name.startsWith('load average')), markdown };
}

if (require.main === module) {
  runLifecycleBench().then(
    (r) => process.stdout.write(`${r.markdown}\n`),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
