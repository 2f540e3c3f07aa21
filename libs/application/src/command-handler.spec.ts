import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Decider } from '@dojang/domain';
import { EventStore, WrongExpectedRevisionError } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { ConcurrentModificationError, GenericCommandHandler } from './command-handler';

type Counted = { type: 'Counted'; data: { n: number } };
/** Each command appends the next number: a lost race would show as a repeated or missing number. */
const counter: Decider<number, { type: 'Count' }, Counted> = {
  initialState: () => 0,
  evolve: (n, e) => e.data.n,
  decide: (_c, n) => [{ type: 'Counted', data: { n: n + 1 } }],
};
const now = () => '2026-11-24T07:00:00.000Z';

describe('GenericCommandHandler', () => {
  let dir: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-handler-'));
    store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the commands of one process on one stream one at a time, so none of them loses an append', async () => {
    const append = jest.spyOn(store, 'append');
    // No retries: a single conflict would fail a command.
    const handler = new GenericCommandHandler(store, 0);
    const results = await Promise.all(Array.from({ length: 24 }, () => handler.execute(counter, 'count-1', { type: 'Count' }, { actor: 'test' }, now)));
    expect(results.map((r) => r.state).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(append).toHaveBeenCalledTimes(24);
    expect((await store.readStream('count-1')).map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });

  it('keeps different streams independent and goes on after a command that failed', async () => {
    const handler = new GenericCommandHandler(store, 0);
    const failing = handler.execute(counter, 'count-a', () => Promise.reject(new Error('source failed')), { actor: 'test' }, now);
    const after = handler.execute(counter, 'count-a', { type: 'Count' }, { actor: 'test' }, now);
    const other = handler.execute(counter, 'count-b', { type: 'Count' }, { actor: 'test' }, now);
    await expect(failing).rejects.toThrow('source failed');
    expect((await after).state).toBe(1);
    expect((await other).state).toBe(1);
  });

  it('answers a conflict that outlasts every retry (another process keeps writing) with ConcurrentModificationError', async () => {
    const racing: EventStore = Object.assign(Object.create(store), {
      append: jest.fn(async (streamId: string) => {
        throw new WrongExpectedRevisionError(streamId, 'no_stream', 0);
      }),
    });
    const handler = new GenericCommandHandler(racing, 2);
    const err = await handler.execute(counter, 'count-1', { type: 'Count' }, { actor: 'test' }, now).catch((e) => e);
    expect(err).toBeInstanceOf(ConcurrentModificationError);
    expect(err.code).toBe('concurrent_modification');
    expect(racing.append).toHaveBeenCalledTimes(3);
  });

  it('decides a command on a made-up stream id without reading the stream, and decides again from the store if it existed', async () => {
    const read = jest.spyOn(store, 'readStream');
    const handler = new GenericCommandHandler(store, 2);
    const fresh = await handler.execute(counter, 'count-new', { type: 'Count' }, { actor: 'test' }, now, { newStream: true });
    expect(fresh.state).toBe(1);
    expect(read).not.toHaveBeenCalled();
    // The id was not new after all: the no_stream append is refused, and the retry reads.
    const again = await handler.execute(counter, 'count-new', { type: 'Count' }, { actor: 'test' }, now, { newStream: true });
    expect(again.state).toBe(2);
    expect(read).toHaveBeenCalledTimes(1);
    expect((await store.readStream('count-new')).map((e) => (e.data as { n: number }).n)).toEqual([1, 2]);
  });
});
