import { CachedBlobStore } from '@dojang/blob-store';
import { AppConfig } from '../config';
import { Stores, storeKind } from './stores';

export * from './stores';

/**
 * Opens the stores the configuration selects. Each backend is its own module, imported only when
 * chosen, so a process loads only the drivers it uses, and the import is typed (a missing export
 * is a compile error, not a boot-time TypeError).
 */
export async function openStores(config: AppConfig): Promise<Stores> {
  const stores = await openBackend(config);
  // Every list and detail presents bodies from the blob store: the same memory in front of each.
  return { ...stores, blobs: new CachedBlobStore(stores.blobs) };
}

function openBackend(config: AppConfig): Promise<Stores> {
  switch (storeKind(config)) {
    case 'sqlite':
      return import('./sqlite.stores').then((m) => m.openSqliteStores(config));
    case 'esdb+mongo':
      return import('./esdb-mongo.stores').then((m) => m.openEsdbMongoStores(config));
    case 'postgres':
      return import('./postgres.stores').then((m) => m.openPostgresStores(config));
  }
}
