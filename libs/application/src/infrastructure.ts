import * as fs from 'fs';
import * as path from 'path';
import { BlobStore, FileBlobStore } from '@dojang/blob-store';
import { EventStore, SqliteEventStore } from '@dojang/event-store';
import { ALL_PROJECTIONS, Projection, ProjectionRunner } from '@dojang/projections';
import { ReadStore, SqliteReadStore } from '@dojang/read-store';
import { GenericCommandHandler } from './command-handler';
import { AppConfig } from './config';
import { Secrets, loadServerSecret } from './secrets';

/** Everything a process needs to read and write, chosen by configuration. */
export interface Infrastructure {
  config: AppConfig;
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
  let events: EventStore;
  let reads: ReadStore;
  let blobs: BlobStore;
  if (config.eventStoreUrl) {
    // Production adapters are constructed only when configured; the embedded default needs no server.
    const { EsdbEventStore } = require('@dojang/event-store');
    events = new EsdbEventStore(config.eventStoreUrl);
  } else {
    events = new SqliteEventStore(path.join(config.dataDir, 'events.sqlite'));
  }
  if (config.mongoUrl) {
    const { MongoReadStore } = require('@dojang/read-store');
    const { GridFsBlobStore } = require('@dojang/blob-store');
    reads = await MongoReadStore.connect(config.mongoUrl);
    blobs = await GridFsBlobStore.connect(config.mongoUrl);
  } else {
    reads = new SqliteReadStore(path.join(config.dataDir, 'read.sqlite'));
    blobs = new FileBlobStore(path.join(config.dataDir, 'blobs'));
  }
  const runner = new ProjectionRunner(events, reads, projections, {
    onError: (err) => console.error('[projections]', err),
  });
  await runner.init();
  const secrets = new Secrets(loadServerSecret(config.dataDir, config.secretKey ?? undefined));
  return {
    config,
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
    },
  };
}
