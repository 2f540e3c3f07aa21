import { readFileSync } from 'fs';
import { getPriority } from 'os';
import { Worker } from 'worker_threads';
import { manyObjectsPdf } from '../testing/fixtures';
import { INSPECT_PDF } from './pdf-jobs';
import { PdfPool } from './pdf-pool';
import { PDF_WORKER_NICENESS } from './thread-priority';

const linux = process.platform === 'linux' ? describe : describe.skip;

/** Runs lowerThreadPriority in a fresh worker thread; what that thread then reports of itself. */
function inWorker(): Promise<{ returned: number | null; seen: number }> {
  const source = `
    require('ts-node/register/transpile-only');
    const { parentPort } = require('worker_threads');
    const { getPriority } = require('os');
    const { lowerThreadPriority } = require(${JSON.stringify(require.resolve('./thread-priority.ts'))});
    const returned = lowerThreadPriority();
    parentPort.postMessage({ returned, seen: getPriority() });
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true });
    worker.once('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

linux('PDF workers run below the API thread', () => {
  it('lowers the worker thread it runs in, and leaves the main thread (the event loop) as it was', async () => {
    const before = getPriority();
    const worker = await inWorker();
    expect(worker.returned).toBe(Math.max(before, PDF_WORKER_NICENESS));
    expect(worker.seen).toBe(Math.max(before, PDF_WORKER_NICENESS));
    // The point of it: setpriority on Linux acts on the calling thread, not the process.
    expect(getPriority()).toBe(before);
  });
});

/** The niceness of one thread of this process, from /proc (field 19 of its stat line). */
function threadNiceness(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

linux('the real pool', () => {
  let pool: PdfPool;
  beforeAll(() => {
    pool = new PdfPool({ threads: 1 });
  });
  afterAll(() => pool.close());

  it('runs its jobs on threads niced below the main thread', async () => {
    await pool.run(INSPECT_PDF, new Uint8Array(manyObjectsPdf(3)));
    const [tid] = pool.threadIds();
    expect(tid).toBeGreaterThan(0);
    expect(threadNiceness(tid)).toBe(Math.max(getPriority(), PDF_WORKER_NICENESS));
    expect(threadNiceness(process.pid)).toBe(getPriority());
  });
});
