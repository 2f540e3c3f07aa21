/**
 * Jobs for the pool's own tests (pdf-pool.spec.ts): they misbehave on purpose, without loading
 * any PDF library, so the limits are tested on their own. Selected by `input.kind`.
 */
export default async function poolTestJob(input: { kind: 'echo' | 'spin' | 'greedy'; value?: number } | null): Promise<number | string> {
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
  return input.value ?? 'ready';
}
