import 'reflect-metadata';
import { loadConfig, openInfrastructure, startWorker } from '@dojang/application';
import { createApp } from './create-app';

async function main() {
  const config = loadConfig();
  const infra = await openInfrastructure(config);
  await infra.runner.start();
  // Embedded mode runs the worker in this process; ROLE=api leaves it to apps/worker.
  const worker = config.role === 'all' ? await startWorker(infra) : null;
  const app = await createApp(infra, worker ? { notifier: worker.notifier } : {});
  await app.listen(config.port);
  if (config.logLevel !== 'silent') {
    console.log(`Dojang API on http://localhost:${config.port} (data: ${config.dataDir}, ${config.eventStoreUrl ? 'EventStoreDB' : 'SQLite'})`);
  }
  const shutdown = async () => {
    await app.close();
    await worker?.stop();
    await infra.close();
    process.exit(0);
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
