import * as path from 'path';
import { FileBlobStore } from '@dojang/blob-store/file';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { AppConfig } from '../config';
import { Stores } from './stores';

/** The embedded default: SQLite files and content-addressed blob files under DATA_DIR. */
export async function openSqliteStores(config: AppConfig): Promise<Stores> {
  return {
    kind: 'sqlite',
    events: new SqliteEventStore(path.join(config.dataDir, 'events.sqlite')),
    reads: new SqliteReadStore(path.join(config.dataDir, 'read.sqlite')),
    blobs: new FileBlobStore(path.join(config.dataDir, 'blobs')),
    async closeShared() {},
  };
}
