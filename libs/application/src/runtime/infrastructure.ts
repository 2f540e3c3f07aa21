import * as fs from 'fs';
import { BlobStore } from '@dojang/blob-store';
import { EventStore } from '@dojang/event-store';
import { Projection, ProjectionFailedError, ProjectionRunner, recordProjectionError } from '@dojang/projections';
import { loadProjectionPlugins, pluginProjections } from './projection-plugins';
import { onPdfJob } from '@dojang/pdf';
import { ReadStore } from '@dojang/read-store';
import { CommandEntry } from '../commands/command-entry';
import { AppConfig } from './config';
import { Secrets, loadServerSecret } from './secrets';
import { StoreKind, openStores } from './stores';
import { InstrumentedEventStore, Logger, Metrics, createLogger, measureProjectionLag, recordEventSpans } from './observability';
import { REACTOR_FAILURES } from '../reactors/reactor-runner';
import { ProjectionDriver } from './projection-driver';

/** Everything a process needs to read and write, chosen by configuration. */
export interface Infrastructure {
  config: AppConfig;
  storeKind: StoreKind;
  events: EventStore;
  reads: ReadStore;
  blobs: BlobStore;
  runner: ProjectionRunner;
  /**
   * Runs the runner, or follows the one process that does (PostgreSQL): what the API and worker
   * processes start, and what read-your-writes waits on.
   */
  projections: ProjectionDriver;
  /** The one way into the write side (commands/command-entry.ts). */
  commands: CommandEntry;
  secrets: Secrets;
  logger: Logger;
  metrics: Metrics;
  close(): Promise<void>;
}

export interface InfrastructureOptions {
  /** The process's logger; by default one built from LOG_LEVEL writing JSON lines to stdout. */
  logger?: Logger;
}

export async function openInfrastructure(
  config: AppConfig,
  /** Default: the built-ins plus the PROJECTIONS plugins (config.projections), checked. */
  projections: Projection[] = loadProjectionPlugins(config),
  options: InfrastructureOptions = {},
): Promise<Infrastructure> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, base: { role: config.role } });
  const metrics = new Metrics();
  fs.mkdirSync(config.dataDir, { recursive: true });
  const stores = await openStores(config);
  const { kind, reads, blobs, closeShared } = stores;
  const events = new InstrumentedEventStore(stores.events, metrics);
  const runner = new ProjectionRunner(events, reads, projections, {
    onError: (err) => {
      logger.error({ err }, 'projection pass failed');
      // Shared, so status in another process (CLI, admin endpoint) can show which projection is stuck.
      const failed = err instanceof ProjectionFailedError ? [err.projection] : projections.map((p) => p.name);
      recordProjectionError(reads, failed, err, new Date()).catch((e) => logger.warn({ err: e }, 'could not record the projection error'));
    },
    onApplied: (batch, startedAt) => recordEventSpans('project', batch, startedAt),
  });
  const reset = await runner.init();
  await logPlugins(logger, config, projections, events, reads, reset);
  const driver = new ProjectionDriver(runner, reads, {
    onRole: (role) => logger.info({ role }, role === 'projector' ? 'this process runs the projections' : `projections: ${role}`),
    onError: (err) => logger.error({ err }, 'projection role change failed'),
  });
  // PDF jobs run in a process-wide pool; their outcomes feed this process's metrics.
  const stopPdfMetrics = onPdfJob((job, outcome, seconds) => {
    const kind = job.replace(/^pdf\./, '');
    metrics.pdfJobs.inc({ kind, outcome });
    metrics.pdfJobDuration.observe({ kind }, seconds);
  });
  const names = projections.map((p) => p.name);
  metrics.addCollector(async () => {
    for (const lag of await measureProjectionLag(events, reads, names, new Date())) {
      metrics.projectionLagEvents.set({ projection: lag.projection }, lag.events);
      metrics.projectionLagSeconds.set({ projection: lag.projection }, lag.seconds);
    }
  });
  metrics.addCollector(async () => {
    await reads.ensureCollection({ name: REACTOR_FAILURES });
    const failures = await reads.find<{ id: string; status?: string }>(REACTOR_FAILURES, { where: { status: { $in: ['parked', 'dead'] } } });
    metrics.reactorParked.set(failures.filter((f) => f.status === 'parked').length);
    metrics.reactorDead.set(failures.filter((f) => f.status === 'dead').length);
  });
  const secrets = new Secrets(loadServerSecret(config.dataDir, config.secretKey ?? undefined));
  return {
    config,
    storeKind: kind,
    events,
    reads,
    blobs,
    runner,
    projections: driver,
    commands: new CommandEntry(events, driver, logger),
    secrets,
    logger,
    metrics,
    async close() {
      stopPdfMetrics();
      await driver.stop();
      await runner.stop();
      await events.close();
      await reads.close();
      await blobs.close();
      await closeShared();
    },
  };
}

/**
 * Says which PROJECTIONS plugins this process runs and whether it is about to replay the log into
 * them (new, rebuilt or version-bumped): a plugin missing from one process's PROJECTIONS is
 * otherwise silent, and a long replay at start looks like a hang.
 */
async function logPlugins(logger: Logger, config: AppConfig, projections: Projection[], events: EventStore, reads: ReadStore, reset: string[]): Promise<void> {
  const plugins = pluginProjections(projections);
  if (plugins.length === 0) return;
  const lags = await measureProjectionLag(events, reads, plugins.map((p) => p.name), new Date());
  plugins.forEach((p, i) => {
    const { checkpoint, events: behind } = lags[i];
    const fields = { projection: p.name, version: p.version ?? 1, checkpoint, lag_events: behind };
    if (reset.includes(p.name)) logger.info(fields, `projection plugin ${p.name}: version ${p.version} differs from the stored one; its rows were reset and the log is replayed into it`);
    else if (checkpoint === 0 && behind > 0) logger.info(fields, `projection plugin ${p.name}: new on this store; replaying the log into it from the start`);
    else logger.info(fields, `projection plugin ${p.name} loaded${behind > 0 ? `; ${behind} event(s) to apply` : ''}`);
  });
  logger.info({ projections: plugins.map((p) => p.name), modules: config.projections }, `PROJECTIONS: ${plugins.length} plugin projection(s) loaded`);
}

