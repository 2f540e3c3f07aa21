/**
 * Jobs for the pool's own tests (pdf-pool.spec.ts): they misbehave on purpose, without loading
 * any PDF library, so the limits are tested on their own. Selected by `input.kind`; `phased` marks
 * two phases of busy work for the job metrics.
 */
import { jobPhase, threadCpuMs } from '../pool/thread-cpu';

export default async function poolTestJob(input: { kind: 'echo' | 'spin' | 'greedy' | 'phased' | 'sleep' | 'burn'; value?: number } | null): Promise<number | string> {
  // null: the pool's warm-up call.
  if (!input) return 'ready';
  if (input.kind === 'spin') {
    // A parser stuck in a loop: never yields to the worker's event loop.
    for (;;) {
      /* spin */
    }
  }
  if (input.kind === 'greedy') {
    // A parser building an object graph without end: only the heap limit stops it.
    const kept: Array<{ n: number; s: string }> = [];
    for (let n = 0; ; n++) kept.push({ n, s: `entry ${n}` });
  }
  if (input.kind === 'sleep') {
    // A slow render, without the CPU: holds its worker for `value` ms.
    await new Promise((resolve) => setTimeout(resolve, input.value ?? 100));
    return Date.now();
  }
  if (input.kind === 'burn') {
    // A legitimate heavy job: `value` ms of this thread's own CPU time, however long that takes by
    // the clock on a busy machine. Returns the wall time it took.
    const started = Date.now();
    const start = threadCpuMs() ?? 0;
    while ((threadCpuMs() ?? Infinity) - start < (input.value ?? 100)) {
      for (let i = 0; i < 100_000; i++) {
        /* work */
      }
    }
    return Date.now() - started;
  }
  if (input.kind === 'phased') {
    // Two marked phases of about `value` ms of CPU each.
    const busy = (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        /* work */
      }
    };
    await jobPhase('first', () => busy(input.value ?? 20));
    await jobPhase('second', () => busy(input.value ?? 20));
  }
  return input.value ?? 'ready';
}
