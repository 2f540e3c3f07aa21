import { POSTGRES_SKIP_MESSAGE, createTestDatabase, dropTestDatabase, postgresTestServer } from '@dojang/postgres/testing/postgres-test-database';
import { appFixture, startTestApp, TestApp } from './test-app';

/** The PostgreSQL server the PostgreSQL runs use (DOJANG_TEST_POSTGRES_URL), if any. */
const server = postgresTestServer();
if (!server) console.warn(POSTGRES_SKIP_MESSAGE);

export type TestStore = 'SQLite' | 'PostgreSQL';

/**
 * `body` twice, as `<title> on SQLite` and `<title> on PostgreSQL`: the same tests on the embedded
 * stores and on PostgreSQL (DATABASE_URL for all three ports). Without a server the PostgreSQL run
 * is skipped and says why (CI sets DOJANG_REQUIRE_POSTGRES, so it never passes by skipping).
 */
export function describeOnEachStore(title: string, body: (store: TestStore) => void): void {
  describe.each(['SQLite', 'PostgreSQL'] as const)(`${title} on %s`, (store) => {
    (store === 'PostgreSQL' && !server ? describe.skip : describe)('', () => body(store));
  });
}

/** startTestApp on `store`; on PostgreSQL in a throwaway database of its own, which close() drops. */
export async function startTestAppOn(store: TestStore, options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  if (store === 'SQLite') {
    const app = await startTestApp(options);
    expect(app.infra.storeKind).toBe('sqlite');
    return app;
  }
  const databaseUrl = await createTestDatabase(server!);
  let app: TestApp;
  try {
    app = await startTestApp({ ...options, config: { ...(options.config ?? {}), databaseUrl, databasePoolSize: 4 } });
  } catch (err) {
    await dropTestDatabase(server!, databaseUrl);
    throw err;
  }
  expect(app.infra.storeKind).toBe('postgres');
  return {
    ...app,
    async close() {
      try {
        await app.close();
      } finally {
        await dropTestDatabase(server!, databaseUrl);
      }
    },
  };
}

/** useTestApp on `store`: started before the describe's first test, closed (and dropped) after its last. */
export function useTestAppOn(store: TestStore, options: Parameters<typeof startTestApp>[0] = {}): TestApp {
  return appFixture(() => startTestAppOn(store, options));
}
