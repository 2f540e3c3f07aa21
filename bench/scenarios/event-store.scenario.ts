import { randomUUID } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { BenchRow, BenchScenario } from '../harness';
import { tempDataDir } from '../../test/support/built-server';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** fdatasync latency of the disk DATA_DIR lives on: the floor under every acknowledged write. */
function fsyncLatencies(dir: string, count: number): number[] {
  const file = path.join(dir, 'fsync-probe');
  const fd = fs.openSync(file, 'w');
  const out: number[] = [];
  try {
    const block = Buffer.alloc(4096, 1);
    for (let i = 0; i < count; i++) {
      fs.writeSync(fd, block, 0, block.length, (i % 64) * 4096);
      const t0 = process.hrtime.bigint();
      fs.fdatasyncSync(fd);
      out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return out.sort((a, b) => a - b);
}

/**
 * The embedded event store alone, in this process: what one document creation costs the log
 * (a 1-event append to a new stream, hash-chained, durable before it resolves) with the same 32
 * concurrent writers as the HTTP scenario. This is the ceiling for POST /v1/documents.
 */
export const eventStoreScenario: BenchScenario = {
  id: 'event-store',
  title: 'Embedded event store (SQLite) append',
  async run(ctx) {
    const dir = tempDataDir('dojang-bench-es-');
    try {
      const fsync = fsyncLatencies(dir, 200);
      const store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
      const durationMs = Math.min(5_000, ctx.options.durationSec * 1000);
      ctx.ensureTime(durationMs + 10_000, 'the event store benchmark');
      ctx.log(`event store: ${durationMs / 1000}s of 1-event appends, ${ctx.connections} concurrent writers`);
      const latencies: number[] = [];
      const data = { title: '근로계약서', content: '<p>본문</p>'.repeat(10), created_at: new Date().toISOString() };
      const until = Date.now() + durationMs;
      const t0 = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      await Promise.all(
        Array.from({ length: ctx.connections }, async () => {
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
      const cpu = process.cpuUsage(cpu0);
      await store.close();
      latencies.sort((a, b) => a - b);
      const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
      const rows: BenchRow[] = [
        { name: 'disk fdatasync latency, median', value: round(percentile(fsync, 50)), unit: 'ms' },
        { name: 'disk fdatasync latency, p99', value: round(percentile(fsync, 99)), unit: 'ms' },
        { name: 'ceiling for one fsync per acknowledged write (1000 / median)', value: Math.round(1000 / percentile(fsync, 50)), unit: 'writes/s' },
        { name: `SqliteEventStore.append, 1 event to a new stream, ${ctx.connections} concurrent`, value: Math.round(latencies.length / wallSec), unit: 'appends/s' },
        { name: 'append latency p50', value: round(percentile(latencies, 50)), unit: 'ms' },
        { name: 'append latency p99', value: round(percentile(latencies, 99)), unit: 'ms' },
        { name: 'CPU per append (this process)', value: round(((cpu.user + cpu.system) / 1000) / latencies.length, 3), unit: 'ms' },
      ];
      ctx.log(`event store: ${rows[3].value} appends/s, fsync median ${rows[0].value} ms`);
      return { rows };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
