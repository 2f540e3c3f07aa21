import 'reflect-metadata';
import { loadConfig, openInfrastructure, startTracingFromEnv, startWorker } from '@dojang/application';
import { createApp } from './create-app';

async function main() {
  const config = loadConfig();
  // Before anything opens a connection, so the HTTP and PostgreSQL instrumentations see them.
  const tracing = await startTracingFromEnv(config.role === 'api' ? 'dojang-api' : 'dojang');
  const infra = await openInfrastructure(config);
  await infra.projections.start();
  // Embedded mode runs the worker in this process; ROLE=api leaves it to apps/worker.
  const worker = config.role === 'all' ? await startWorker(infra) : null;
  const app = await createApp(infra, worker ? { notifier: worker.notifier } : {});
  await app.listen(config.port);
  infra.logger.info({ port: config.port, data_dir: config.dataDir, store: infra.storeKind, role: config.role, tracing: tracing !== null }, `Dojang API on http://localhost:${config.port}`);
  const shutdown = async () => {
    await app.close();
    await worker?.stop();
    await infra.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  // A close that fails still ends the process, saying why, instead of an unhandled rejection.
  const onSignal = () => {
    shutdown().catch((err) => {
      console.error(err);
      process.exit(1);
    });
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
