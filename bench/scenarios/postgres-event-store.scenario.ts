import { randomUUID } from 'crypto';
import { Client } from 'pg';
import { createPostgresPool } from '@dojang/postgres';
import { createTestDatabase, dropTestDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { PostgresEventStore } from '@dojang/event-store/postgres';
import { BenchRow, BenchScenario } from '../harness';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

export interface PostgresAppendMeasure {
  appends: number;
  appendsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Append transactions committed, from the database's own counter: appends per transaction = group size. */
  transactions: number;
}

/**
 * 1-event appends to new streams (what a document creation costs the log) from `writers`
 * concurrent callers for `durationMs`, on a database of its own that is dropped afterwards.
 */
export async function measurePostgresAppends(serverUrl: string, writers: number, durationMs: number): Promise<PostgresAppendMeasure> {
  const url = await createTestDatabase(serverUrl, 'dojang_bench_events');
  const pool = createPostgresPool(url, { max: 4, applicationName: 'dojang-bench' });
  const store = new PostgresEventStore(pool, { log: () => undefined });
  try {
    await store.init();
    const commits = () => pool.query<{ n: string }>(`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`);
    const data = { title: '근로계약서', content: '<p>본문</p>'.repeat(10), created_at: new Date().toISOString() };
    const latencies: number[] = [];
    const commits0 = Number((await commits()).rows[0].n);
    const until = Date.now() + durationMs;
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (Date.now() < until) {
          const s = process.hrtime.bigint();
          await store.append(
            `document-${randomUUID()}`,
            [{ event_id: randomUUID(), type: 'DocumentCreated', data, metadata: { occurred_at: new Date().toISOString(), actor: 'bench', schema_version: 1 } }],
            'no_stream',
          );
          latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
        }
      }),
    );
    const wallSec = Number(process.hrtime.bigint() - t0) / 1e9;
    // The statistics collector lags a little; read-only statements count too, so this is an upper bound.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const transactions = Number((await commits()).rows[0].n) - commits0;
    latencies.sort((a, b) => a - b);
    return {
      appends: latencies.length,
      appendsPerSec: Math.round(latencies.length / wallSec),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      transactions,
    };
  } finally {
    await store.close();
    await pool.end();
    await dropTestDatabase(serverUrl, url);
  }
}

export async function reachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The PostgreSQL event store alone: appends serialised under one advisory lock (so followers
 * never skip), with group append sharing each lock hold and WAL flush among the appends of one
 * event-loop round. Compare with the embedded store's row.
 */
export const postgresEventStoreScenario: BenchScenario = {
  id: 'postgres-event-store',
  title: 'PostgreSQL event store append',
  async run(ctx) {
    const server = process.env.DOJANG_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
    if (!(await reachable(server))) return { notes: [`skipped: PostgreSQL at ${server} is unreachable (set DOJANG_TEST_POSTGRES_URL)`] };
    const durationMs = Math.min(5_000, ctx.options.durationSec * 1000);
    ctx.ensureTime(durationMs + 10_000, 'the PostgreSQL event store benchmark');
    ctx.log(`postgres event store: ${durationMs / 1000}s of 1-event appends, ${ctx.connections} concurrent writers`);
    const m = await measurePostgresAppends(server, ctx.connections, durationMs);
    const rows: BenchRow[] = [
      { name: `PostgresEventStore.append, 1 event to a new stream, ${ctx.connections} concurrent`, value: m.appendsPerSec, unit: 'appends/s' },
      { name: 'append latency p50', value: m.p50Ms, unit: 'ms' },
      { name: 'append latency p99', value: m.p99Ms, unit: 'ms' },
      { name: 'appends per committed transaction (at least)', value: round(m.appends / Math.max(1, m.transactions), 1), unit: 'appends' },
    ];
    ctx.log(`postgres event store: ${m.appendsPerSec} appends/s`);
    return { rows };
  },
};
