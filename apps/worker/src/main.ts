import 'reflect-metadata';
import { loadConfig, openInfrastructure, startWorker } from '@dojang/application';

/** The worker on its own (scaled deployments): projections and process managers, no HTTP. */
async function main() {
  const config = loadConfig();
  const infra = await openInfrastructure(config);
  await infra.runner.start();
  const worker = await startWorker(infra);
  // Every timer of the runners and loops is unref'd (they must never keep a test or the API
  // process alive on their own). Without a server socket, this one is what keeps the worker
  // running until it is told to stop; without it the process exited right after catching up.
  const alive = setInterval(() => undefined, 1 << 30);
  if (config.logLevel !== 'silent') console.log(`Dojang worker running (data: ${config.dataDir}, reactors held: ${worker.runner.heldReactors.join(', ') || 'none yet'})`);
  const shutdown = async () => {
    clearInterval(alive);
    await worker.stop();
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
