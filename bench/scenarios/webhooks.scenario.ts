import { libraryBenchScenario } from './library-bench.scenario';

/** Webhook deliveries/s and reactor fan-out (bench/webhooks.bench.ts, owned by the webhooks work). */
export const webhooksScenario = libraryBenchScenario({
  id: 'webhooks',
  title: 'Webhooks',
  file: 'webhooks.bench',
  exportName: 'runWebhookBench',
  budgetMs: 240_000,
});
