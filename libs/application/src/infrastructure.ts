import * as fs from 'fs';
import { BlobStore } from '@dojang/blob-store';
import { EventStore } from '@dojang/event-store';
import { ALL_PROJECTIONS, Projection, ProjectionRunner } from '@dojang/projections';
import { ReadStore } from '@dojang/read-store';
import { GenericCommandHandler } from './command-handler';
import { AppConfig } from './config';
import { Secrets, loadServerSecret } from './secrets';
import { StoreKind, openStores } from './stores';

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
  close(): Promise<void>;
}

export async function openInfrastructure(config: AppConfig, projections: Projection[] = ALL_PROJECTIONS): Promise<Infrastructure> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const { kind, events, reads, blobs, closeShared } = await openStores(config);
  const runner = new ProjectionRunner(events, reads, projections, {
    onError: (err) => console.error('[projections]', err),
  });
  await runner.init();
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
    async close() {
      await runner.stop();
      await events.close();
      await reads.close();
      await blobs.close();
      await closeShared();
    },
  };
}
