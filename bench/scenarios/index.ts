import { BenchScenario } from '../harness';
import { bareNestScenario } from './bare-nest.scenario';
import { documentsApiScenario } from './documents-api.scenario';
import { eventStoreScenario } from './event-store.scenario';
import { pdfScenario } from './pdf.scenario';

/**
 * Every scenario `npm run bench` runs, in order. The baseline goes first: every HTTP result is
 * reported as a ratio to it. New scenarios (the signing lifecycle in documents/s, webhook
 * deliveries/s) are modules beside these that return `http` results or `rows`, added here.
 */
export const SCENARIOS: BenchScenario[] = [bareNestScenario, documentsApiScenario, eventStoreScenario, pdfScenario];
