import { randomBytes } from 'crypto';
import { Client } from 'pg';

/**
 * The server the PostgreSQL suites run against, found by jest's global set-up
 * (`test/support/postgres-global-setup.ts`): `DOJANG_TEST_POSTGRES_URL` is set only when the
 * server answered, so a machine without one skips those suites with a message instead of failing.
 */
export function postgresTestServer(): string | undefined {
  return process.env.DOJANG_TEST_POSTGRES_URL || undefined;
}

export const POSTGRES_SKIP_MESSAGE =
  'PostgreSQL unreachable: skipping PostgreSQL suites; start it (pg_ctlcluster … main start) or set DOJANG_TEST_POSTGRES_URL';

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates a throwaway database on the test server and returns its URL. */
export async function createTestDatabase(serverUrl: string, prefix = 'dojang_test'): Promise<string> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, name);
}

/** Drops a database made by createTestDatabase, closing whatever connections are left. */
export async function dropTestDatabase(serverUrl: string, databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: serverUrl });
  // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * For a spec file: a database made in beforeAll and dropped in afterAll. `url()` is valid from
 * beforeAll on. Call at the top of a describe that runs only when postgresTestServer() is set.
 */
export function throwawayPostgresDatabase(serverUrl: string, prefix?: string): { url(): string } {
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase(serverUrl, prefix);
  });
  afterAll(async () => {
    if (databaseUrl) await dropTestDatabase(serverUrl, databaseUrl);
  });
  return {
    url() {
      if (!databaseUrl) throw new Error('the throwaway database is made in beforeAll');
      return databaseUrl;
    },
  };
}
