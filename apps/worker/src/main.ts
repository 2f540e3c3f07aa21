import 'reflect-metadata';
import * as http from 'http';
import { Infrastructure, loadConfig, openInfrastructure, startTracingFromEnv, startWorker } from '@dojang/application';

/** The worker's own `GET /metrics` (METRICS_PORT): it has no API to scrape. */
function serveMetrics(infra: Infrastructure, port: number): http.Server {
  const server = http.createServer((req, res) => {
    const token = infra.config.metricsToken;
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'resource_not_found', message: 'Only GET /metrics is served here.' } }));
      return;
    }
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { type: 'authentication_error', code: 'invalid_metrics_token', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' } }));
      return;
    }
    infra.metrics.expose().then(
      (text) => res.writeHead(200, { 'Content-Type': infra.metrics.contentType }).end(text),
      (err) => {
        infra.logger.error({ err }, 'metrics exposition failed');
        res.writeHead(500).end();
      },
    );
  });
  server.listen(port);
  return server;
}

/** The worker on its own (scaled deployments): projections and process managers, no HTTP. */
async function main() {
  const config = loadConfig();
  const tracing = await startTracingFromEnv('dojang-worker');
  const infra = await openInfrastructure({ ...config, role: 'worker' });
  await infra.projections.start();
  const worker = await startWorker(infra);
  // Every timer of the runners and loops is unref'd (they must never keep a test or the API
  // process alive on their own). Without a server socket, this one is what keeps the worker
  // running until it is told to stop; without it the process exited right after catching up.
  const alive = setInterval(() => undefined, 1 << 30);
  const metrics = config.metricsPort > 0 ? serveMetrics(infra, config.metricsPort) : null;
  infra.logger.info(
    { data_dir: config.dataDir, store: infra.storeKind, metrics_port: config.metricsPort || null, reactors_held: worker.runner.heldReactors },
    'Dojang worker running',
  );
  const shutdown = async () => {
    clearInterval(alive);
    metrics?.close();
    await worker.stop();
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
