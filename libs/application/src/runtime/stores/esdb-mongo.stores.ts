import { MongoClient } from 'mongodb';
import { GridFsBlobStore } from '@dojang/blob-store/gridfs';
import { EsdbEventStore } from '@dojang/event-store/esdb';
import { MongoReadStore, assertMongoRunsTransactions } from '@dojang/read-store/mongo';
import { AppConfig } from '../config';
import { Stores } from './stores';

/**
 * The design card: events in EventStoreDB, read models and blobs in MongoDB through one client
 * (one connection pool). Both servers are asked once, side by side, before anything else runs, so
 * an unreachable URL fails the boot within STORE_CONNECT_TIMEOUT_MS with a message naming the
 * store (both, when both are down) instead of a late TypeError or a hang at the first request.
 */
export async function openEsdbMongoStores(config: AppConfig): Promise<Stores> {
  const timeoutMs = config.storeConnectTimeoutMs;
  const client = new MongoClient(config.mongoUrl!, { serverSelectionTimeoutMS: timeoutMs });
  const events = new EsdbEventStore(config.eventStoreUrl!);
  const [mongo, esdb] = await Promise.allSettled([
    // Reachable, and able to run the transactions every read-model commit needs.
    client.connect().then(() => assertMongoRunsTransactions(client.db())),
    events.ping(timeoutMs),
  ]);
  const failures: string[] = [];
  if (esdb.status === 'rejected') failures.push(`EventStoreDB (EVENTSTORE_URL) is unreachable: ${(esdb.reason as Error).message}`);
  if (mongo.status === 'rejected') {
    const message = (mongo.reason as Error).message;
    failures.push(message.startsWith('MongoDB (MONGO_URL)') ? message : `MongoDB (MONGO_URL) is unreachable: ${message}`);
  }
  if (failures.length) {
    await Promise.allSettled([client.close(), events.close()]);
    throw new Error(failures.join('; '));
  }
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
