import { libraryBenchScenario } from './library-bench.scenario';

/** A bulk send's documents/s, RSS and GET /v1/health latency while it runs (bench/bulk-send.bench.ts; BULK_BENCH_ROWS, default 1000). */
export const bulkSendScenario = libraryBenchScenario({
  id: 'bulk-send',
  title: 'Bulk send',
  file: 'bulk-send.bench',
  exportName: 'runBulkSendBench',
  budgetMs: 600_000,
});
