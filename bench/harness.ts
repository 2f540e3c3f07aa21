/**
 * What every benchmark scenario gets: real server processes on loopback, the admin CLI, an
 * autocannon wrapper that reports the same numbers for every HTTP scenario, and a deadline.
 * Scenarios are modules (bench/scenarios/*.scenario.ts) registered in bench/scenarios/index.ts.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  ensureBuilt,
  ROOT,
  RunningProcess,
  runCli,
  ServerProcess,
  spawnHttpProcess,
  startServer,
  tempDataDir,
} from '../test/support/built-server';

// autocannon ships no types; this is the part of its API the harness uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon: (opts: Record<string, unknown>) => Promise<AutocannonResult> & { stop(): void } = require('autocannon');

interface Histogram {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
  p99_9?: number;
}

export interface AutocannonResult {
  requests: Histogram;
  latency: Histogram;
  throughput: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  statusCodeStats: Record<string, { count: number }>;
}

/** One HTTP load measurement, as it appears in the report. */
export interface HttpResult {
  name: string;
  method: string;
  path: string;
  connections: number;
  durationSec: number;
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** CPU of the server process while measured, in cores (1.0 = one core busy). */
  serverCpuCores: number | null;
  /** Server CPU time per completed request: what one request costs, little affected by other load. */
  serverCpuMsPerRequest: number | null;
  /** CPU of this process (autocannon) while measured, in cores. */
  clientCpuCores: number;
  /** CPU used by everything else on the machine while measured (noise), in cores. */
  otherCpuCores: number | null;
  /** Marks the bare Nest route every other result is compared with. */
  baseline?: boolean;
  goal?: { minReqPerSec?: number; maxP99Ms?: number };
}

/** A plain number for the report (documents/s, deliveries/s, ms …). */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
}

export interface ScenarioReport {
  http?: HttpResult[];
  rows?: BenchRow[];
  /** Extra markdown, e.g. a section produced by a library benchmark. */
  markdown?: string;
  notes?: string[];
}

export interface BenchScenario {
  /** Short id for `--only`. */
  id: string;
  title: string;
  run(ctx: BenchContext): Promise<ScenarioReport>;
}

export interface BenchOptions {
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** Directory for V8 CPU profiles of the Dojang server processes (node --cpu-prof), or null. */
  cpuProfDir: string | null;
  deadline: number;
}

export interface TestOrg {
  id: string;
  test: string;
  live: string;
}

const SERVER_ENV = {
  // The limiter is part of the request path and stays on; only its budget is raised.
  RATE_LIMIT_PER_MINUTE: '100000000',
  LOG_LEVEL: 'silent',
};

/** True when this file runs as TypeScript (ts-node), false when compiled into dist/. */
export const RUNNING_FROM_SOURCE = __filename.endsWith('.ts');

/** CPU seconds (user + system) a process has used so far, from /proc; null where there is no /proc. */
function processCpuSeconds(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 after "pid (comm) ".
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100; // USER_HZ is 100 on every Linux this runs on.
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine (all cores) so far, from /proc/stat; null without /proc. */
function machineBusySeconds(): number | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [, ...values] = line.trim().split(/\s+/);
    const n = values.map(Number);
    // user nice system idle iowait irq softirq steal …: busy is everything but idle and iowait.
    const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
    return (total - n[3] - n[4]) / 100;
  } catch {
    return null;
  }
}

export class BenchContext {
  private readonly processes = new Set<RunningProcess>();
  private readonly dirs = new Set<string>();

  constructor(readonly options: BenchOptions) {}

  get connections(): number {
    return this.options.connections;
  }

  log(message: string): void {
    process.stderr.write(`[bench] ${message}\n`);
  }

  remainingMs(): number {
    return this.options.deadline - Date.now();
  }

  /** Throws when the time budget cannot fit `neededMs` more. */
  ensureTime(neededMs: number, what: string): void {
    if (this.remainingMs() < neededMs) throw new Error(`benchmark time budget exhausted before ${what}`);
  }

  /**
   * A Dojang server process (compiled dist/) on a fresh data directory. With profiling on, its
   * CPU profile is written as `<label>.cpuprofile` when it stops.
   */
  async startDojang(label: string, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
    const dataDir = tempDataDir('dojang-bench-');
    this.dirs.add(dataDir);
    const file = `${label.replace(/[^A-Za-z0-9_.-]+/g, '-')}.cpuprofile`;
    const nodeArgs = this.options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${this.options.cpuProfDir}`, `--cpu-prof-name=${file}`] : [];
    const server = await startServer({ dataDir, env: { ...SERVER_ENV, ...env }, nodeArgs });
    this.processes.add(server);
    return server;
  }

  /** Any other HTTP child process (e.g. the bare Nest baseline). */
  async spawn(script: string, options: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv; readyPath: string }): Promise<RunningProcess> {
    const proc = await spawnHttpProcess({ script, nodeArgs: options.nodeArgs, env: options.env, readyPath: options.readyPath });
    this.processes.add(proc);
    return proc;
  }

  /** Stops a process cleanly (SIGTERM), so a CPU profile, if any, gets written. */
  async stop(proc: RunningProcess): Promise<void> {
    await proc.stop(15_000);
    this.processes.delete(proc);
  }

  async createOrg(dataDir: string, name = 'Bench Co', env: NodeJS.ProcessEnv = {}): Promise<TestOrg> {
    const out = await runCli(['org', 'create', '--name', name], { dataDir, env, timeoutMs: 60_000 });
    if (out.code !== 0) throw new Error(`org create failed: ${out.stderr}`);
    const body = out.json();
    return { id: body.organization.id, test: body.keys.test, live: body.keys.live };
  }

  /**
   * Drives `connections` concurrent connections at one route: a warm-up run (discarded), then a
   * measured run of the configured duration. Latencies are autocannon's (coordinated-omission
   * corrected); req/s is completed requests over the measured duration.
   */
  async measure(spec: {
    name: string;
    target: RunningProcess;
    /** Connections for this run instead of the configured number (a share of a split load). */
    connections?: number;
    method: 'GET' | 'POST';
    path: string;
    headers?: Record<string, string>;
    body?: string;
    baseline?: boolean;
    goal?: HttpResult['goal'];
    /** Called right before and after the measured run (not the warm-up), e.g. to meter a database. */
    window?: { start(): Promise<void>; stop(): Promise<void> };
  }): Promise<HttpResult> {
    const { durationSec, warmupSec } = this.options;
    const connections = spec.connections ?? this.options.connections;
    this.ensureTime((warmupSec + durationSec) * 1000 + 15_000, spec.name);
    const base = {
      url: spec.target.url + spec.path,
      method: spec.method,
      headers: { ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}), ...spec.headers },
      body: spec.body,
      connections,
      timeout: 10,
    };
    if (warmupSec > 0) {
      this.log(`${spec.name}: warm-up ${warmupSec}s`);
      await autocannon({ ...base, duration: warmupSec });
    }
    this.log(`${spec.name}: ${durationSec}s at ${connections} connections`);
    await spec.window?.start();
    const serverCpu0 = processCpuSeconds(spec.target.child.pid);
    const machine0 = machineBusySeconds();
    const clientCpu0 = process.cpuUsage();
    const wall0 = process.hrtime.bigint();
    const r = await autocannon({ ...base, duration: durationSec });
    const wallSec = Number(process.hrtime.bigint() - wall0) / 1e9;
    const serverCpu1 = processCpuSeconds(spec.target.child.pid);
    const machine1 = machineBusySeconds();
    const client = process.cpuUsage(clientCpu0);
    await spec.window?.stop();
    const statusCodes: Record<string, number> = {};
    for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = Number(s.count);
    const result: HttpResult = {
      name: spec.name,
      method: spec.method,
      path: spec.path,
      connections,
      durationSec: r.duration,
      requests: r.requests.total,
      reqPerSec: r.requests.total / r.duration,
      p50Ms: r.latency.p50,
      p90Ms: r.latency.p90,
      p99Ms: r.latency.p99,
      maxMs: r.latency.max,
      errors: r.errors,
      non2xx: r.non2xx,
      statusCodes,
      serverCpuCores: serverCpu0 !== null && serverCpu1 !== null ? (serverCpu1 - serverCpu0) / wallSec : null,
      serverCpuMsPerRequest: serverCpu0 !== null && serverCpu1 !== null && r.requests.total > 0 ? ((serverCpu1 - serverCpu0) * 1000) / r.requests.total : null,
      clientCpuCores: (client.user + client.system) / 1e6 / wallSec,
      otherCpuCores: null,
      baseline: spec.baseline,
      goal: spec.goal,
    };
    if (machine0 !== null && machine1 !== null && result.serverCpuCores !== null) {
      result.otherCpuCores = Math.max(0, (machine1 - machine0) / wallSec - result.serverCpuCores - result.clientCpuCores);
    }
    this.log(
      `${spec.name}: ${result.reqPerSec.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ` +
        `errors ${result.errors}, non-2xx ${result.non2xx}, server CPU ${result.serverCpuCores?.toFixed(2) ?? '?'} cores = ${result.serverCpuMsPerRequest?.toFixed(2) ?? '?'} ms/req, others ${result.otherCpuCores?.toFixed(2) ?? '?'} cores`,
    );
    return result;
  }

  /**
   * The same route on several servers at once (e.g. two API processes on one database), the
   * configured connections split evenly between them. Requests and CPU add up; latency
   * percentiles of separate runs cannot be merged exactly, so p50 is their mean and p90/p99/max
   * the worst of them (an upper bound).
   */
  async measureSpread(spec: Omit<Parameters<BenchContext['measure']>[0], 'target' | 'connections'> & { targets: RunningProcess[] }): Promise<HttpResult> {
    const share = Math.max(1, Math.floor(this.options.connections / spec.targets.length));
    // The window opens when the first part's measured run starts and closes after the last one's.
    let open = 0;
    let started: Promise<void> | null = null;
    const window = spec.window && {
      start: () => {
        open++;
        return (started ??= spec.window!.start());
      },
      stop: async () => {
        if (--open === 0) await spec.window!.stop();
      },
    };
    const parts = await Promise.all(
      spec.targets.map((target, i) =>
        this.measure({ ...spec, name: `${spec.name} [${i + 1}/${spec.targets.length}]`, target, connections: share, goal: undefined, window }),
      ),
    );
    const sum = (f: (r: HttpResult) => number) => parts.reduce((a, r) => a + f(r), 0);
    const max = (f: (r: HttpResult) => number) => Math.max(...parts.map(f));
    const statusCodes: Record<string, number> = {};
    for (const r of parts) for (const [k, v] of Object.entries(r.statusCodes)) statusCodes[k] = (statusCodes[k] ?? 0) + v;
    const cpu = parts.every((r) => r.serverCpuCores !== null) ? sum((r) => r.serverCpuCores ?? 0) : null;
    const requests = sum((r) => r.requests);
    const result: HttpResult = {
      name: spec.name,
      method: spec.method,
      path: spec.path,
      connections: share * parts.length,
      durationSec: max((r) => r.durationSec),
      requests,
      reqPerSec: sum((r) => r.reqPerSec),
      p50Ms: Math.round(sum((r) => r.p50Ms) / parts.length),
      p90Ms: max((r) => r.p90Ms),
      p99Ms: max((r) => r.p99Ms),
      maxMs: max((r) => r.maxMs),
      errors: sum((r) => r.errors),
      non2xx: sum((r) => r.non2xx),
      statusCodes,
      serverCpuCores: cpu,
      serverCpuMsPerRequest: cpu !== null && requests > 0 ? (cpu * max((r) => r.durationSec) * 1000) / requests : null,
      // Both client runs share this process: its CPU was measured over the same interval twice.
      clientCpuCores: max((r) => r.clientCpuCores),
      otherCpuCores: null,
      baseline: spec.baseline,
      goal: spec.goal,
    };
    this.log(`${spec.name}: ${result.reqPerSec.toFixed(0)} req/s over ${parts.length} servers, p99 ≤ ${result.p99Ms} ms`);
    return result;
  }

  /** Sends `amount` requests as fast as `connections` allow, and fails unless all were 2xx. */
  async fire(spec: { target: RunningProcess; method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string; amount: number }) {
    this.ensureTime(60_000, `seeding ${spec.path}`);
    const r = await autocannon({
      url: spec.target.url + spec.path,
      method: spec.method,
      headers: { ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}), ...spec.headers },
      body: spec.body,
      connections: Math.min(16, spec.amount),
      amount: spec.amount,
      timeout: 10,
    });
    if (r.errors || r.non2xx || r.requests.total < spec.amount) {
      throw new Error(`seeding ${spec.method} ${spec.path}: ${r.requests.total} sent, ${r.errors} errors, ${r.non2xx} non-2xx`);
    }
  }

  /** Stops every process still running and removes the data directories. */
  async cleanup(): Promise<void> {
    await Promise.all([...this.processes].map((p) => p.stop(15_000).catch(() => p.kill())));
    this.processes.clear();
    for (const dir of this.dirs) fs.rmSync(dir, { recursive: true, force: true });
    this.dirs.clear();
  }

  /** Synchronous last resort (process exit): SIGKILL whatever is left. */
  killAllSync(): void {
    for (const p of this.processes) {
      try {
        p.child.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}

export function machineDescription(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${cpus.length} cores (${model}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

export { ensureBuilt, ROOT, path };
