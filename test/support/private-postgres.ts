/**
 * A PostgreSQL server of the test's own, for faults that stop or restart the server itself. The
 * machine's shared server (127.0.0.1:5432) serves every other suite running at the same time, so
 * it is never restarted; this one is made with the same installed binaries (initdb, pg_ctl) in a
 * temporary directory, on a free port, and removed afterwards. Run as root (CI), the server runs
 * as the `postgres` user, as PostgreSQL requires.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freePort } from './built-server';

/** The installed server binaries (Debian: /usr/lib/postgresql/<major>/bin), newest major first. */
export function postgresBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return null;
  const majors = fs
    .readdirSync(base)
    .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'pg_ctl')) && fs.existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? path.join(base, majors[0], 'bin') : null;
}

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  readonly port: number;
  /** pg_ctl restart -m fast: every connection is cut, the server is back when this returns. */
  restart(): void;
  /** pg_ctl stop -m fast. */
  stop(): void;
  start(): void;
  /** Stops the server (if running) and removes its directory. */
  destroy(): void;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (initdb, pg_ctl)');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-private-pg-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  // initdb and pg_ctl refuse to run as root: run them as the postgres user.
  const run = (tool: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
    try {
      execFileSync(cmd, argv, { stdio: 'pipe', timeout: 120_000 });
    } catch (err) {
      const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`${tool} ${args.join(' ')} failed: ${(err as Error).message}\n${tail}`);
    }
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  // Durability settings off: this server's data is thrown away, and the test times its restarts.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => run('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
  start();
  let running = true;
  return {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    restart() {
      // The log file as at start: without one the new server would write to, and hold open, our pipe.
      run('pg_ctl', ['-D', data, '-l', log, '-m', 'fast', '-w', '-t', '60', 'restart', '-o', options]);
      running = true;
    },
    stop() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    start() {
      start();
      running = true;
    },
    destroy() {
      if (running) {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
        } catch {
          // Already down.
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
