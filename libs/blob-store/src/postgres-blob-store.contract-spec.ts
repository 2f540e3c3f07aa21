import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { Pool } from 'pg';
import { blobStoreContract } from './blob-store.contract';
import { PostgresBlobStore } from './postgres-blob-store.adapter';

const server = postgresTestServer();

if (server) {
  let pool: Pool;
  // Declared before the database's hooks: jest runs afterAll hooks in order, and the pool must
  // be closed before the database is dropped under it.
  afterAll(async () => {
    await pool?.end();
  });
  const database = throwawayPostgresDatabase(server, 'dojang_blob_contract');
  beforeAll(() => {
    pool = createPostgresPool(database.url(), { max: 4, applicationName: 'blob-store-contract' });
  });

  blobStoreContract('PostgreSQL', async () => {
    const store = new PostgresBlobStore(pool);
    await store.init();
    return store;
  });
} else {
  console.warn(POSTGRES_SKIP_MESSAGE);
  describe.skip(`BlobStore contract: PostgreSQL (${POSTGRES_SKIP_MESSAGE})`, () => {
    it('runs against PostgreSQL', () => undefined);
  });
}
