import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';

let available = process.platform === 'linux';

/**
 * CPU time this thread has run, in ms, or null where there is no such clock. Node 20 has only the
 * process's CPU time (all threads); Linux keeps each thread's in /proc/thread-self/schedstat (ns,
 * first field), which tells a pool worker's jobs apart from the API thread and from each other.
 */
export function threadCpuMs(): number | null {
  if (!available) return null;
  const ms = readSchedstat('/proc/thread-self/schedstat');
  if (ms === null) available = false;
  return ms;
}

const scratch = Buffer.alloc(128);

/**
 * The first field of a schedstat file, in ms. Opened, read once and closed: readFileSync stats and
 * re-reads a /proc file (about 5× slower), and a descriptor kept open would outlive a worker the
 * pool terminates.
 */
function readSchedstat(file: string): number | null {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const n = readSync(fd, scratch, 0, scratch.length, 0);
    const ns = Number(scratch.toString('latin1', 0, n).split(' ', 1)[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

let ownThreadId: number | null | undefined;

/** This thread's Linux thread id (so a pool can name its workers' threads), or null. */
export function linuxThreadId(): number | null {
  if (ownThreadId === undefined) {
    try {
      // "<pid>/task/<tid>"
      ownThreadId = available ? Number(readlinkSync('/proc/thread-self').split('/').pop()) : null;
    } catch {
      ownThreadId = null;
    }
  }
  return ownThreadId;
}

/** CPU time (ms) of a thread of this process by its Linux thread id, or null. */
export function taskCpuMs(tid: number): number | null {
  return available ? readSchedstat(`/proc/self/task/${tid}/schedstat`) : null;
}

/** The phases of the job running on this thread (a worker runs one job at a time). */
let phases: Record<string, number> | null = null;

/** Starts collecting the phase times of the job this worker is about to run. */
export function beginJobPhases(): void {
  phases = {};
}

export function endJobPhases(): Record<string, number> {
  const done = phases ?? {};
  phases = null;
  return done;
}

/**
 * Runs one phase of a job (stamp, sign…) and adds its CPU time to the job's phases, so the pool's
 * job metrics can say where a job's time went. Outside a pool job it only runs `fn`.
 */
export async function jobPhase<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const record = phases;
  const start = record ? threadCpuMs() : null;
  try {
    return await fn();
  } finally {
    if (record && start !== null) record[name] = (record[name] ?? 0) + ((threadCpuMs() ?? start) - start);
  }
}
