import { AppConfig } from '../config';
import { Stores, storeKind } from './stores';

export * from './stores';

/**
 * Opens the stores the configuration selects. Each backend is its own module, imported only when
 * chosen, so a process loads only the drivers it uses, and the import is typed (a missing export
 * is a compile error, not a boot-time TypeError).
 */
export async function openStores(config: AppConfig): Promise<Stores> {
  switch (storeKind(config)) {
    case 'sqlite':
      return (await import('./sqlite.stores')).openSqliteStores(config);
    case 'esdb+mongo':
      return (await import('./esdb-mongo.stores')).openEsdbMongoStores(config);
    case 'postgres':
      return (await import('./postgres.stores')).openPostgresStores(config);
  }
}
