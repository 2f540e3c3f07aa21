/**
 * The real thing, as a separate process: build the project once, start the compiled server on a
 * free loopback port with its own DATA_DIR, and run the compiled admin CLI beside it. Used by the
 * crash and CLI end-to-end tests and by the benchmark runner (bench/run.ts), so it imports nothing
 * from the project itself and finds the checkout root by walking up from this file (it also runs
 * from dist/test/support when the benchmark is compiled).
 */
import { ChildProcess, execFile, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

function findRoot(from: string): string {
  let dir = from;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && fs.existsSync(path.join(dir, 'tsconfig.build.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no checkout root above ${from}`);
    dir = parent;
  }
}

export const ROOT = findRoot(__dirname);
export const SERVER_ENTRY = path.join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js');
export const CLI_ENTRY = path.join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const REGISTER_PATHS = path.join(ROOT, 'scripts', 'register-paths.js');
const CLI_SCRIPT = path.join(ROOT, 'scripts', 'cli.js');

let built = false;

/** scripts/build-if-stale.js: why dist/ is older than its sources, or null when it is not. */
function staleReason(): string | null {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { staleReason: reason } = require(path.join(ROOT, 'scripts', 'build-if-stale.js')) as { staleReason(root: string): string | null };
  return reason(ROOT);
}

/**
 * Compiles apps/ and libs/ into dist/ when a source is newer than the last build, as `npm start`
 * does (scripts/build-if-stale.js: modification times, milliseconds when nothing changed). Every
 * test file runs in a fresh module registry, so a flag here alone would not remember a build; an
 * incremental tsc that finds nothing to do still checks every file (about a minute on two cores),
 * and a dozen suites paid that once each. Type errors in files somebody is still editing do not
 * stop tsc from emitting, so they are tolerated; what counts is that the server and CLI entry
 * points exist afterwards. Two test workers building at once would write the same files, so a
 * lock directory serialises them.
 */
export function ensureBuilt(options: { force?: boolean } = {}): void {
  if (built && !options.force) return;
  const lock = path.join(os.tmpdir(), `dojang-build-${Buffer.from(ROOT).toString('hex').slice(-32)}.lock`);
  const deadline = Date.now() + 6 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock older than the longest build is left over from a killed process.
      const stat = fs.statSync(lock, { throwIfNoEntry: false });
      if (stat && Date.now() - stat.mtimeMs > 5 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${lock}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    // Another test worker may have finished a build while this one waited: then nothing is stale.
    if (options.force || staleReason() !== null) {
      const started = new Date();
      const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
      const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 4 * 60_000,
      });
      if (result.error) throw result.error;
      for (const entry of [SERVER_ENTRY, CLI_ENTRY]) {
        if (!fs.existsSync(entry)) {
          throw new Error(`build did not produce ${path.relative(ROOT, entry)} (tsc exit ${result.status}):\n${result.stdout}${result.stderr}`);
        }
      }
      // The stamp build-if-stale reads, dated when the build started: a source saved during the
      // build makes the next check build again. A build with type errors leaves no stamp.
      if (result.status === 0) {
        const stamp = path.join(ROOT, 'dist', '.build-stamp');
        fs.writeFileSync(stamp, `${started.toISOString()}\n`);
        fs.utimesSync(stamp, started, started);
      }
    }
    built = true;
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** A fresh, empty data directory under the system temp dir. */
export function tempDataDir(prefix = 'dojang-e2e-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A port nobody is listening on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface ProcessOutput {
  stdout: string;
  stderr: string;
}

/** A child process that serves HTTP on loopback. */
export interface RunningProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** What the process printed so far (capped), for failure messages. */
  output(): ProcessOutput;
  /** Resolves with the exit code or signal once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: no shutdown hooks, no flushing; what a power cut or OOM kill does. */
  kill(): Promise<void>;
  /** SIGTERM and wait for a clean exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export interface ServerProcess extends RunningProcess {
  readonly dataDir: string;
}

const OUTPUT_CAP = 64 * 1024;

/**
 * How long a spawned process may take to answer ready: a hang guard, not a speed check. A quiet
 * machine starts the API in 2–4 s; under CI's load (a full run beside other work, load 20+) one
 * took over 30 s, the old limit, and failed a test that had nothing to do with start-up speed.
 */
export const READY_TIMEOUT_MS = 120_000;

/**
 * Spawns `node [nodeArgs] script` with a PORT in its environment and waits until `readyPath`
 * answers 2xx. Fails early, with the child's output, when it exits before that.
 */
export async function spawnHttpProcess(options: {
  script: string;
  env?: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  port?: number;
  readyPath?: string;
  readyTimeoutMs?: number;
}): Promise<RunningProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script], {
    cwd: ROOT,
    // Page images at send (three renders a page of every document sent) are off unless a test
    // turns them on, as in startTestApp: a 1,000-row bulk send otherwise renders them for every
    // row beside the job's own PDFs (docs/OPERATIONS.md, "Page images at send"). One PDF pool
    // thread unless a test asks for more: each thread loads pdfmake and the fonts and renders a
    // warm-up page as the process starts (~0.8 s of CPU), and a test's processes share two cores.
    env: { PAGE_IMAGES_AT_SEND: 'false', PDF_POOL_THREADS: '1', ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  const keep = (key: 'stdout' | 'stderr') => (chunk: Buffer) => {
    out[key] = (out[key] + chunk.toString('utf8')).slice(-OUTPUT_CAP);
  };
  child.stdout!.on('data', keep('stdout'));
  child.stderr!.on('data', keep('stderr'));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  const url = `http://127.0.0.1:${port}`;
  const proc: RunningProcess = {
    child,
    port,
    url,
    output: () => ({ ...out }),
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

  const readyPath = options.readyPath ?? '/';
  const deadline = Date.now() + (options.readyTimeoutMs ?? READY_TIMEOUT_MS);
  for (;;) {
    if (hasExited) {
      const { code, signal } = await exited;
      throw new Error(`${path.relative(ROOT, options.script)} exited (${code ?? signal}) before it was ready:\n${out.stdout}\n${out.stderr}`);
    }
    try {
      const res = await fetch(url + readyPath, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) return proc;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await proc.kill();
      throw new Error(`${path.relative(ROOT, options.script)} not ready on ${url}${readyPath} in time:\n${out.stdout}\n${out.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the compiled API server (`node -r ./scripts/register-paths.js dist/apps/api/src/main.js`)
 * on a free port with DATA_DIR (a new temp dir unless given) and waits for GET /v1/health.
 * Call ensureBuilt() first.
 */
export async function startServer(
  options: { dataDir?: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[]; readyTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  if (!fs.existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing; call ensureBuilt() first`);
  const dataDir = options.dataDir ?? tempDataDir();
  // The port is free when picked but could be taken before the server binds; try a few.
  for (let attempt = 0; ; attempt++) {
    try {
      const proc = await spawnHttpProcess({
        script: SERVER_ENTRY,
        nodeArgs: ['-r', REGISTER_PATHS, ...(options.nodeArgs ?? [])],
        env: { LOG_LEVEL: 'silent', ...options.env, DATA_DIR: dataDir },
        readyPath: '/v1/health',
        readyTimeoutMs: options.readyTimeoutMs,
      });
      return Object.assign(proc, { dataDir });
    } catch (err) {
      if (attempt < 2 && /EADDRINUSE/.test(String((err as Error).message))) continue;
      throw err;
    }
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON; throws with the output when it isn't. */
  json<T = any>(): T;
}

/** Runs `node scripts/cli.js ...args` with DATA_DIR, as an operator would next to the server. */
export function runCli(args: string[], options: { dataDir: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLI_SCRIPT, ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...options.env, DATA_DIR: options.dataDir },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err && typeof (err as { code?: unknown }).code !== 'number') {
          reject(new Error(`cli ${args.join(' ')} failed to run: ${err.message}\n${stderr}`));
          return;
        }
        const code = err ? ((err as { code?: number }).code as number) : 0;
        resolve({
          code,
          stdout,
          stderr,
          json() {
            try {
              return JSON.parse(stdout);
            } catch {
              throw new Error(`cli ${args.join(' ')} (exit ${code}) did not print JSON:\n${stdout}\n${stderr}`);
            }
          },
        });
      },
    );
  });
}

/** A small JSON-over-HTTP client for a spawned server. */
export function apiClient(baseUrl: string, key: string) {
  return async function call<T = any>(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(baseUrl + pathname, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON; keep the text.
    }
    return { status: res.status, body: parsed as T };
  };
}

export type ApiCall = ReturnType<typeof apiClient>;
