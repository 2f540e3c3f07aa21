import { BenchScenario } from '../harness';
import { bareNestScenario } from './bare-nest.scenario';
import { bulkSendScenario } from './bulk-send.scenario';
import { documentsApiScenario } from './documents-api.scenario';
import { eventStoreScenario } from './event-store.scenario';
import { hostileBodiesScenario } from './hostile-bodies.scenario';
import { isolationScenario } from './isolation.scenario';
import { lifecycleScenario } from './lifecycle.scenario';
import { memoryScenario } from './memory.scenario';
import { pdfScenario } from './pdf.scenario';
import { postgresApiScenario } from './postgres-api.scenario';
import { postgresEventStoreScenario } from './postgres-event-store.scenario';
import { postgresLifecycleScenario } from './postgres-lifecycle.scenario';
import { rebuildScenario } from './rebuild.scenario';
import { signingPagesScenario } from './signing-pages.scenario';
import { webhooksScenario } from './webhooks.scenario';

/**
 * Every scenario `npm run bench` runs, in order. The baseline goes first: every HTTP result is
 * reported as a ratio to it. New scenarios (e.g. the full signing lifecycle in documents/s) are
 * modules beside these that return `http` results or `rows`; a benchmark written as a library
 * function in bench/ plugs in through libraryBenchScenario, as PDF and webhooks do.
 */
export const SCENARIOS: BenchScenario[] = [
  bareNestScenario,
  documentsApiScenario,
  eventStoreScenario,
  postgresEventStoreScenario,
  postgresApiScenario,
  lifecycleScenario,
  postgresLifecycleScenario,
  isolationScenario,
  hostileBodiesScenario,
  signingPagesScenario,
  rebuildScenario,
  memoryScenario,
  webhooksScenario,
  pdfScenario,
  bulkSendScenario,
];
