import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import { PdfJob } from './pdf-jobs';
import { isPdfLimitError, PdfLimitError } from './pdf-limit.error';
import { PdfPool } from './pdf-pool';

const HANDLER = path.join(__dirname, '..', 'testing', `pool-test.handlers${path.extname(__filename)}`);
const TEST_JOB: PdfJob<{ kind: 'echo' | 'spin' | 'greedy' | 'phased' | 'sleep' | 'burn'; value?: number }, number | string> = { id: 'test.misbehave', version: 1, filename: HANDLER };

async function refusal(promise: Promise<unknown>): Promise<PdfLimitError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isPdfLimitError(err)) throw new Error(`expected a PdfLimitError, got ${String(err)}`);
  return err;
}

describe('PdfPool replacing a worker stopped at its limit', () => {
  const SLOW = path.join(__dirname, '..', 'testing', `slow-start.handler${path.extname(__filename)}`);
  const SLOW_JOB: PdfJob<{ kind: 'echo' | 'spin'; value?: number }, number | string> = { id: 'test.slow-start', version: 1, filename: SLOW };

  it("starts the replacement's libraries before giving it a job, so the next job's time limit measures only that job", async () => {
    // One worker whose handler takes 0.8 s to load; jobs limited to 0.3 s.
    const pool = new PdfPool({ threads: 1, maxHeapMb: 48, timeoutMs: 300, warmUpFile: SLOW });
    try {
      await pool.whenReady();
      expect((await refusal(pool.run(SLOW_JOB, { kind: 'spin' }))).limit).toBe('time');
      // The stopped worker's replacement loads for 0.8 s; a job given to it during that load
      // would be stopped at 0.3 s for a start-up that is not its own.
      expect(await pool.run(SLOW_JOB, { kind: 'echo', value: 5 })).toBe(5);
    } finally {
      await pool.close();
    }
  });
});

describe('PdfPool', () => {
  // Light workers: the pool's warm-up file is the test handler, not the PDF libraries.
  const pool = new PdfPool({ threads: 2, maxHeapMb: 48, timeoutMs: 60_000, warmUpFile: HANDLER });
  afterAll(() => pool.close());

  it('refuses a job past its time limit, naming the limit, and goes on with the next job', async () => {
    const err = await refusal(pool.run(TEST_JOB, { kind: 'spin' }, { timeoutMs: 300 }));
    expect({ code: err.code, limit: err.limit }).toEqual({ code: 'pdf_job_limit_exceeded', limit: 'time' });
    expect(err.message).toContain('time limit of 0.3 s');
    expect(await pool.run(TEST_JOB, { kind: 'echo', value: 7 })).toBe(7);
  });

  const linuxOnly = process.platform === 'linux' ? it : it.skip;
  linuxOnly("counts a job's CPU time, not the clock: a job that waits longer than its limit without computing finishes", async () => {
    // 0.9 s by the clock, almost no CPU, against a 0.3 s limit: by the wall clock it was refused.
    expect(typeof (await pool.run(TEST_JOB, { kind: 'sleep', value: 900 }, { timeoutMs: 300 }))).toBe('number');
  });

  linuxOnly('stops a job that waits past its wall-clock backstop, naming both limits', async () => {
    const err = await refusal(pool.run(TEST_JOB, { kind: 'sleep', value: 5_000 }, { timeoutMs: 300, wallLimitMs: 600 }));
    expect({ code: err.code, limit: err.limit }).toEqual({ code: 'pdf_job_limit_exceeded', limit: 'time' });
    expect(err.message).toContain('did not finish within 0.6 s (its limit is 0.3 s of CPU time)');
    expect(await pool.run(TEST_JOB, { kind: 'echo', value: 4 })).toBe(4);
  });

  linuxOnly('keeps the budget under a CPU hog: a job within its CPU time finishes however long the clock runs; a spinning one is still stopped', async () => {
    // Three busy processes at normal priority on this machine's cores, above the pool's lowered
    // workers (thread-priority.ts): the worker gets a small share, so its wall time stretches.
    const hogs: ChildProcess[] = [1, 2, 3].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    try {
      const wallMs = await pool.run(TEST_JOB, { kind: 'burn', value: 400 }, { timeoutMs: 1_000 });
      expect(typeof wallMs).toBe('number');
      const err = await refusal(pool.run(TEST_JOB, { kind: 'spin' }, { timeoutMs: 300 }));
      expect(err.message).toContain('time limit of 0.3 s of CPU time');
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
    }
  });

  it('refuses a job past its heap limit, naming the limit, and goes on with the next job', async () => {
    const err = await refusal(pool.run(TEST_JOB, { kind: 'greedy' }));
    expect({ code: err.code, limit: err.limit }).toEqual({ code: 'pdf_job_limit_exceeded', limit: 'memory' });
    expect(err.message).toContain('memory limit of 48 MB');
    expect(await pool.run(TEST_JOB, { kind: 'echo', value: 8 })).toBe(8);
  });

  it('keeps the calling thread free while a job spins', async () => {
    const order: string[] = [];
    const job = pool.run(TEST_JOB, { kind: 'spin' }, { timeoutMs: 3_000 }).catch(() => order.push('job stopped'));
    // Timers on this thread still fire while the job runs.
    await new Promise((resolve) => setTimeout(resolve, 50));
    order.push('timer fired');
    await job;
    expect(order).toEqual(['timer fired', 'job stopped']);
  });

  const linux = process.platform === 'linux' ? it : it.skip;
  linux("measures each job's CPU in its worker, and the phases a handler marks, apart from the wall clock", async () => {
    pool.measureCpu = true;
    const before = pool.stats()[TEST_JOB.id];
    await pool.run(TEST_JOB, { kind: 'phased', value: 30 });
    const after = pool.stats()[TEST_JOB.id];
    pool.measureCpu = false;
    const cpu = after.cpu_ms - (before?.cpu_ms ?? 0);
    const first = after.phases.first - (before?.phases.first ?? 0);
    const second = after.phases.second - (before?.phases.second ?? 0);
    // Busy work of 30 ms wall clock each; on a loaded machine a phase gets less CPU than that, never more.
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(40);
    expect(cpu).toBeGreaterThanOrEqual(first + second);
    expect(pool.threadIds().length).toBeGreaterThan(0);
    expect(pool.threadIds()).not.toContain(process.pid);
  });

  it('runs jobs on every thread at once; more wait for a free worker, and the wait does not count against them', async () => {
    const spinning = [pool.run(TEST_JOB, { kind: 'spin' }, { timeoutMs: 1_500 }).catch(() => 'stopped'), pool.run(TEST_JOB, { kind: 'spin' }, { timeoutMs: 1_500 }).catch(() => 'stopped')];
    // Queued behind two spinning jobs for about 1.5 s, with a 1 s limit of its own.
    const queued = pool.run(TEST_JOB, { kind: 'echo', value: 9 }, { timeoutMs: 1_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // (A worker replacing one stopped by an earlier test may still be starting: then two wait.)
    expect(pool.load.waiting).toBeGreaterThanOrEqual(1);
    expect(await Promise.all(spinning)).toEqual(['stopped', 'stopped']);
    expect(await queued).toBe(9);
  });

  it('shares the workers fairly: one tenant never holds them all, and another tenant goes ahead of its queue', async () => {
    const fair = new PdfPool({ threads: 2, maxHeapMb: 48, timeoutMs: 60_000, warmUpFile: HANDLER });
    try {
      // Every worker up before the clock matters.
      await fair.whenReady();
      // Organization B has been active lately.
      await fair.run(TEST_JOB, { kind: 'echo', value: 1 }, { tenant: 'org_b' });
      const t0 = Date.now();
      const startedAt = (p: Promise<number | string>) => p.then((endedAt) => Number(endedAt) - t0);
      // Organization A queues three slow renders, then B asks for one.
      const a = [1, 2, 3].map(() => startedAt(fair.run(TEST_JOB, { kind: 'sleep', value: 600 }, { tenant: 'org_a' })));
      await new Promise((resolve) => setTimeout(resolve, 20));
      // A is at its cap (all workers but one): only one of its jobs runs.
      expect(fair.load).toEqual({ running: 1, waiting: 2 });
      const b = startedAt(fair.run(TEST_JOB, { kind: 'sleep', value: 50 }, { tenant: 'org_b' }));
      // B took the free worker at once instead of waiting behind A's queue (ends ~50 ms in, not 1.2 s).
      expect(await b).toBeLessThan(500);
      const ends = await Promise.all(a);
      // A's three ran one after another: ~0.6, ~1.2, ~1.8 s.
      expect(ends[2]).toBeGreaterThanOrEqual(1_700);
    } finally {
      await fair.close();
    }
  });

  it('lets an organization alone use every worker', async () => {
    const alone = new PdfPool({ threads: 2, maxHeapMb: 48, timeoutMs: 60_000, warmUpFile: HANDLER });
    try {
      await alone.whenReady();
      const both = [1, 2].map(() => alone.run(TEST_JOB, { kind: 'sleep', value: 300 }, { tenant: 'org_a' }));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(alone.load).toEqual({ running: 2, waiting: 0 });
      await Promise.all(both);
    } finally {
      await alone.close();
    }
  });

  it('lets jobs without a tenant (tools, warm-up) use every worker', async () => {
    const open = new PdfPool({ threads: 2, maxHeapMb: 48, timeoutMs: 60_000, warmUpFile: HANDLER });
    try {
      await open.whenReady();
      const both = [open.run(TEST_JOB, { kind: 'sleep', value: 300 }), open.run(TEST_JOB, { kind: 'sleep', value: 300 })];
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(open.load).toEqual({ running: 2, waiting: 0 });
      await Promise.all(both);
    } finally {
      await open.close();
    }
  });
});
