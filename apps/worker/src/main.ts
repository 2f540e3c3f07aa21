import 'reflect-metadata';
import { loadConfig, openInfrastructure, startWorker } from '@dojang/application';

/** The worker on its own (scaled deployments): projections and process managers, no HTTP. */
async function main() {
  const config = loadConfig();
  const infra = await openInfrastructure(config);
  await infra.runner.start();
  const worker = await startWorker(infra);
  if (config.logLevel !== 'silent') console.log(`Dojang worker running (data: ${config.dataDir})`);
  const shutdown = async () => {
    await worker.stop();
    await infra.close();
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
