import { libraryBenchScenario } from './library-bench.scenario';

/** projections rebuild from zero vs a raw scan of the same events (bench/rebuild.bench.ts). */
export const rebuildScenario = libraryBenchScenario({ id: 'rebuild', title: 'Projections rebuild', file: 'rebuild.bench', exportName: 'runRebuildBench', budgetMs: 240_000 });
