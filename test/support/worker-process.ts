/**
 * The compiled worker (`dist/apps/worker/src/main.js`) as a process of its own, as `npm run
 * start:worker` runs it beside `ROLE=api` servers. It serves no HTTP, so it is ready when it says
 * so on stdout (it logs at info level here whatever NODE_ENV the test runs with).
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { READY_TIMEOUT_MS, ROOT } from './built-server';

export const WORKER_ENTRY = path.join(ROOT, 'dist', 'apps', 'worker', 'src', 'main.js');
const REGISTER_PATHS = path.join(ROOT, 'scripts', 'register-paths.js');
const OUTPUT_CAP = 64 * 1024;

export interface WorkerProcess {
  readonly child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Whether the process is still running. */
  alive(): boolean;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: no shutdown hooks, leases left to expire. */
  kill(): Promise<void>;
  /** SIGTERM and wait for a clean exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export async function startWorkerProcess(options: { dataDir?: string; env?: NodeJS.ProcessEnv; readyTimeoutMs?: number } = {}): Promise<WorkerProcess> {
  if (!fs.existsSync(WORKER_ENTRY)) throw new Error(`${WORKER_ENTRY} is missing; call ensureBuilt() first`);
  const child = spawn(process.execPath, ['-r', REGISTER_PATHS, WORKER_ENTRY], {
    cwd: ROOT,
    // Page images at send off and one PDF pool thread unless a test asks otherwise (see built-server.ts).
    env: { PAGE_IMAGES_AT_SEND: 'false', PDF_POOL_THREADS: '1', ...process.env, ...options.env, ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}), NODE_ENV: 'production', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  let ready: () => void = () => undefined;
  const readyLine = new Promise<void>((resolve) => (ready = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    out.stdout = (out.stdout + chunk.toString('utf8')).slice(-OUTPUT_CAP);
    if (out.stdout.includes('Dojang worker running')) ready();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    out.stderr = (out.stderr + chunk.toString('utf8')).slice(-OUTPUT_CAP);
  });
  let hasExited = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      hasExited = true;
      resolve({ code, signal });
    });
  });
  const proc: WorkerProcess = {
    child,
    output: () => ({ ...out }),
    alive: () => !hasExited,
    exited,
    async kill() {
      if (!hasExited) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 10_000) {
      if (hasExited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    readyLine.then(() => 'ready' as const),
    exited.then(() => 'exited' as const),
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.readyTimeoutMs ?? READY_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  if (outcome !== 'ready') {
    await proc.kill();
    throw new Error(`the worker ${outcome === 'exited' ? 'exited' : 'was not ready in time'}:\n${out.stdout}\n${out.stderr}`);
  }
  return proc;
}

/**
 * Resolves once `check()` returns a value other than undefined; polls (this is waiting, not a timed
 * assertion). The limit is a hang guard: 120 s by default, as a loaded CI stretches every step.
 */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`never happened within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
