import { Client } from 'pg';

/**
 * Finds the PostgreSQL server for the PostgreSQL suites once per jest run. Workers inherit
 * `DOJANG_TEST_POSTGRES_URL`; when the server does not answer it stays unset and those suites
 * skip with a message saying how to run them.
 */
export default async function postgresGlobalSetup(): Promise<void> {
  const url = process.env.DOJANG_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    process.env.DOJANG_TEST_POSTGRES_URL = url;
  } catch (err) {
    delete process.env.DOJANG_TEST_POSTGRES_URL;
    if (process.env.DOJANG_REQUIRE_POSTGRES === '1') {
      throw new Error(`DOJANG_REQUIRE_POSTGRES=1 but PostgreSQL at ${url} is unreachable: ${(err as Error).message}`);
    }
    console.warn(`\nPostgreSQL at ${url} unreachable (${(err as Error).message}): the PostgreSQL suites will be skipped.\n`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
