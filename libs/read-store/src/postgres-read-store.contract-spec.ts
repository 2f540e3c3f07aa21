import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { Pool } from 'pg';
import { readStoreContract } from './read-store.contract';
import { PostgresReadStore } from './postgres-read-store.adapter';

const server = postgresTestServer();

if (server) {
  let pool: Pool;
  // Declared before the database's hooks: jest runs afterAll hooks in order, and the pool must
  // be closed before the database is dropped under it.
  afterAll(async () => {
    await pool?.end();
  });
  const database = throwawayPostgresDatabase(server, 'dojang_read_contract');
  beforeAll(() => {
    pool = createPostgresPool(database.url(), { max: 4, applicationName: 'read-store-contract' });
  });

  readStoreContract(
    'PostgreSQL',
    async () => {
      const store = new PostgresReadStore(pool);
      await store.init();
      return store;
    },
    {
      guardsStalePuts: true,
      indexCount: async (store, collection) => {
        const { rows } = await (store as PostgresReadStore).pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = $1 AND NOT i.indisprimary`,
          [`rm_${collection}`],
        );
        return rows[0].n;
      },
    },
  );
} else {
  console.warn(POSTGRES_SKIP_MESSAGE);
  describe.skip(`ReadStore contract: PostgreSQL (${POSTGRES_SKIP_MESSAGE})`, () => {
    it('runs against PostgreSQL', () => undefined);
  });
}
