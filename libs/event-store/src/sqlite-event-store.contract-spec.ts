import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { eventStoreContract } from './event-store.contract';
import { SqliteEventStore } from './sqlite-event-store.adapter';

const dir = mkdtempSync(path.join(tmpdir(), 'dojang-events-'));
const file = path.join(dir, 'events.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventStoreContract('SQLite', async () => new SqliteEventStore(file, { pollIntervalMs: 50 }), {
  tamper: (store, streamId, revision) => {
    (store as SqliteEventStore).rawDatabase
      .prepare(`UPDATE events SET data = json_set(data, '$.tampered', 1) WHERE stream_id = ? AND stream_revision = ?`)
      .run(streamId, revision);
  },
});
