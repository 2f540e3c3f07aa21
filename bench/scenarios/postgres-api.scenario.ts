import * as os from 'os';
import { createTestDatabase, dropTestDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { BenchRow, BenchScenario } from '../harness';
import { SMALL_DOCUMENT } from './documents-api.scenario';
import { reachable } from './postgres-event-store.scenario';
import { FollowerLag, FollowerLagMeter } from './postgres-lag';
import { PostgresMeter, PostgresUsage } from './postgres-meter';

export const POSTGRES_SERVER = process.env.DOJANG_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** The database's side of a measured run, per completed request. */
export function postgresRows(usage: PostgresUsage, requests: number, what = 'request'): BenchRow[] {
  const per = (n: number) => (requests > 0 ? n / requests : 0);
  return [
    { name: `PostgreSQL backends CPU per ${what} (${usage.backends} backends of the database)`, value: round(per(usage.backendCpuSec * 1000), 3), unit: 'ms' },
    { name: `transactions committed per ${what} (each statement outside a transaction counts as one)`, value: round(per(usage.commits), 2), unit: 'transactions' },
    { name: `WAL written per ${what} (whole server)`, value: Math.round(per(usage.walBytes)), unit: 'bytes' },
  ];
}

/**
 * The production topology's write path: two API processes (ROLE=api) on one PostgreSQL database,
 * the load split between them, every create durable (synchronous_commit on) and projected before
 * its answer, as on the embedded store. Besides the HTTP figures it reports what each request
 * costs the database (backend CPU, transactions), read while the load runs.
 */
export const postgresApiScenario: BenchScenario = {
  id: 'postgres-api',
  title: 'Documents API on PostgreSQL (two API processes)',
  async run(ctx) {
    if (!(await reachable(POSTGRES_SERVER))) return { notes: [`skipped: PostgreSQL at ${POSTGRES_SERVER} is unreachable (set DOJANG_TEST_POSTGRES_URL)`] };
    const databaseUrl = await createTestDatabase(POSTGRES_SERVER, 'dojang_bench');
    const env = { DATABASE_URL: databaseUrl, ROLE: 'api', SECRET_KEY: 'bench-secret-key-shared-by-both-apis' };
    const meter = new PostgresMeter(POSTGRES_SERVER, new URL(databaseUrl).pathname.slice(1));
    const lagMeter = new FollowerLagMeter(databaseUrl);
    let usage: PostgresUsage | null = null;
    let lag: FollowerLag | null = null;
    try {
      await meter.open();
      const a = await ctx.startDojang('postgres-api-1', env);
      const b = await ctx.startDojang('postgres-api-2', env);
      try {
        const org = await ctx.createOrg(a.dataDir, 'Bench Co', env);
        await lagMeter.open();
        const load0 = os.loadavg()[0];
        const result = await ctx.measureSpread({
          name: 'POST /v1/documents on PostgreSQL, 2 API processes',
          targets: [a, b],
          method: 'POST',
          path: '/v1/documents',
          headers: { authorization: `Bearer ${org.test}` },
          body: SMALL_DOCUMENT,
          goal: { minReqPerSec: 800, maxP99Ms: 100 },
          window: {
            start: async () => {
              lagMeter.start();
              await meter.start();
            },
            stop: async () => {
              [usage, lag] = await Promise.all([meter.stop(), lagMeter.stop()]);
            },
          },
        });
        const load1 = os.loadavg()[0];
        const rows: BenchRow[] = [
          { name: 'POST /v1/documents, both API processes', value: Math.round(result.reqPerSec), unit: 'req/s' },
          { name: 'p99 latency', value: result.p99Ms, unit: 'ms' },
          { name: 'API processes CPU per request (both)', value: round(result.serverCpuMsPerRequest ?? 0, 3), unit: 'ms' },
        ];
        if (usage) {
          rows.push(...postgresRows(usage, result.requests));
          const apiMs = result.serverCpuMsPerRequest ?? 0;
          rows.push({ name: 'API + PostgreSQL CPU per request', value: round(apiMs + ((usage as PostgresUsage).backendCpuSec * 1000) / Math.max(1, result.requests), 3), unit: 'ms' });
        }
        if (lag) {
          const l = lag as FollowerLag;
          rows.push(
            { name: `follower lag p50 (append committed → its projection committed; ${l.events} events)`, value: l.p50Ms, unit: 'ms' },
            { name: 'follower lag p99', value: l.p99Ms, unit: 'ms' },
          );
        }
        rows.push({ name: 'load average (1 min) before / after the run', value: round(Math.max(load0, load1), 2), unit: `(before ${load0.toFixed(2)}, after ${load1.toFixed(2)})` });
        ctx.log(`postgres-api: ${rows.map((r) => `${r.name} ${r.value} ${r.unit}`).join('; ')}`);
        return { http: [result], rows };
      } finally {
        await ctx.stop(a);
        await ctx.stop(b);
      }
    } finally {
      await lagMeter.close();
      await meter.close();
      await dropTestDatabase(POSTGRES_SERVER, databaseUrl);
    }
  },
};
