import * as os from 'os';
import { createTestDatabase, dropTestDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { runLifecycleBench } from '../lifecycle.bench';
import { BenchRow, BenchScenario } from '../harness';
import { POSTGRES_SERVER, postgresRows } from './postgres-api.scenario';
import { reachable } from './postgres-event-store.scenario';
import { FollowerLag, FollowerLagMeter } from './postgres-lag';
import { PostgresMeter, PostgresUsage } from './postgres-meter';

/**
 * The full signing lifecycle (bench/lifecycle.bench.ts) with every store on PostgreSQL: documents
 * per second, CPU per document in this process (app, PDF workers, client) and in the database's
 * backends, and the follower lag under that load (append committed → its projection committed).
 */
export const postgresLifecycleScenario: BenchScenario = {
  id: 'postgres-lifecycle',
  title: 'Signing lifecycle on PostgreSQL',
  async run(ctx) {
    if (!(await reachable(POSTGRES_SERVER))) return { notes: [`skipped: PostgreSQL at ${POSTGRES_SERVER} is unreachable (set DOJANG_TEST_POSTGRES_URL)`] };
    ctx.ensureTime(120_000, 'the PostgreSQL lifecycle');
    const databaseUrl = await createTestDatabase(POSTGRES_SERVER, 'dojang_bench_lifecycle');
    const meter = new PostgresMeter(POSTGRES_SERVER, new URL(databaseUrl).pathname.slice(1));
    const lagMeter = new FollowerLagMeter(databaseUrl);
    let usage: PostgresUsage | null = null;
    let lag: FollowerLag | null = null;
    try {
      await meter.open();
      ctx.log('lifecycle on PostgreSQL (bench/lifecycle.bench.ts with DATABASE_URL)');
      const load0 = os.loadavg()[0];
      const result = await runLifecycleBench({
        databaseUrl,
        window: {
          async start() {
            // The schema exists once the app has started (migrations): now the LISTEN can begin.
            await lagMeter.open();
            lagMeter.start();
            await meter.start();
          },
          async stop() {
            [usage, lag] = await Promise.all([meter.stop(), lagMeter.stop()]);
          },
        },
      });
      const load1 = os.loadavg()[0];
      const completed = result.rows.find((r) => r.name.startsWith('completed documents'))?.value ?? 0;
      const rows: BenchRow[] = [...result.rows];
      if (usage) rows.push(...postgresRows(usage, completed, 'document'));
      if (lag) {
        const l = lag as FollowerLag;
        rows.push(
          { name: `follower lag p50 (append committed → its projection committed; ${l.events} events)`, value: l.p50Ms, unit: 'ms' },
          { name: 'follower lag p99', value: l.p99Ms, unit: 'ms' },
        );
      }
      rows.push({ name: 'load average (1 min) before / after the run', value: Math.round(Math.max(load0, load1) * 100) / 100, unit: `(before ${load0.toFixed(2)}, after ${load1.toFixed(2)})` });
      const extra = rows.slice(result.rows.length);
      const markdown = `${result.markdown.trimEnd()}\n${extra.map((r) => `| ${r.name} | ${r.value} | ${r.unit} |`).join('\n')}\n`;
      ctx.log(`postgres-lifecycle: ${rows.map((r) => `${r.name} ${r.value} ${r.unit}`).join('; ')}`);
      return { rows, markdown };
    } finally {
      await lagMeter.close();
      await meter.close();
      await dropTestDatabase(POSTGRES_SERVER, databaseUrl);
    }
  },
};
