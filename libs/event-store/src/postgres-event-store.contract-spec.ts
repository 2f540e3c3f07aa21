import { Pool } from 'pg';
import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { eventStoreContract } from './event-store.contract';
import { PostgresEventStore } from './postgres-event-store.adapter';

const server = postgresTestServer();

if (server) {
  describe('PostgreSQL event store (throwaway database)', () => {
    const database = throwawayPostgresDatabase(server, 'dojang_events_contract');
    // Nested, so the pool ends before the outer afterAll drops the database.
    describe('with one pool', () => {
      let pool: Pool;
      beforeAll(() => {
        pool = createPostgresPool(database.url(), { max: 4, applicationName: 'dojang-events-contract' });
      });
      afterAll(() => pool.end());

      eventStoreContract(
        'PostgreSQL',
        async () => {
          const store = new PostgresEventStore(pool, { pollIntervalMs: 50, log: () => undefined });
          await store.init();
          return store;
        },
        {
          tamper: async (_store, streamId, revision) => {
            await pool.query(
              `UPDATE events SET data = data || '{"tampered": 1}'::jsonb WHERE stream_id = $1 AND stream_revision = $2`,
              [streamId, revision],
            );
          },
        },
      );
    });
  });
} else {
  console.warn(POSTGRES_SKIP_MESSAGE);
  describe.skip(`EventStore contract: PostgreSQL (${POSTGRES_SKIP_MESSAGE})`, () => {
    it('runs against PostgreSQL', () => undefined);
  });
}
