import { workerData } from 'worker_threads';
import { beginJobPhases, endJobPhases, linuxThreadId, threadCpuMs } from './thread-cpu';

/** What a worker hands back for one job: the handler's output and the CPU it took. */
export interface JobEnvelope<O = unknown> {
  output: O;
  /** This worker thread's CPU time for the job (ms); null where the platform has no thread clock. */
  cpu_ms: number | null;
  /** CPU time of the named phases the handler marked with jobPhase (ms). */
  phases: Record<string, number>;
  /** The worker's Linux thread id (null elsewhere): whoever measures the whole process can tell the pool's threads apart. */
  thread: number | null;
}

export interface JobTask {
  /** The handler module; its default export runs the job. */
  file: string;
  input: unknown;
  /** Measure the job's CPU time and phases (a few µs of /proc reads each; off unless asked for). */
  measure?: boolean;
  /**
   * Where this worker tells the pool which thread runs the job and that thread's CPU clock at the
   * start (CPU_SLOT_LAYOUT), so the pool can hold the job to a CPU-time budget from outside: a
   * job stuck in synchronous code cannot check its own clock.
   */
  cpuSlot?: SharedArrayBuffer;
}

/**
 * The layout of JobTask.cpuSlot: the thread id at Int32 index 0 (written last, with Atomics, so a
 * reader that sees it also sees the start), the thread's CPU clock at the start (ms) at Float64
 * index 1.
 */
export const CPU_SLOT_BYTES = 16;

/** Marks this thread as the one running the job, with its CPU clock now (the pool's budget starts here). */
export function claimCpuSlot(slot: SharedArrayBuffer | undefined): void {
  if (!slot) return;
  const tid = linuxThreadId();
  const start = threadCpuMs();
  if (tid === null || start === null) return;
  new Float64Array(slot)[1] = start;
  Atomics.store(new Int32Array(slot), 0, tid);
}

/** The thread and CPU clock a worker wrote with claimCpuSlot, or null before it has. */
export function readCpuSlot(slot: SharedArrayBuffer): { thread: number; startMs: number } | null {
  const thread = Atomics.load(new Int32Array(slot), 0);
  return thread ? { thread, startMs: new Float64Array(slot)[1] } : null;
}

type Handler = (input: unknown) => unknown;
const handlers = new Map<string, Handler>();

function handlerOf(file: string): Handler {
  let handler = handlers.get(file);
  if (!handler) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as { default?: Handler } & Handler;
    handler = typeof mod.default === 'function' ? mod.default : mod;
    handlers.set(file, handler);
  }
  return handler;
}

/**
 * Every pool worker's entry point: runs the job's handler and, when the pool measures CPU, the
 * CPU this thread spent on it and on the phases it marks (wall time in a worker also counts
 * waiting for a core on a busy machine; CPU time does not).
 */
async function runJob(task: JobTask): Promise<JobEnvelope> {
  const handler = handlerOf(task.file);
  claimCpuSlot(task.cpuSlot);
  if (!task.measure) return { output: await handler(task.input), cpu_ms: null, phases: {}, thread: linuxThreadId() };
  beginJobPhases();
  const start = threadCpuMs();
  try {
    const output = await handler(task.input);
    const end = threadCpuMs();
    return { output, cpu_ms: start === null || end === null ? null : end - start, phases: endJobPhases(), thread: linuxThreadId() };
  } finally {
    endJobPhases();
  }
}

/** What the pool hands each worker as it starts. */
export interface RunJobWorkerData {
  /** The pool's warm-up handler: loaded and called once before the worker takes any job. */
  warmUpFile?: string;
}

/**
 * Piscina awaits a module's exported promise before it marks the worker ready, and a pool
 * gives jobs only to ready workers. A worker that replaces one stopped at a time or memory
 * limit therefore loads its libraries and fonts here, before its first job: that job's time
 * limit measures its own work, not the start-up (a small PDF read right after a refused one
 * was itself refused, because its 0.3 s included a cold worker's start).
 */
export default (async (): Promise<typeof runJob> => {
  const warmUpFile = (workerData as RunJobWorkerData | null)?.warmUpFile;
  if (warmUpFile) await handlerOf(warmUpFile)(null);
  return runJob;
})();
