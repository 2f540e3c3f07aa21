import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { ROOT, ensureBuilt, runCli, startServer, tempDataDir } from '../support/built-server';

/**
 * The compiled processes (api, worker, CLI) booted with each store configuration, as an operator
 * or docker compose starts them: the embedded default serves; a production configuration whose
 * servers do not answer exits non-zero at once with a message naming the store; half a
 * configuration is refused. boot-wiring.e2e-spec.ts covers the same in process.
 */

const WORKER_ENTRY = path.join(ROOT, 'dist', 'apps', 'worker', 'src', 'main.js');
const REGISTER_PATHS = path.join(ROOT, 'scripts', 'register-paths.js');

const ESDB_MONGO_DOWN = {
  EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false',
  MONGO_URL: 'mongodb://127.0.0.1:1/dojang?serverSelectionTimeoutMS=500',
  STORE_CONNECT_TIMEOUT_MS: '500',
};
const POSTGRES_DOWN = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/dojang', STORE_CONNECT_TIMEOUT_MS: '500' };

/** Runs the compiled worker until it exits by itself (it should, with these configurations). */
function runWorker(env: NodeJS.ProcessEnv, dataDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER_PATHS, WORKER_ENTRY], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env, DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    // A hang guard (a boot that never ends), not a speed check: a loaded CI stretches start-up.
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** What the compiled API printed when it exited before it was ready. */
async function apiBootFailure(env: NodeJS.ProcessEnv, dataDir: string): Promise<string> {
  try {
    const server = await startServer({ dataDir, env });
    await server.stop();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the API started');
}

describe('boot wiring: the compiled processes', () => {
  let dataDir: string;
  beforeAll(() => ensureBuilt(), 6 * 60_000);
  beforeEach(() => {
    dataDir = tempDataDir('dojang-boot-');
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('no store URL: the API serves and the CLI writes beside it', async () => {
    const server = await startServer({ dataDir });
    try {
      const health = await fetch(`${server.url}/v1/health`);
      expect(health.status).toBe(200);
      const created = await runCli(['org', 'create', '--name', 'Boot'], { dataDir });
      expect(created.code).toBe(0);
      expect(created.json().keys.test).toMatch(/^sk_test_/);
    } finally {
      await server.stop();
    }
  });

  describe('EVENTSTORE_URL + MONGO_URL with neither server answering', () => {
    it('the API exits non-zero naming both stores', async () => {
      const message = await apiBootFailure(ESDB_MONGO_DOWN, dataDir);
      expect(message).toMatch(/exited \(1\) before it was ready/);
      expect(message).toMatch(/EventStoreDB \(EVENTSTORE_URL\) is unreachable/);
      expect(message).toMatch(/MongoDB \(MONGO_URL\) is unreachable/);
      expect(message).not.toMatch(/TypeError/);
    });

    it('the worker exits non-zero naming both stores', async () => {
      const { code, output } = await runWorker(ESDB_MONGO_DOWN, dataDir);
      expect(code).toBe(1);
      expect(output).toMatch(/EventStoreDB \(EVENTSTORE_URL\) is unreachable/);
      expect(output).toMatch(/MongoDB \(MONGO_URL\) is unreachable/);
    });

    it('the CLI exits non-zero naming both stores', async () => {
      const result = await runCli(['org', 'create', '--name', 'Boot'], { dataDir, env: ESDB_MONGO_DOWN });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/EventStoreDB \(EVENTSTORE_URL\) is unreachable/);
      expect(result.stderr).toMatch(/MongoDB \(MONGO_URL\) is unreachable/);
    });
  });

  it('MONGO_URL alone: the CLI is refused, saying the two go together', async () => {
    const result = await runCli(['org', 'create', '--name', 'Boot'], { dataDir, env: { MONGO_URL: ESDB_MONGO_DOWN.MONGO_URL } });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/EVENTSTORE_URL and MONGO_URL go together/);
  });

  it('VERIFY_TRUST_ANCHORS naming a file that is not there: the API exits non-zero naming the variable and the file', async () => {
    const message = await apiBootFailure({ VERIFY_TRUST_ANCHORS: path.join(dataDir, 'anchors.pem') }, dataDir);
    expect(message).toMatch(/exited \(1\) before it was ready/);
    expect(message).toMatch(/VERIFY_TRUST_ANCHORS=.*anchors\.pem: cannot read the file \(ENOENT/);
  });

  it('DATABASE_URL with no server answering: the API exits non-zero naming PostgreSQL', async () => {
    const message = await apiBootFailure(POSTGRES_DOWN, dataDir);
    expect(message).toMatch(/exited \(1\) before it was ready/);
    expect(message).toMatch(/PostgreSQL/);
    expect(message).toMatch(/DATABASE_URL/);
    expect(message).toMatch(/unreachable|ECONNREFUSED/);
  });
});
