import { createTestDatabase, dropTestDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { BenchScenario } from '../harness';
import { SMALL_DOCUMENT } from './documents-api.scenario';

const SERVER = process.env.DOJANG_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The production topology's write path: two API processes (ROLE=api) on one PostgreSQL database,
 * the load split between them, every create durable (synchronous_commit on) and projected before
 * its answer, as on the embedded store.
 */
export const postgresApiScenario: BenchScenario = {
  id: 'postgres-api',
  title: 'Documents API on PostgreSQL (two API processes)',
  async run(ctx) {
    const databaseUrl = await createTestDatabase(SERVER, 'dojang_bench');
    const env = { DATABASE_URL: databaseUrl, ROLE: 'api', SECRET_KEY: 'bench-secret-key-shared-by-both-apis' };
    try {
      const a = await ctx.startDojang('postgres-api-1', env);
      const b = await ctx.startDojang('postgres-api-2', env);
      try {
        const org = await ctx.createOrg(a.dataDir, 'Bench Co', env);
        const http = [
          await ctx.measureSpread({
            name: 'POST /v1/documents on PostgreSQL, 2 API processes',
            targets: [a, b],
            method: 'POST',
            path: '/v1/documents',
            headers: { authorization: `Bearer ${org.test}` },
            body: SMALL_DOCUMENT,
            goal: { minReqPerSec: 800, maxP99Ms: 100 },
          }),
        ];
        return { http };
      } finally {
        await ctx.stop(a);
        await ctx.stop(b);
      }
    } finally {
      await dropTestDatabase(SERVER, databaseUrl);
    }
  },
};
