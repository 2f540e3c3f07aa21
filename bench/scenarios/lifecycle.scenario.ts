import { libraryBenchScenario } from './library-bench.scenario';

/** Completed documents per second through the whole signing flow (bench/lifecycle.bench.ts). */
export const lifecycleScenario = libraryBenchScenario({ id: 'lifecycle', title: 'Signing lifecycle', file: 'lifecycle.bench', exportName: 'runLifecycleBench', budgetMs: 120_000 });
