// The module object itself (not an import namespace), so a spy is seen by the adapter.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('fs') as typeof import('fs');
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { SqliteEventStore } from './sqlite-event-store.adapter';

const event = () => ({
  event_id: randomUUID(),
  type: 'Happened',
  data: {},
  metadata: { occurred_at: '2026-01-01T00:00:00Z', actor: 'test', schema_version: 1 },
});

/** Resolves once `done()` holds, checking on each turn of the event loop's timers. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (done()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`never happened: ${what}`);
}

/**
 * Two stores on one file are two connections, as two processes on one DATA_DIR are (an API process
 * appending, a worker following). The follower must see the other's appends without a restart,
 * and only once they are on disk.
 */
describe('SqliteEventStore followers in another process', () => {
  let dir: string;
  let appender: SqliteEventStore;
  let follower: SqliteEventStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-followers-'));
    const file = path.join(dir, 'events.sqlite');
    appender = new SqliteEventStore(file);
    follower = new SqliteEventStore(file, { pollIntervalMs: 5 });
  });
  let held: Array<() => void> = [];
  afterEach(async () => {
    for (const release of held.splice(0)) release();
    jest.restoreAllMocks();
    await follower.close();
    await appender.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('signals its listeners when another connection appends, and reads the new events', async () => {
    let signals = 0;
    follower.onAppended(() => signals++);
    const { position } = await appender.append('s-1', [event(), event()], 'no_stream');
    await until(() => signals > 0, 'the follower is signalled');
    expect((await follower.readAll(0, 10)).map((e) => e.global_position)).toEqual([position - 1, position]);
  });

  it("hands out another connection's commit only after an fsync of the WAL that began after it", async () => {
    const real = fs.fdatasync;
    jest.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      held.push(() => real(fd, cb));
    }) as typeof fs.fdatasync);
    let signals = 0;
    follower.onAppended(() => signals++);

    // The appender committed; its own fsync has not answered (a power cut now could lose it).
    const append = appender.append('s-1', [event()], 'no_stream');
    await until(() => held.length >= 1, "the appender's fsync starts");
    // The follower's poll sees the log grown and fsyncs the WAL itself before handing anything out.
    await until(() => held.length === 2, "the follower's fsync starts");
    expect(await follower.readAll(0, 10)).toEqual([]);
    expect(signals).toBe(0);

    held.shift()!();
    const { position } = await append;
    held.shift()!();
    await until(() => signals > 0, 'the follower is signalled after its fsync');
    expect((await follower.readAll(0, 10)).map((e) => e.global_position)).toEqual([position]);
  });
});
