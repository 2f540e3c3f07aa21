import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import Database from 'better-sqlite3';
import { SqliteEventStore } from './sqlite-event-store.adapter';

const event = () => ({
  event_id: randomUUID(),
  type: 'Happened',
  data: {},
  metadata: { occurred_at: '2026-01-01T00:00:00Z', actor: 'test', schema_version: 1 },
});

/**
 * Another process on the same DATA_DIR holding the write lock (a CLI rebuild's long transaction):
 * an append waits for it without freezing the event loop, and lands once the lock is free.
 */
describe('SqliteEventStore while another connection holds the write lock', () => {
  let dir: string;
  let store: SqliteEventStore;
  let other: Database.Database;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-busy-'));
    const file = path.join(dir, 'events.sqlite');
    store = new SqliteEventStore(file);
    other = new Database(file);
  });
  afterEach(async () => {
    other.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('waits asynchronously: timers keep firing, and the append lands when the lock is released', async () => {
    other.exec('BEGIN IMMEDIATE');
    // The event loop's longest stall while the append waits.
    let last = Date.now();
    let longestStall = 0;
    const ticker = setInterval(() => {
      longestStall = Math.max(longestStall, Date.now() - last);
      last = Date.now();
    }, 10);
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        resolve();
      }, 600),
    );
    try {
      const started = Date.now();
      const appended = store.append(`busy-${randomUUID()}`, [event()], 'no_stream');
      await released;
      await expect(appended).resolves.toMatchObject({ next_expected_revision: 0 });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(longestStall).toBeLessThan(400);
    } finally {
      clearInterval(ticker);
    }
  });
});
