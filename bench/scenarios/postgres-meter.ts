import * as fs from 'fs';
import { Client } from 'pg';

/** CPU seconds (user + system) a process has used so far, from /proc; null when it is gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export interface PostgresUsage {
  /** CPU seconds of the database's server backends over the window (all connections to it). */
  backendCpuSec: number;
  /** Backends seen during the window. */
  backends: number;
  /** Transactions committed in the database (read-only statements outside a transaction count too). */
  commits: number;
  rollbacks: number;
  /** WAL written by the whole server over the window (other databases' too). */
  walBytes: number;
}

/**
 * What one database costs the PostgreSQL server while a benchmark runs: the CPU of its backends
 * (the server runs on the benchmark's machine, so this is read from /proc, polled so that
 * backends that start during the window are counted from zero) and its commit counters. The
 * server's shared helpers (WAL writer, checkpointer) serve every database and are left out.
 * Needs the server on this machine and read access to its processes' /proc entries; where
 * that is missing the CPU figure is 0 and `backends` says so.
 */
export class PostgresMeter {
  private readonly admin: Client;
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> = Promise.resolve();
  private counters0: { commits: number; rollbacks: number; wal: bigint } | null = null;

  constructor(
    serverUrl: string,
    private readonly database: string,
    private readonly pollMs = 200,
  ) {
    this.admin = new Client({ connectionString: serverUrl, application_name: 'dojang-bench-meter' });
    // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
    this.admin.on('error', () => undefined);
  }

  async open(): Promise<void> {
    await this.admin.connect();
  }

  private async counters(): Promise<{ commits: number; rollbacks: number; wal: bigint }> {
    // The statistics of a backend reach pg_stat_database when it reports them (at most every
    // second while busy): a snapshot cleared first, and the caller waits a little before the end.
    await this.admin.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await this.admin.query<{ c: string; r: string; wal: string }>(
      `SELECT xact_commit::text AS c, xact_rollback::text AS r, pg_current_wal_lsn() - '0/0'::pg_lsn AS wal FROM pg_stat_database WHERE datname = $1`,
      [this.database],
    );
    return { commits: Number(rows[0].c), rollbacks: Number(rows[0].r), wal: BigInt(String(rows[0].wal).split('.')[0]) };
  }

  private async poll(initial: boolean): Promise<void> {
    const { rows } = await this.admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [this.database]);
    for (const { pid } of rows) {
      const cpu = cpuSeconds(pid);
      if (cpu === null) continue;
      // A backend first seen after the start began during the window: all its CPU counts.
      if (!this.first.has(pid)) this.first.set(pid, initial ? cpu : 0);
      this.last.set(pid, cpu);
    }
  }

  async start(): Promise<void> {
    this.first.clear();
    this.last.clear();
    this.counters0 = await this.counters();
    await this.poll(true);
    this.timer = setInterval(() => {
      this.polling = this.polling.then(() => this.poll(false)).catch(() => undefined);
    }, this.pollMs);
  }

  async stop(): Promise<PostgresUsage> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling;
    await this.poll(false);
    let cpu = 0;
    for (const [pid, last] of this.last) cpu += last - (this.first.get(pid) ?? last);
    // Let the last second's statistics arrive.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const c1 = await this.counters();
    const c0 = this.counters0 ?? c1;
    return { backendCpuSec: cpu, backends: this.last.size, commits: c1.commits - c0.commits, rollbacks: c1.rollbacks - c0.rollbacks, walBytes: Number(c1.wal - c0.wal) };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.admin.end().catch(() => undefined);
  }
}
