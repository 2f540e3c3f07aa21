import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig, openInfrastructure } from '@dojang/application';
import { startTestApp } from '../support/test-app';

/**
 * Every store configuration a process can be started with, opened the way the processes open it
 * (`openInfrastructure(loadConfig(env))`): the embedded default serves a request; a production
 * configuration whose servers do not answer fails at once with a message naming the store and its
 * variable (never a TypeError, never a hang until the first request); half a configuration is
 * refused. The compiled processes are booted the same way in boot-processes.e2e-spec.ts.
 */

/** Loopback port 1: nothing listens there, so a connection is refused at once. */
const UNREACHABLE = {
  EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false',
  MONGO_URL: 'mongodb://127.0.0.1:1/dojang?serverSelectionTimeoutMS=500',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:1/dojang',
};

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-boot-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { NODE_ENV: 'test', DATA_DIR: dataDir, STORE_CONNECT_TIMEOUT_MS: '500', ...extra };
}

/** What opening the infrastructure threw: an Error, never a TypeError. */
async function bootFailure(extra: NodeJS.ProcessEnv): Promise<Error> {
  let infra: Awaited<ReturnType<typeof openInfrastructure>> | undefined;
  try {
    infra = await openInfrastructure(loadConfig(env(extra)));
  } catch (err) {
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(TypeError);
    return err as Error;
  }
  await infra.close();
  throw new Error(`booted with ${JSON.stringify(extra)}`);
}

describe('boot wiring: every store configuration', () => {
  it('no store URL: the embedded SQLite stores open and serve a request', async () => {
    const t = await startTestApp({ worker: false });
    try {
      expect(t.infra.storeKind).toBe('sqlite');
      const org = await t.createOrg();
      const health = await t.http.get('/v1/health');
      expect(health.status).toBe(200);
      const list = await t.http.get('/v1/documents').set('Authorization', `Bearer ${org.test}`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ object: 'list', data: [] });
    } finally {
      await t.close();
    }
  });

  it('EVENTSTORE_URL + MONGO_URL with neither server answering: refused, naming both stores', async () => {
    const err = await bootFailure({ EVENTSTORE_URL: UNREACHABLE.EVENTSTORE_URL, MONGO_URL: UNREACHABLE.MONGO_URL });
    expect(err.message).toMatch(/EventStoreDB \(EVENTSTORE_URL\) is unreachable: .*UNAVAILABLE/);
    expect(err.message).toMatch(/MongoDB \(MONGO_URL\) is unreachable: .*ECONNREFUSED/);
  });

  it.each([
    ['MONGO_URL alone', { MONGO_URL: UNREACHABLE.MONGO_URL }],
    ['EVENTSTORE_URL alone', { EVENTSTORE_URL: UNREACHABLE.EVENTSTORE_URL }],
  ])('%s: refused before connecting, saying the two go together', async (_name, extra) => {
    const err = await bootFailure(extra);
    expect(err.message).toMatch(/EVENTSTORE_URL and MONGO_URL go together/);
  });

  it('DATABASE_URL beside the EventStoreDB URLs: refused, not mixed', async () => {
    const err = await bootFailure({ ...UNREACHABLE });
    expect(err.message).toMatch(/DATABASE_URL selects PostgreSQL for every store/);
  });

  it('DATABASE_URL with no server answering: refused, naming PostgreSQL and DATABASE_URL', async () => {
    const err = await bootFailure({ DATABASE_URL: UNREACHABLE.DATABASE_URL });
    expect(err.message).toMatch(/PostgreSQL/);
    expect(err.message).toMatch(/DATABASE_URL/);
    // The server's refusal, not a placeholder: the store was really asked.
    expect(err.message).toMatch(/unreachable|ECONNREFUSED/);
  });
});
