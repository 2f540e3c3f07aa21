import { availableParallelism } from 'os';
import { performance } from 'perf_hooks';
import * as path from 'path';
import { Piscina } from 'piscina';
// Loaded here, on the thread that owns the workers, though no job runs on it: sharp (the page
// images' WebP encoder, render-page.handler.ts) must be loaded by the main thread before worker
// threads use it, or libvips is unloaded when a worker exits and the next worker that loads it
// crashes the process (sharp's documentation; lovell/sharp#2263).
import 'sharp';
import { RUN_JOB_FILE, WARM_UP_FILE, type PdfJob } from './pdf-jobs';
import { isRefusal, PdfLimitError, type PdfJobRefusal } from './pdf-limit.error';
import { CPU_SLOT_BYTES, readCpuSlot, type JobEnvelope, type JobTask, type RunJobWorkerData } from './run-job';
import { taskCpuMs, threadCpuMs } from './thread-cpu';

export interface PdfPoolOptions {
  /** Worker threads; default: the machine's cores. */
  threads?: number;
  /** Heap one worker (so one job: a worker runs one at a time) may use before it is stopped (MB). */
  maxHeapMb?: number;
  /**
   * Default time limit of a job (ms), counted in its worker thread's CPU time from the moment the
   * worker takes it (wall clock where the platform has no thread clock); see jobWallLimitMs for
   * the wall-clock backstop.
   */
  timeoutMs?: number;
  /** Handler file every worker loads first (tests substitute one). */
  warmUpFile?: string;
  /**
   * Jobs of one tenant (an organization) running at once, at most, while another tenant has been
   * active lately; default: all workers but one, so one organization's worst cases always leave a
   * worker to everyone else. Alone, a tenant may use every worker.
   */
  maxJobsPerTenant?: number;
  /** How long a tenant counts as active after its last job was asked for (ms); default 60 s. */
  tenantActiveMs?: number;
}

export interface PdfRunOptions {
  /** This job's time limit (ms of its worker's CPU time), instead of the pool's. */
  timeoutMs?: number;
  /** This job's wall-clock backstop (ms), instead of jobWallLimitMs(timeoutMs). */
  wallLimitMs?: number;
  /** Whose job it is (an organization id): the pool shares its workers fairly between tenants. */
  tenant?: string;
}

interface Waiter {
  tenant: string | undefined;
  start: () => void;
}

export const DEFAULT_PDF_JOB_TIMEOUT_MS = 30_000;

/**
 * The wall-clock backstop of a job whose CPU-time limit is `cpuMs`: four times it, and never less
 * than a minute more. Generous on purpose: a busy machine (other processes, the pool's own lowered
 * priority) stretches a legitimate job's wall time several-fold while its CPU time stays the same;
 * the backstop only catches a job that waits without computing (a hung network call).
 */
export function jobWallLimitMs(cpuMs: number): number {
  return Math.max(cpuMs * 4, cpuMs + 60_000);
}

/** Whether this platform has a per-thread CPU clock (Linux): without one, limits fall back to the wall clock. */
const CPU_CLOCK = threadCpuMs() !== null;
export const DEFAULT_PDF_JOB_MAX_HEAP_MB = 512;

// Under ts-jest and ts-node the handlers are .ts sources, which a worker thread can only load
// through ts-node; compiled, they are plain .js beside this file. A jest run compiles libs/ once
// for its workers (test/support/compiled-pdf-workers.ts) and names the tree here: a worker then
// loads plain JavaScript instead of the TypeScript compiler and every source it needs.
const FROM_SOURCES = path.extname(__filename) === '.ts';
const COMPILED_WORKERS = FROM_SOURCES ? process.env.DOJANG_PDF_WORKERS_COMPILED || null : null;
const SOURCE_ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const EXEC_ARGV = !FROM_SOURCES ? [] : COMPILED_WORKERS ? ['-r', path.join(COMPILED_WORKERS, 'register.js')] : ['-r', 'ts-node/register/transpile-only'];

/** The file a worker loads for a handler: its compiled twin when there is one. */
function workerFile(file: string): string {
  if (!COMPILED_WORKERS || !file.endsWith('.ts')) return file;
  const relative = path.relative(SOURCE_ROOT, file);
  if (relative.startsWith('..') || !relative.startsWith(`libs${path.sep}`)) return file;
  return path.join(COMPILED_WORKERS, relative.replace(/\.ts$/, '.js'));
}

/**
 * Every CPU-heavy PDF and image job (render, inspect, decode, stamp, sign, certificate) runs here,
 * never on the API's event loop. One job per worker at a time, so a worker's heap limit is that
 * job's. A job's time limit counts its worker thread's CPU time, not the wall clock: on a loaded
 * machine a legitimate 20 MB PDF takes several times longer by the clock for the same CPU, and was
 * refused as too slow (a crafted PDF that needs the CPU is still stopped at the same budget). Jobs
 * wait for a free worker before their clock starts: a queue behind someone else's worst case does
 * not count against a job. A job past its time or heap limit has its worker
 * terminated (the pool starts another) and is refused with PdfLimitError; callers run jobs before
 * the command that records their result, so a refusal leaves nothing written.
 */
export class PdfPool {
  readonly threads: number;
  readonly maxHeapMb: number;
  readonly timeoutMs: number;
  /**
   * Whether workers measure each job's CPU time and marked phases (stats(): `cpu_ms`, `phases`).
   * Off by default: it costs a few /proc reads per job, and only benchmarks read it.
   */
  measureCpu = false;
  private readonly piscina: Piscina;
  private startedUp = false;
  /** Workers still loading (the first ones, or replacements of terminated ones): not free yet. */
  private booting: number;
  private running = 0;
  private readonly timings = new Map<string, PdfJobStats>();
  private readonly workerThreads = new Set<number>();
  private readonly waiting: Waiter[] = [];
  readonly maxJobsPerTenant: number;
  private readonly runningByTenant = new Map<string, number>();
  private readonly tenantSeen = new Map<string, number>();
  private readonly tenantActiveMs: number;

  constructor(options: PdfPoolOptions = {}) {
    this.threads = Math.max(1, options.threads ?? availableParallelism());
    this.maxHeapMb = options.maxHeapMb ?? DEFAULT_PDF_JOB_MAX_HEAP_MB;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PDF_JOB_TIMEOUT_MS;
    this.maxJobsPerTenant = Math.max(1, options.maxJobsPerTenant ?? this.threads - 1);
    this.tenantActiveMs = options.tenantActiveMs ?? 60_000;
    const warmUp: JobTask = { file: workerFile(options.warmUpFile ?? WARM_UP_FILE), input: null };
    this.piscina = new Piscina({
      filename: workerFile(RUN_JOB_FILE),
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: 1,
      // Handlers await I/O (a TSA request); Atomics.wait between tasks would stall it.
      atomics: 'disabled',
      execArgv: EXEC_ARGV,
      workerData: { warmUpFile: warmUp.file } satisfies RunJobWorkerData,
      // A young generation of 16 MB, not 64: each worker's garbage between scavenges is resident
      // memory of the API's process; 64 MB held the soak's RSS at ~400 MB, 16 MB at ~330, for the
      // same CPU per document within the noise (docs/BENCHMARKS.md).
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb, maxYoungGenerationSizeMb: Math.min(16, Math.max(8, this.maxHeapMb / 8)) },
    });
    // A job's clock starts when a worker takes it; a worker still loading pdfmake and the fonts
    // would make its first job pay for that, so jobs wait for ready workers.
    this.booting = this.threads;
    this.piscina.on('workerDestroy', () => {
      if (this.startedUp) this.booting++;
    });
    this.piscina.on('workerCreate', () => {
      if (!this.startedUp || this.booting === 0) return;
      this.booting--;
      this.wake();
    });
    // The first workers are ready once their warm-up call returns; a job may start on the first
    // one ready. (Piscina marks them ready before they have loaded anything.)
    let warmed = 0;
    for (let i = 0; i < this.threads; i++) {
      this.piscina.run(warmUp).then(
        () => {
          this.booting--;
          if (++warmed === this.threads) this.startedUp = true;
          this.wake();
        },
        () => {
          // A worker that cannot even load: let jobs through, they will fail with the reason.
          this.booting = 0;
          this.startedUp = true;
          this.wake();
        },
      );
    }
  }

  /** Runs `job` in a worker; its result, or PdfLimitError when it passed a limit or a budget. */
  async run<I, O>(job: PdfJob<I, O>, input: I, options: PdfRunOptions = {}): Promise<Exclude<O, PdfJobRefusal>> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    await this.acquire(options.tenant);
    let outcome: PdfJobOutcome = 'error';
    let started = performance.now();
    try {
      let result: O;
      started = performance.now();
      let envelope: JobEnvelope<O> | null = null;
      try {
        const cpuSlot = CPU_CLOCK ? new SharedArrayBuffer(CPU_SLOT_BYTES) : undefined;
        const task: JobTask = { file: workerFile(job.filename), input, measure: this.measureCpu, cpuSlot };
        const budget = cpuSlot ? cpuBudget(cpuSlot, timeoutMs) : null;
        const wallMs = cpuSlot ? (options.wallLimitMs ?? jobWallLimitMs(timeoutMs)) : timeoutMs;
        const signal = budget ? AbortSignal.any([budget.signal, AbortSignal.timeout(wallMs)]) : AbortSignal.timeout(wallMs);
        try {
          envelope = (await this.piscina.run(task, { signal })) as JobEnvelope<O>;
        } finally {
          budget?.stop();
        }
        result = envelope.output;
      } catch (err) {
        const refused = limitError(err, job, { timeoutMs, wallMs: options.wallLimitMs ?? jobWallLimitMs(timeoutMs), cpuClock: CPU_CLOCK }, this.maxHeapMb);
        if (refused) outcome = 'refused';
        throw refused ?? err;
      } finally {
        const t = this.timings.get(job.id) ?? { jobs: 0, ms: 0, cpu_ms: 0, phases: {} };
        t.jobs++;
        t.ms += performance.now() - started;
        t.cpu_ms += envelope?.cpu_ms ?? 0;
        for (const [phase, ms] of Object.entries(envelope?.phases ?? {})) t.phases[phase] = (t.phases[phase] ?? 0) + ms;
        if (envelope?.thread) this.workerThreads.add(envelope.thread);
        this.timings.set(job.id, t);
      }
      if (isRefusal(result)) {
        outcome = 'refused';
        throw new PdfLimitError('document_budget_exceeded', result.refused.limit, result.refused.message, result.refused.param);
      }
      outcome = 'ok';
      return result as Exclude<O, PdfJobRefusal>;
    } finally {
      this.release(options.tenant);
      const seconds = (performance.now() - started) / 1000;
      for (const listener of jobListeners) listener(job.id, outcome, seconds);
    }
  }

  /** Resolves once every worker has loaded (tests that time jobs against each other). */
  async whenReady(): Promise<void> {
    while (!this.startedUp || this.booting > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Jobs running and waiting (metrics, bench). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Jobs run per job id, their time in a worker and the CPU they took there. */
  stats(): Record<string, PdfJobStats> {
    return Object.fromEntries([...this.timings].map(([id, t]) => [id, { ...t, phases: { ...t.phases } }]));
  }

  /** Linux thread ids of the workers that have run jobs (a bench reads their CPU time). */
  threadIds(): number[] {
    return [...this.workerThreads];
  }

  /**
   * Stops the workers now; jobs still queued or running are rejected. (Piscina's graceful close
   * waits for running jobs, warm-ups included, and on a loaded machine ran past its 30 s limit,
   * which it reports as an 'error' event.)
   */
  async close(): Promise<void> {
    await this.piscina.destroy();
  }

  /**
   * Waits for a free worker. Fair between tenants: while another tenant has been active lately, a
   * tenant at its cap (maxJobsPerTenant) waits even when a worker is free, and of the jobs that
   * may start, the one whose tenant runs the fewest jobs goes first (first come, first served
   * among equals). One organization's queue of slow renders therefore never holds every worker,
   * nor keeps another's job waiting behind it; an organization alone uses them all.
   */
  private async acquire(tenant: string | undefined): Promise<void> {
    if (tenant !== undefined) {
      const now = Date.now();
      this.tenantSeen.set(tenant, now);
      // Forget tenants long gone, so the map stays the size of the active ones.
      if (this.tenantSeen.size > 64) for (const [t, at] of this.tenantSeen) if (now - at > this.tenantActiveMs) this.tenantSeen.delete(t);
    }
    await new Promise<void>((start) => {
      this.waiting.push({ tenant, start });
      this.wake();
    });
  }

  /** Whether a tenant other than `tenant` has asked for a job lately or still runs one. */
  private othersActive(tenant: string): boolean {
    const since = Date.now() - this.tenantActiveMs;
    for (const [other, at] of this.tenantSeen) if (other !== tenant && (at >= since || this.runningByTenant.has(other))) return true;
    return false;
  }

  private release(tenant: string | undefined): void {
    this.running--;
    if (tenant !== undefined) {
      const n = (this.runningByTenant.get(tenant) ?? 1) - 1;
      if (n > 0) this.runningByTenant.set(tenant, n);
      else this.runningByTenant.delete(tenant);
    }
    this.wake();
  }

  private wake(): void {
    while (this.waiting.length > 0 && this.running < this.threads - this.booting) {
      let best = -1;
      let bestLoad = Infinity;
      for (let i = 0; i < this.waiting.length; i++) {
        const tenant = this.waiting[i].tenant;
        const load = tenant === undefined ? 0 : (this.runningByTenant.get(tenant) ?? 0);
        if (tenant !== undefined && load >= this.maxJobsPerTenant && this.othersActive(tenant)) continue;
        if (load < bestLoad) {
          best = i;
          bestLoad = load;
          if (load === 0) break;
        }
      }
      if (best < 0) return; // every waiting tenant is at its cap
      const [next] = this.waiting.splice(best, 1);
      this.running++;
      if (next.tenant !== undefined) this.runningByTenant.set(next.tenant, (this.runningByTenant.get(next.tenant) ?? 0) + 1);
      next.start();
    }
  }
}

/**
 * Watches a running job's CPU time from this thread (the worker cannot: a job stuck in a loop
 * never yields) and aborts it once it passes `limitMs`. Reads one /proc file per running job a
 * poll; the poll is a few times finer than the limit so a 0.3 s budget is not overrun by much.
 */
function cpuBudget(slot: SharedArrayBuffer, limitMs: number): { signal: AbortSignal; stop(): void } {
  const controller = new AbortController();
  const timer = setInterval(
    () => {
      const claimed = readCpuSlot(slot);
      if (!claimed) return;
      const now = taskCpuMs(claimed.thread);
      if (now !== null && now - claimed.startMs > limitMs) {
        clearInterval(timer);
        controller.abort(new CpuBudgetExceeded());
      }
    },
    Math.min(100, Math.max(10, limitMs / 5)),
  );
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

/** The reason the CPU budget gives its abort signal: tells a refusal by CPU time from the backstop's. */
class CpuBudgetExceeded extends Error {}

function limitError(err: unknown, job: { id: string }, { timeoutMs, wallMs, cpuClock }: { timeoutMs: number; wallMs: number; cpuClock: boolean }, maxHeapMb: number): PdfLimitError | null {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown } | undefined;
  if (e?.name === 'AbortError') {
    // Piscina rejects with its own AbortError; the reason given to the signal is its cause.
    const byClock = cpuClock && !(e.cause instanceof CpuBudgetExceeded);
    const message = !cpuClock
      ? `The PDF work (${job.id}) took longer than its time limit of ${timeoutMs / 1000} s and was stopped.`
      : byClock
        ? `The PDF work (${job.id}) did not finish within ${wallMs / 1000} s (its limit is ${timeoutMs / 1000} s of CPU time) and was stopped.`
        : `The PDF work (${job.id}) took longer than its time limit of ${timeoutMs / 1000} s of CPU time and was stopped.`;
    return new PdfLimitError('pdf_job_limit_exceeded', 'time', message);
  }
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap limit/i.test(e?.message ?? '')) {
    return new PdfLimitError('pdf_job_limit_exceeded', 'memory', `The PDF work (${job.id}) needed more than its memory limit of ${maxHeapMb} MB and was stopped.`);
  }
  return null;
}

export interface PdfJobStats {
  jobs: number;
  /** Wall clock in a worker, from hand-over to result (includes waiting for a core on a busy machine). */
  ms: number;
  /** The workers' own CPU time for these jobs, while measureCpu is on (0 where the platform has no per-thread clock). */
  cpu_ms: number;
  /** CPU time of the phases handlers mark (stamp, sign…), summed over the jobs. */
  phases: Record<string, number>;
}

export type PdfJobOutcome = 'ok' | 'refused' | 'error';
export type PdfJobListener = (job: string, outcome: PdfJobOutcome, seconds: number) => void;
const jobListeners = new Set<PdfJobListener>();

/**
 * Told about every job any pool of this process finishes (metrics): its id, whether it succeeded,
 * was refused for a limit or budget, or failed, and its time in a worker. Returns an unsubscribe.
 */
export function onPdfJob(listener: PdfJobListener): () => void {
  jobListeners.add(listener);
  return () => jobListeners.delete(listener);
}

const shared = new Map<string, PdfPool>();

/**
 * The process's pool for these limits, made on first use: the API's uploads, renders and
 * signatures share one set of workers. (A different heap limit needs its own workers.)
 */
export function sharedPdfPool(options: Pick<PdfPoolOptions, 'threads' | 'maxHeapMb'> = {}): PdfPool {
  const threads = options.threads || availableParallelism();
  const maxHeapMb = options.maxHeapMb || DEFAULT_PDF_JOB_MAX_HEAP_MB;
  const key = `${threads}:${maxHeapMb}`;
  let pool = shared.get(key);
  if (!pool) shared.set(key, (pool = new PdfPool({ threads, maxHeapMb })));
  return pool;
}

/** Holders of each shared pool taken with acquireSharedPdfPool. */
const holders = new Map<PdfPool, number>();

/**
 * The shared pool for these limits, held until `release()`: the last holder to release it stops
 * its workers. (Their message ports keep a process alive: an API closed in a test, or a process
 * ending without process.exit, would otherwise never exit.)
 */
export function acquireSharedPdfPool(options: Pick<PdfPoolOptions, 'threads' | 'maxHeapMb'> = {}): { pool: PdfPool; release(): Promise<void> } {
  const pool = sharedPdfPool(options);
  holders.set(pool, (holders.get(pool) ?? 0) + 1);
  let released = false;
  return {
    pool,
    async release() {
      if (released) return;
      released = true;
      const left = (holders.get(pool) ?? 1) - 1;
      if (left > 0) return void holders.set(pool, left);
      holders.delete(pool);
      for (const [key, p] of shared) if (p === pool) shared.delete(key);
      await pool.close();
    },
  };
}

/** Stops every shared pool's workers (tests, shutdown). */
export async function closeSharedPdfPools(): Promise<void> {
  const pools = [...shared.values()];
  shared.clear();
  holders.clear();
  await Promise.all(pools.map((p) => p.close()));
}
