/**
 * The whole signing lifecycle per document, over HTTP against the real app on the embedded
 * stores: create → participant (sms_pin) → fields → send → view → PIN → verify → sign → completed
 * (which renders the original at send and stamps and PAdES-signs the final PDF at completion),
 * then the audit version of the file (certificate rendered and appended, countersigned).
 * Reported in completed documents per second and CPU per document, split by thread and by job.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/lifecycle.bench.ts
 *
 * LIFECYCLE_CONCURRENCY (16), LIFECYCLE_WARMUP_MS (10000), LIFECYCLE_DURATION_MS (15000),
 * LIFECYCLE_AUDIT_DURATION_MS (5000);
 * LIFECYCLE_AUDIT=0 leaves out the audit downloads; LIFECYCLE_PROFILE=0 leaves out the main thread's sampling profile (the split of
 * its CPU into HTTP, store, application and client), LIFECYCLE_PROFILE_OUT=<file> keeps it;
 * LIFECYCLE_THREADS=1 prints every thread's CPU time; LIFECYCLE_CALLS=1 (or =where, by caller)
 * counts the store calls per document; with LIFECYCLE_CONCURRENCY=1 each step's main-thread CPU is
 * shown too; PAGE_IMAGES_AT_SEND=false leaves out the page images rendered at send.
 *
 * Work the lifecycles leave to the worker (the page images rendered at send, the certification,
 * messages) is counted in full: the measured window starts with the reactors caught up with the
 * warm-up and ends once they have caught up with its last document, so a reactor that falls behind
 * the sends cannot leave part of its cost outside. LIFECYCLE_DRAIN=0 ends the window with the last
 * lifecycle instead, as the bench did before (what a reactor had not done by then was not counted).
 */
import 'reflect-metadata';
import * as fs from 'fs';
import * as inspector from 'inspector';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { AdminService, DocumentPdfService, loadConfig, openInfrastructure, startWorker } from '@dojang/application';
import { AUDIT_CERTIFICATE, BUILD_FINAL, COUNTERSIGN, encodePngPixels, RENDER_DOCUMENT, taskCpuMs } from '@dojang/pdf';
import { createApp } from '../apps/api/src/create-app';

const CONCURRENCY = Number(process.env.LIFECYCLE_CONCURRENCY ?? 16);
const DURATION_MS = Number(process.env.LIFECYCLE_DURATION_MS ?? 15_000);
const AUDIT = process.env.LIFECYCLE_AUDIT !== '0';
const AUDIT_DURATION_MS = Number(process.env.LIFECYCLE_AUDIT_DURATION_MS ?? 5_000);
const WARMUP_MS = Number(process.env.LIFECYCLE_WARMUP_MS ?? 10_000);
const PROFILE = process.env.LIFECYCLE_PROFILE !== '0';
const DRAIN = process.env.LIFECYCLE_DRAIN !== '0';
/**
 * LIFECYCLE_CONTRACT=form: the form-heavy contract of issue 21 instead of the plain one — two HTML
 * parts (근로계약서 + 개인정보 동의서), 20 mixed fields (text, number, date, checkbox group, radio,
 * dropdown, name, signing_date, signature), the signer filling 13 values at signing.
 */
const FORM = process.env.LIFECYCLE_CONTRACT === 'form';

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

interface BenchRow {
  name: string;
  value: number;
  unit: string;
}

/** One measured stretch: counts, latencies, CPU by thread and by pool job, the main thread's profile. */
interface Phase {
  done: number;
  failed: number;
  seconds: number;
  /** Of `seconds`, the wait after the last lifecycle for the worker's reactors to catch up. */
  drainSeconds: number;
  load: number[];
  p50: number;
  p99: number;
  cpuMs: number;
  measured: boolean;
  mainMs: number;
  workerMs: number;
  v8Ms: number;
  profilerMs: number;
  job: (id: string, phase?: string) => number;
  shares: Map<string, number>;
  profile: CpuProfile | null;
  steps: Map<string, { n: number; ms: number; cpuMs: number }>;
  jobKinds: Map<string, { n: number; cpuMs: number }>;
}

const STORE = 'store + projections';
const CLIENT = 'bench client (fetch)';
const HTTP = 'HTTP (Nest, Express, logging)';
const APPLICATION = 'application + domain (commands, events, evidence)';
const PACKAGES = 'other packages';
const GC = 'garbage collection';
const INTERNALS = 'Node internals, timers, other';
const MAIN_PARTS = [STORE, HTTP, APPLICATION, PACKAGES, INTERNALS, GC, CLIENT];

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

const HTTP_PACKAGES = new RegExp(
  `node_modules/(${['@nestjs', 'express', 'body-parser', 'router', 'raw-body', 'finalhandler', 'send', 'serve-static', 'type-is', 'accepts', 'qs', 'content-type', 'cookie', 'on-finished', 'pino', 'pino-http', 'nestjs-pino', 'class-validator', 'class-transformer', 'rxjs', 'path-to-regexp'].join('|')})/`,
);

/** Where a main-thread frame's work belongs; null: look at its caller (Node internals, natives). */
function mainThreadPart(url: string): string | null {
  if (/\/libs\/(event-store|read-store|blob-store|projections|postgres)\//.test(url) || /node_modules\/better-sqlite3\//.test(url)) return STORE;
  if (/\/bench\//.test(url) || /node:internal\/deps\/undici/.test(url)) return CLIENT;
  if (HTTP_PACKAGES.test(url)) return HTTP;
  if (/\/(apps|libs)\//.test(url) && !/node_modules/.test(url)) return APPLICATION;
  if (/node_modules\//.test(url)) return PACKAGES;
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
    let part: string | null = leaf.callFrame.functionName === '(garbage collector)' ? GC : null;
    let http = false;
    for (let id: number | undefined = leaf.id; id !== undefined && part === null; id = parent.get(id)) {
      const url = byId.get(id)!.callFrame.url;
      part = mainThreadPart(url);
      if (/^node:(_http|net|internal\/http|internal\/stream|stream|internal\/streams)/.test(url)) http = true;
    }
    part ??= http ? HTTP : INTERNALS;
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

export interface LifecycleBenchOptions {
  /** PostgreSQL for all three stores (DATABASE_URL) instead of the embedded ones. */
  databaseUrl?: string;
  /** Called right before and after the measured run (not the warm-up), e.g. to meter the database. */
  window?: { start(): Promise<void>; stop(): Promise<void> };
}

export async function runLifecycleBench(options: LifecycleBenchOptions = {}): Promise<{ rows: Array<{ name: string; value: number; unit: string }>; markdown: string }> {
  // Threads already running now are V8's platform workers (GC and JIT helpers for every isolate);
  // libuv's pool (fs, fsync, crypto) starts on first use, later.
  // Node creates V8's platform threads as it starts, before any script: one idle thread, the four
  // workers of V8's pool (--v8-pool-size) and the delayed-task scheduler, so the six threads after
  // the main one. libuv's pool may already be running too (a module used it while loading), with
  // later thread ids: not V8's.
  const v8Threads = new Set(
    [...threadCpu().keys()]
      .filter((tid) => tid > process.pid)
      .sort((a, b) => a - b)
      .slice(0, 6),
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-bench-lifecycle-'));
  const env = {
    DATA_DIR: dataDir,
    // Every request comes from one address: the limits that guard against one client would stop the bench.
    RATE_LIMIT_PER_MINUTE: '100000000',
    SIGNING_RATE_LIMIT_PER_MINUTE: '100000000',
    SIGNING_IP_RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'silent',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    // PAGE_IMAGES_AT_SEND=false: without the page images rendered at send, to see what they cost.
    ...(process.env.PAGE_IMAGES_AT_SEND ? { PAGE_IMAGES_AT_SEND: process.env.PAGE_IMAGES_AT_SEND } : {}),
  };
  const config = { ...loadConfig(env), logLevel: 'silent' as const };
  const infra = await openInfrastructure(config);
  // LIFECYCLE_CALLS=1: how many times the stores are called per document (by method), to see a
  // step that reads or writes more than it needs.
  const calls = new Map<string, number>();
  let counting = false;
  if (process.env.LIFECYCLE_CALLS) {
    for (const [name, store] of [
      ['events', infra.events],
      ['reads', infra.reads],
      ['blobs', infra.blobs],
    ] as const) {
      const target = store as unknown as Record<string, unknown>;
      const methods = new Set<string>();
      for (let o = Object.getPrototypeOf(store); o && o !== Object.prototype; o = Object.getPrototypeOf(o)) for (const k of Object.getOwnPropertyNames(o)) methods.add(k);
      for (const k of methods) {
        const fn = target[k];
        if (k === 'constructor' || typeof fn !== 'function') continue;
        target[k] = function (this: unknown, ...args: unknown[]) {
          if (counting) {
            // LIFECYCLE_CALLS=where: by caller too (the first frame outside the stores and the bench).
            const where =
              process.env.LIFECYCLE_CALLS === 'where'
                ? ` ← ${(new Error().stack ?? '')
                    .split('\n')
                    .slice(2)
                    .filter((l) => /\/(apps|libs)\//.test(l) && !/\/libs\/(event-store|read-store|blob-store|sqlite)\/|instrumented|cached-blob/.test(l))
                    .slice(0, 2)
                    .map((l) => l.trim().replace(/^at /, '').replace(/\(?\/.*\/(apps|libs)\//, '').replace(/:\d+\)?$/, ''))
                    .join(' ← ')}`
                : '';
            calls.set(`${name}.${k}${where}`, (calls.get(`${name}.${k}${where}`) ?? 0) + 1);
          }
          return (fn as (...a: unknown[]) => unknown).apply(this, args);
        };
      }
    }
  }
  // As the API and worker processes start them (on PostgreSQL: through the projector election).
  await infra.projections.start();
  const worker = await startWorker(infra, { tickIntervalMs: 0 });
  const app = await createApp(infra, { notifier: worker.notifier });
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  const admin = new AdminService(infra);
  const { keys } = await admin.createOrganization({ name: '벤치 주식회사' });
  const auth = { Authorization: `Bearer ${keys.test}`, 'Content-Type': 'application/json' };
  const signature = signaturePng();
  // Wall time per step (all concurrent lifecycles), to show where a lifecycle waits.
  let timing = false;
  const steps = new Map<string, { n: number; ms: number; cpuMs: number }>();
  // With one lifecycle at a time (LIFECYCLE_CONCURRENCY=1) the main thread's CPU while a step is
  // in flight is that step's (plus whatever the in-process worker does meanwhile).
  const mainCpu = () => (CONCURRENCY === 1 ? (taskCpuMs(process.pid) ?? 0) : 0);
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const c0 = mainCpu();
    try {
      return await fn();
    } finally {
      if (timing) {
        const s = steps.get(step) ?? { n: 0, ms: 0, cpuMs: 0 };
        s.n++;
        s.ms += performance.now() - t0;
        s.cpuMs += mainCpu() - c0;
        steps.set(step, s);
      }
    }
  };
  const call = (step: string, method: string, url: string, body?: unknown, headers: Record<string, string> = auth) =>
    timed(step, async () => {
      const res = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as any;
      if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
      return json;
    });
  const open = { 'Content-Type': 'application/json' };

  /** The form-heavy contract's 20 fields (LIFECYCLE_CONTRACT=form) and the 13 values its signer fills. */
  function formFields(participant: string) {
    // Each part is one page, and the API numbers pages across the whole document: part n is page n + 1.
    const f = (type: string, part: number, y: number, over: Record<string, unknown> = {}) => ({ participant_id: participant, type, part, page: part + 1, x: 20, y, width: 40, height: 3, ...over });
    return [
      f('text', 0, 20, { label: '주소' }),
      f('text', 0, 24, { label: '계좌번호', pattern: '\\d{3}-\\d{2}-\\d{6}' }),
      f('text', 0, 28, { label: '비상연락처' }),
      f('number', 0, 32, { label: '월급', min: 0, decimals: 0 }),
      f('date', 0, 36, { label: '근무 시작일' }),
      f('date', 0, 40, { label: '계약일', read_only: true, value: '2027-01-02' }),
      f('dropdown', 0, 44, { label: '부서', options: ['개발팀', '영업팀', '인사팀'] }),
      f('radio', 0, 48, { label: '근무형태', group: 'kind', option: '정규직', width: 3, height: 2 }),
      f('radio', 0, 48, { label: '근무형태', group: 'kind', option: '계약직', x: 30, width: 3, height: 2 }),
      f('name', 0, 52, { label: '성명' }),
      f('signing_date', 0, 56, { label: '서명일' }),
      f('signature', 0, 80, { width: 25, height: 8 }),
      f('checkbox', 1, 20, { label: '필수 동의', width: 3, height: 2 }),
      f('checkbox', 1, 24, { label: '마케팅 SMS', group: 'marketing', max_checked: 3, width: 3, height: 2 }),
      f('checkbox', 1, 28, { label: '마케팅 이메일', group: 'marketing', width: 3, height: 2 }),
      f('checkbox', 1, 32, { label: '마케팅 전화', group: 'marketing', width: 3, height: 2 }),
      f('text', 1, 40, { label: '동의 메모', required: false }),
      f('text', 1, 44, { label: '서명자 확인', max_length: 20 }),
      f('date', 1, 48, { label: '동의일' }),
      f('signature', 1, 80, { width: 25, height: 8 }),
    ];
  }
  const formValues = (placed: Array<{ id: string; type: string; label?: string; option?: string }>) => {
    const by = (label: string, option?: string) => placed.find((x) => x.label === label && (option === undefined || x.option === option))?.id as string;
    return {
      [by('주소')]: '서울특별시 중구 세종대로 110',
      [by('계좌번호')]: '123-45-678901',
      [by('비상연락처')]: '010-9999-8888',
      [by('월급')]: 3200000,
      [by('근무 시작일')]: '2027-01-04',
      [by('부서')]: '개발팀',
      [by('근무형태', '정규직')]: true,
      [by('필수 동의')]: true,
      [by('마케팅 SMS')]: true,
      [by('마케팅 전화')]: true,
      [by('동의 메모')]: '없음',
      [by('서명자 확인')]: '김철수',
      [by('동의일')]: '2027-01-02',
    };
  };

  async function oneDocument(i: number): Promise<string> {
    const doc = await call(
      'POST /documents',
      'POST',
      '/v1/documents',
      FORM
        ? { title: `근로계약서 ${i}`, parts: [{ content: '<h1>근로계약서</h1><p>갑과 을은 다음과 같이 근로계약을 체결한다.</p>' }, { title: '개인정보 수집·이용 동의서', content: '<p>회사는 근로자의 개인정보를 수집·이용합니다.</p>' }] }
        : { title: `근로계약서 ${i}`, content: '<h1>근로계약서</h1><p>갑과 을은 다음과 같이 근로계약을 체결한다.</p>' },
    );
    const p = await call('POST /participants', 'POST', `/v1/documents/${doc.id}/participants`, { name: '김철수', phone: '01012345678' });
    const placed = await call('PUT /fields', 'PUT', `/v1/documents/${doc.id}/fields`, {
      fields: FORM ? formFields(p.id) : [{ participant_id: p.id, type: 'signature', page: 1, x: 60, y: 80, width: 25, height: 8 }],
    });
    const sent = await call('POST /send (render)', 'POST', `/v1/documents/${doc.id}/send`, {});
    const token = String(sent.participants[0].signing_url).split('/sign/')[1];
    await call('GET /signing/{token}', 'GET', `/v1/signing/${token}`, undefined, open);
    await call('POST /signing/{token}/pin', 'POST', `/v1/signing/${token}/pin`, undefined, open);
    const outbox = await call('GET /outbox', 'GET', `/v1/outbox?participant_id=${p.id}&channel=sms&limit=10`);
    const pin = outbox.data.find((m: any) => m.kind === 'pin')?.pin;
    await call('POST /signing/{token}/verify', 'POST', `/v1/signing/${token}/verify`, { pin }, open);
    const done = await call('POST /signing/{token}/sign (final PDF)', 'POST', `/v1/signing/${token}/sign`, { consent: true, signature, ...(FORM ? { values: formValues(placed.data) } : {}) }, open);
    if (done.document.status !== 'completed') throw new Error(`document ${doc.id} ended ${done.document.status}`);
    return String(doc.id);
  }

  /** The audit version of a completed document: certificate rendered, appended and countersigned in the pool. */
  const auditDownload = (id: string) =>
    timed('GET /file?audit=true (certificate, countersign)', async () => {
      const res = await fetch(`${base}/v1/documents/${id}/file?audit=true`, { headers: { Authorization: auth.Authorization } });
      const pdf = Buffer.from(await res.arrayBuffer());
      if (!res.ok || pdf.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error(`GET /file?audit=true → ${res.status}`);
    });

  const pool = app.get(DocumentPdfService).pool;
  pool.measureCpu = true;

  /** Until the projections and the worker's reactors have handled every event appended so far. */
  const drain = async () => {
    await infra.projections.catchUp();
    await worker.runner.catchUp();
  };

  /**
   * Runs `one` from CONCURRENCY loops for `ms` and measures every thread's CPU meanwhile, until
   * the reactors have caught up with what the loops did (unless LIFECYCLE_DRAIN=0).
   */
  // Threads that ran before any profile was taken: whatever appears later and is not a pool worker
  // is V8's sampling profiler (it keeps its thread between profiles).
  let beforeProfiling: Set<number> | null = null;
  async function measure(ms: number, one: (n: number) => Promise<unknown>): Promise<Phase> {
    beforeProfiling ??= new Set(threadCpu().keys());
    const session = new inspector.Session();
    if (PROFILE) {
      session.connect();
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.setSamplingInterval', { interval: 1000 });
      await post(session, 'Profiler.start');
    }
    steps.clear();
    timing = true;
    const load0 = os.loadavg()[0];
    const jobs0 = pool.stats();
    const threads0 = threadCpu();
    const cpu0 = process.cpuUsage();
    const started = Date.now();
    let done = 0;
    let failed = 0;
    let n = 0;
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() - started < ms) {
          const t0 = Date.now();
          try {
            await one(n++);
            done++;
            latencies.push(Date.now() - t0);
          } catch (err) {
            failed++;
            if (failed === 1) console.error(err);
          }
        }
      }),
    );
    const lastLifecycle = Date.now();
    if (DRAIN) await drain();
    const seconds = (Date.now() - started) / 1000;
    const drainSeconds = (Date.now() - lastLifecycle) / 1000;
    timing = false;
    const cpu = process.cpuUsage(cpu0);
    const threads1 = threadCpu();
    const jobs1 = pool.stats();
    const load1 = os.loadavg()[0];
    const profile = PROFILE ? (await post<{ profile: CpuProfile }>(session, 'Profiler.stop')).profile : null;
    if (PROFILE) session.disconnect();
    latencies.sort((a, b) => a - b);
    const threadMs = (tid: number) => (threads1.get(tid) ?? 0) - (threads0.get(tid) ?? 0);
    if (process.env.LIFECYCLE_THREADS) {
      for (const [tid] of threads1) console.error(`thread ${tid}${tid === process.pid ? ' (main)' : pool.threadIds().includes(tid) ? ' (pool)' : v8Threads.has(tid) ? ' (V8)' : ''}: ${threadMs(tid).toFixed(0)} ms`);
    }
    const job = (id: string, phase?: string) => (phase ? (jobs1[id]?.phases[phase] ?? 0) - (jobs0[id]?.phases[phase] ?? 0) : (jobs1[id]?.cpu_ms ?? 0) - (jobs0[id]?.cpu_ms ?? 0));
    // Every job kind that ran, so a job added to a step (a page check, a page image) shows by name.
    const jobKinds = new Map(
      Object.keys(jobs1)
        .map((id) => [id, { n: jobs1[id].jobs - (jobs0[id]?.jobs ?? 0), cpuMs: job(id) }] as const)
        .filter(([, j]) => j.n > 0),
    );
    return {
      done,
      failed,
      seconds,
      drainSeconds,
      load: [load0, load1],
      p50: latencies[Math.floor(0.5 * latencies.length)] ?? 0,
      p99: latencies[Math.min(latencies.length - 1, Math.floor(0.99 * latencies.length))] ?? 0,
      cpuMs: (cpu.user + cpu.system) / 1000,
      measured: threads1.size > 0,
      mainMs: threads1.size > 0 ? threadMs(process.pid) : 0,
      workerMs: pool.threadIds().reduce((sum, tid) => sum + threadMs(tid), 0),
      // V8's sampling profiler runs on a thread of its own, started with the profile: the bench's, not the server's.
      v8Ms: [...v8Threads].reduce((sum, tid) => sum + threadMs(tid), 0),
      profilerMs: [...threads1.keys()].filter((tid) => !beforeProfiling?.has(tid) && !pool.threadIds().includes(tid)).reduce((sum, tid) => sum + threadMs(tid), 0),
      job,
      shares: profile ? mainThreadShares(profile) : new Map<string, number>(),
      profile,
      steps: new Map(steps),
      jobKinds,
    };
  }

  const completedIds: string[] = [];
  // Warm-up: font loading in every pool worker, the signing identity, and the JIT, which keeps
  // compiling (on V8's helper threads) for the first few hundred documents; a server runs warm.
  const warm = await Promise.all(Array.from({ length: 4 }, (_, i) => oneDocument(-1 - i)));
  if (AUDIT) await Promise.all(warm.map(auditDownload));
  await measure(WARMUP_MS, async (i) => {
    const id = await oneDocument(-100 - i);
    if (AUDIT && i % 4 === 0) await auditDownload(id);
  });
  // The warm-up's backlog is not the measured documents' work.
  if (DRAIN) await drain();
  await options.window?.start();
  counting = true;
  const lifecycle = await measure(DURATION_MS, async (i) => completedIds.push(await oneDocument(i)));
  counting = false;
  if (calls.size) for (const [k, n] of [...calls].sort()) console.error(`${k}: ${(n / Math.max(1, lifecycle.done)).toFixed(2)} per document`);
  await options.window?.stop();
  // The audit version of documents completed above, downloaded on their own: the issue's lifecycle
  // ends at completion, the audit version is what an auditor asks for afterwards.
  const audit = AUDIT && completedIds.length ? await measure(AUDIT_DURATION_MS, (i) => auditDownload(completedIds[i % completedIds.length])) : null;
  // LIFECYCLE_PROFILE_OUT=<file.cpuprofile>: the main thread's profile of the lifecycle, for bench/cpu-profile.ts.
  if (lifecycle.profile && process.env.LIFECYCLE_PROFILE_OUT) fs.writeFileSync(process.env.LIFECYCLE_PROFILE_OUT, JSON.stringify(lifecycle.profile));
  await app.close();
  await worker.stop();
  await infra.close();
  fs.rmSync(dataDir, { recursive: true, force: true });

  const round = (n: number) => Math.round(n * 10) / 10;
  const split = (ph: Phase | null): Map<string, number> => {
    const out = new Map<string, number>();
    if (!ph) return out;
    const per = (ms: number) => ms / Math.max(1, ph.done);
    const clientMs = ph.mainMs * (ph.shares.get(CLIENT) ?? 0) + ph.profilerMs;
    const named = [RENDER_DOCUMENT, BUILD_FINAL, AUDIT_CERTIFICATE, COUNTERSIGN].map((j) => j.id);
    const jobsMs = [...ph.jobKinds.values()].reduce((sum, j) => sum + j.cpuMs, 0);
    out.set('**CPU, all threads** (API + PDF workers + in-process client and profiler)', per(ph.cpuMs));
    out.set("**CPU without the bench's client and profiler** (the server's)", per(ph.cpuMs - clientMs));
    if (!ph.measured) {
      out.set('pool job CPU', per(jobsMs));
      return out;
    }
    out.set('main thread (API event loop + client)', per(ph.mainMs));
    for (const part of MAIN_PARTS) out.set(`　main thread: ${part}`, per(ph.mainMs * (ph.shares.get(part) ?? 0)));
    out.set('PDF pool workers', per(ph.workerMs));
    out.set('　render the original (at send)', per(ph.job(RENDER_DOCUMENT.id)));
    out.set('　final PDF: parse + stamp the signature', per(ph.job(BUILD_FINAL.id, 'stamp')));
    out.set('　final PDF: write + PAdES sign', per(ph.job(BUILD_FINAL.id, 'sign')));
    out.set('　audit certificate: render', per(ph.job(AUDIT_CERTIFICATE.id, 'render')));
    out.set('　audit certificate: append to the signed PDF', per(ph.job(AUDIT_CERTIFICATE.id, 'append')));
    out.set('　countersign the bundle', per(ph.job(COUNTERSIGN.id)));
    for (const [id, j] of ph.jobKinds) if (!named.includes(id)) out.set(`　${id} (${round(j.n / Math.max(1, ph.done))} per document)`, per(j.cpuMs));
    out.set('　workers outside jobs (messages, structured clone, GC between jobs)', per(Math.max(0, ph.workerMs - jobsMs)));
    out.set('other threads', per(Math.max(0, ph.cpuMs - ph.mainMs - ph.workerMs - ph.profilerMs)));
    out.set("　V8's helper threads (garbage collection and JIT compilation, for the API and the workers)", per(ph.v8Ms));
    out.set("　libuv's pool and the rest (file I/O and fsync of blobs and the log)", per(Math.max(0, ph.cpuMs - ph.mainMs - ph.workerMs - ph.profilerMs - ph.v8Ms)));
    out.set("the bench's sampling profiler (its own thread)", per(ph.profilerMs));
    return out;
  };
  const a = split(lifecycle);
  const b = split(audit);
  const rate = (ph: Phase) => round(ph.done / ph.seconds);
  const rows: BenchRow[] = [
    { name: 'completed documents', value: lifecycle.done, unit: 'documents' },
    { name: 'failed lifecycles', value: lifecycle.failed, unit: 'documents' },
    { name: 'throughput (lifecycle to completed)', value: rate(lifecycle), unit: 'documents/s' },
    { name: 'lifecycle latency p50', value: lifecycle.p50, unit: 'ms' },
    { name: 'lifecycle latency p99', value: lifecycle.p99, unit: 'ms' },
    { name: 'CPU cores busy (all threads)', value: round(lifecycle.cpuMs / 1000 / lifecycle.seconds), unit: 'cores' },
    ...[...a.entries()].map(([name, ms]) => ({ name: `${name.replace(/\*\*/g, '')} per completed document`, value: round(ms), unit: 'ms' })),
    ...(audit
      ? [
          { name: 'audit downloads (GET /file?audit=true)', value: audit.done, unit: 'downloads' },
          { name: 'failed audit downloads', value: audit.failed, unit: 'downloads' },
          { name: 'throughput (audit downloads)', value: rate(audit), unit: 'downloads/s' },
          ...[...b.entries()].map(([name, ms]) => ({ name: `${name.replace(/\*\*/g, '')} per audit download`, value: round(ms), unit: 'ms' })),
        ]
      : []),
  ];
  const fmt = (n: number | undefined) => (n === undefined ? '' : round(n).toString());
  const markdown = [
    `### Full signing lifecycle${FORM ? ', form-heavy contract (2 parts, 20 mixed fields, 13 values filled at signing)' : ''} (${CONCURRENCY} concurrent documents, ${DURATION_MS / 1000} s${audit ? `, then their audit version for ${AUDIT_DURATION_MS / 1000} s` : ''}; ${options.databaseUrl ? 'PostgreSQL' : 'embedded stores'}, test key)`,
    '',
    'create → participant (sms_pin) → fields → send (renders and stores the original PDF, in the PDF worker pool) → view → PIN (outbox) → verify → sign (stamps and PAdES-signs the final PDF in the pool) → completed' +
      (audit ? '; then, measured on its own, GET /file?audit=true on the completed documents (audit certificate rendered and appended, the bundle countersigned, in the pool). ' : '. ') +
      `After ${WARMUP_MS / 1000} s of warm-up. Goal (issue 11): ≥ 50 documents/s on 2 cores, ≤ 30 ms CPU per document across all threads. CPU is per thread (Linux schedstat): ` +
      (PROFILE ? "the pool's jobs measure their own worker's CPU, the main thread is split by a 1 ms sampling profile of it." : "the pool's jobs measure their own worker's CPU."),
    '',
    `| | lifecycle to completed (per document) | audit version (per download) |`,
    '|---|---:|---:|',
    `| done | ${lifecycle.done} documents (${lifecycle.failed} failed) | ${audit ? `${audit.done} downloads (${audit.failed} failed)` : 'not run'} |`,
    `| throughput | **${rate(lifecycle)} documents/s** | ${audit ? `${rate(audit)} downloads/s` : ''} |`,
    `| latency p50 / p99 | ${lifecycle.p50} / ${lifecycle.p99} ms | ${audit ? `${audit.p50} / ${audit.p99} ms` : ''} |`,
    `| measured window (of it, the worker catching up after the last lifecycle) | ${round(lifecycle.seconds)} s (${DRAIN ? `${round(lifecycle.drainSeconds)} s` : 'not waited for: LIFECYCLE_DRAIN=0'}) | ${audit ? `${round(audit.seconds)} s` : ''} |`,
    `| CPU cores busy | ${round(lifecycle.cpuMs / 1000 / lifecycle.seconds)} | ${audit ? round(audit.cpuMs / 1000 / audit.seconds) : ''} |`,
    `| load average (1 min) at start / end | ${lifecycle.load.map((l) => l.toFixed(2)).join(' / ')} | ${audit ? audit.load.map((l) => l.toFixed(2)).join(' / ') : ''} |`,
    ...[...a.keys()].map((name) => `| ${name}, ms | ${fmt(a.get(name))} | ${fmt(b.get(name))} |`),
    '',
    'Wall time per step (mean; waiting for a core, the pool and fsync included):',
    '',
    CONCURRENCY === 1 ? '| step | mean ms | main thread CPU, mean ms |' : '| step | mean ms |',
    CONCURRENCY === 1 ? '|---|---:|---:|' : '|---|---:|',
    ...[...lifecycle.steps.entries(), ...(audit?.steps.entries() ?? [])].map(
      ([step, t]) => `| ${step} | ${(t.ms / Math.max(1, t.n)).toFixed(1)} |${CONCURRENCY === 1 ? ` ${(t.cpuMs / Math.max(1, t.n)).toFixed(2)} |` : ''}`,
    ),
    '',
  ].join('\n');
  return { rows, markdown };
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
