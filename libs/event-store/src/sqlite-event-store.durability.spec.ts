// The module object itself (not an import namespace), so a spy is seen by the adapter.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('fs') as typeof import('fs');
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { SqliteEventStore } from './sqlite-event-store.adapter';
import { DuplicateEventError, WrongExpectedRevisionError } from './event-store.port';

const event = () => ({
  event_id: randomUUID(),
  type: 'Happened',
  data: {},
  metadata: { occurred_at: '2026-01-01T00:00:00Z', actor: 'test', schema_version: 1 },
});

/** Holds every fdatasync until the test releases it (`held.shift()!()`), so a test controls when the disk answers. */
function holdFsyncs() {
  const held: Array<() => void> = [];
  const real = fs.fdatasync;
  const spy = jest.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    held.push(() => real(fd, cb));
  }) as typeof fs.fdatasync);
  return { held, spy };
}

/** Group commit: an append is acknowledged only after an fdatasync of the WAL that began after it. */
describe('SqliteEventStore durability', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-durable-'));
    store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('resolves an append only after the WAL is fsynced, and hides it from readers until then', async () => {
    const { held } = holdFsyncs();

    let acknowledged = false;
    const append = store.append('s-1', [event()], 'no_stream').then((r) => {
      acknowledged = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    expect(held).toHaveLength(1);
    expect(acknowledged).toBe(false);
    expect(await store.readAll(0, 10)).toEqual([]);

    held.shift()!();
    const result = await append;
    expect(acknowledged).toBe(true);
    expect((await store.readAll(0, 10)).map((e) => e.global_position)).toEqual([result.position]);
  });

  it('shares one fsync among the appends that committed while another was in flight', async () => {
    const { held, spy } = holdFsyncs();

    const first = store.append('s-a', [event()], 'no_stream');
    await new Promise((r) => setImmediate(r));
    const rest = Promise.all(Array.from({ length: 10 }, (_, i) => store.append(`s-b${i}`, [event()], 'no_stream')));
    await new Promise((r) => setImmediate(r));
    expect(spy).toHaveBeenCalledTimes(1);
    held.shift()!();
    await first;
    await new Promise((r) => setTimeout(r, 10));
    // The ten later commits ride on one more fsync, not ten.
    expect(spy).toHaveBeenCalledTimes(2);
    held.shift()!();
    await rest;
    expect(await store.headPosition()).toBe(11);
  });

  it('does not acknowledge an append whose fsync failed', async () => {
    jest.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      cb(Object.assign(new Error('EIO'), { code: 'EIO' }));
    }) as typeof fs.fdatasync);
    await expect(store.append('s-x', [event()], 'no_stream')).rejects.toThrow('EIO');
  });
  it('commits appends requested together in one transaction, rolling back and rejecting only the ones that fail', async () => {
    await store.append('s-existing', [event()], 'no_stream');
    const repeated = event();
    const results = await Promise.allSettled([
      store.append('s-1', [repeated, event()], 'no_stream'),
      store.append('s-existing', [event()], 'no_stream'), // wrong expected revision
      store.append('s-2', [event()], 'no_stream'),
      store.append('s-3', [event(), repeated], 'no_stream'), // repeats an event_id of the first
      store.append('s-existing', [event()], 0),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventError);
    // Nothing of a failed append is left, and the chains of the others are intact.
    expect(await store.readStream('s-3')).toEqual([]);
    expect((await store.readStream('s-existing')).map((e) => e.stream_revision)).toEqual([0, 1]);
    const all = await store.readAll(0, 100);
    expect(all.map((e) => e.stream_id)).toEqual(['s-existing', 's-1', 's-1', 's-2', 's-existing']);
    const second = all[4];
    expect(second.metadata.prev_hash).toBe(all[0].metadata.hash);
  });
  it('makes all the appends an fsync covered visible at once, and signals listeners once for them', async () => {
    const { held } = holdFsyncs();
    const signals: number[][] = [];
    store.onAppended(() => void store.readAll(0, 10).then((events) => signals.push(events.map((e) => e.global_position))));

    const appends = Promise.all(Array.from({ length: 5 }, (_, i) => store.append(`s-${i}`, [event()], 'no_stream')));
    await new Promise((r) => setImmediate(r));
    expect(held).toHaveLength(1);
    expect(await store.readAll(0, 10)).toEqual([]);
    held.shift()!();
    await appends;
    await new Promise((r) => setImmediate(r));
    expect(signals).toEqual([[1, 2, 3, 4, 5]]);
  });
});
