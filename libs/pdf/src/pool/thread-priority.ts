import { getPriority, setPriority } from 'os';

/** The niceness PDF workers run at: below the API's event loop, above idle. */
export const PDF_WORKER_NICENESS = 10;

/**
 * Lowers the calling thread's scheduling priority. On Linux, setpriority(PRIO_PROCESS, 0) acts on
 * the calling thread only (each thread is its own task), so a pool worker can step back without
 * touching the API's event loop: when both want the 2 cores, the loop runs first and a health
 * check does not queue behind someone's 20-page render. Elsewhere it may act on the whole process,
 * so it is applied only on Linux. Returns the niceness now in effect (null when left unchanged).
 */
export function lowerThreadPriority(niceness = PDF_WORKER_NICENESS): number | null {
  if (process.platform !== 'linux') return null;
  try {
    if (getPriority() < niceness) setPriority(niceness);
    return getPriority();
  } catch {
    // A container may refuse priority changes; the worker then simply runs at the loop's priority.
    return null;
  }
}
