import { MongoClient } from 'mongodb';
import { GridFsBlobStore } from '@dojang/blob-store/gridfs';
import { EsdbEventStore } from '@dojang/event-store/esdb';
import { MongoReadStore } from '@dojang/read-store/mongo';
import { AppConfig } from '../config';
import { Stores } from './stores';

/**
 * The design card: events in EventStoreDB, read models and blobs in MongoDB through one client
 * (one connection pool). Both servers are asked once before anything else runs, so an unreachable
 * URL fails the boot with a message naming the store instead of a late TypeError.
 */
export async function openEsdbMongoStores(config: AppConfig): Promise<Stores> {
  const eventStoreUrl = config.eventStoreUrl!;
  const mongoUrl = config.mongoUrl!;
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: config.storeConnectTimeoutMs });
  try {
    await client.connect();
    await client.db().command({ ping: 1 });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new Error(`MongoDB (MONGO_URL) is unreachable: ${(err as Error).message}`);
  }
  const events = new EsdbEventStore(eventStoreUrl);
  return {
    kind: 'esdb+mongo',
    events,
    reads: new MongoReadStore(client),
    blobs: new GridFsBlobStore(client),
    async closeShared() {
      await client.close();
    },
  };
}
