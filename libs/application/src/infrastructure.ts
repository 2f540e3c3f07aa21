import * as fs from 'fs';
import { BlobStore } from '@dojang/blob-store';
import { EventStore } from '@dojang/event-store';
import { ALL_PROJECTIONS, Projection, ProjectionRunner } from '@dojang/projections';
import { ReadStore } from '@dojang/read-store';
import { GenericCommandHandler } from './command-handler';
import { AppConfig } from './config';
import { Secrets, loadServerSecret } from './secrets';
import { StoreKind, openStores } from './stores';
import { InstrumentedEventStore, Logger, Metrics, createLogger, measureProjectionLag, recordEventSpans } from './observability';
import { REACTOR_FAILURES } from './reactor-runner';

/** Everything a process needs to read and write, chosen by configuration. */
export interface Infrastructure {
  config: AppConfig;
  storeKind: StoreKind;
  events: EventStore;
  reads: ReadStore;
  blobs: BlobStore;
  runner: ProjectionRunner;
  commands: GenericCommandHandler;
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
  projections: Projection[] = ALL_PROJECTIONS,
  options: InfrastructureOptions = {},
): Promise<Infrastructure> {
  const logger = options.logger ?? createLogger({ level: config.logLevel, base: { role: config.role } });
  const metrics = new Metrics();
  fs.mkdirSync(config.dataDir, { recursive: true });
  const stores = await openStores(config);
  const { kind, reads, blobs, closeShared } = stores;
  const events = new InstrumentedEventStore(stores.events, metrics);
  const runner = new ProjectionRunner(events, reads, projections, {
    onError: (err) => logger.error({ err }, 'projection pass failed'),
    onApplied: (batch, startedAt) => recordEventSpans('project', batch, startedAt),
  });
  await runner.init();
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
    commands: new GenericCommandHandler(events),
    secrets,
    logger,
    metrics,
    async close() {
      await runner.stop();
      await events.close();
      await reads.close();
      await blobs.close();
      await closeShared();
    },
  };
}
