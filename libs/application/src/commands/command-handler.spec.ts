import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Decider } from '@dojang/domain';
import { AppendOutcomeUnknownError, EventStore, NewEvent, WrongExpectedRevisionError } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { ConcurrentModificationError, RequestEventIds } from './command-context';
import { GenericCommandHandler } from './command-handler';
import { derivedUuid } from '../templates/template-send.service';

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

  describe('from a state the caller kept (executeFrom, loadFrom)', () => {
    const count = (handler: GenericCommandHandler, stream: string, times: number) =>
      Array.from({ length: times }).reduce<Promise<unknown>>((p) => p.then(() => handler.execute(counter, stream, { type: 'Count' }, { actor: 'test' }, now)), Promise.resolve());

    it('reads only the events after the kept revision, decides from the kept state with them, and keeps the revision it appended', async () => {
      const handler = new GenericCommandHandler(store, 2);
      await count(handler, 'count-from', 3);
      const kept = await handler.loadFrom(counter, 'count-from', null);
      expect(kept).toMatchObject({ state: 3, revision: 2 });
      expect(kept.events).toHaveLength(3);
      // Another writer appends after the caller kept its state.
      await count(handler, 'count-from', 1);
      const read = jest.spyOn(store, 'readStream');
      const decision = await handler.executeFrom(counter, 'count-from', { state: kept.state, revision: kept.revision }, { type: 'Count' }, { actor: 'test' }, now);
      expect(decision).toMatchObject({ before: 4, state: 5, revision: 4 });
      expect(read.mock.calls).toEqual([['count-from', { fromRevision: 3 }]]);
      expect(await read.mock.results[0].value).toHaveLength(1);
      // Kept from the decision: nothing new to read, the next decision follows on.
      const next = await handler.executeFrom(counter, 'count-from', decision, { type: 'Count' }, { actor: 'test' }, now);
      expect(next).toMatchObject({ state: 6, revision: 5 });
      expect(await read.mock.results[1].value).toEqual([]);
      expect((await store.readStream('count-from')).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await handler.loadFrom(counter, 'count-from', next)).toMatchObject({ state: 6, revision: 5, events: [] });
    });

    it('after losing a race, reads on from the kept revision again and decides with what the winner wrote', async () => {
      await new GenericCommandHandler(store).execute(counter, 'count-race', { type: 'Count' }, { actor: 'test' }, now);
      // Another process appends between this handler's read and its append, once.
      const other = new GenericCommandHandler(store);
      let raced = false;
      const racing: EventStore = Object.assign(Object.create(store), {
        append: async (...args: Parameters<EventStore['append']>) => {
          if (!raced) {
            raced = true;
            await other.execute(counter, 'count-race', { type: 'Count' }, { actor: 'other' }, now);
          }
          return store.append(...args);
        },
        readStream: jest.fn((...args: Parameters<EventStore['readStream']>) => store.readStream(...args)),
      });
      const handler = new GenericCommandHandler(racing, 2);
      const decision = await handler.executeFrom(counter, 'count-race', { state: 1, revision: 0 }, { type: 'Count' }, { actor: 'test' }, now);
      expect(decision).toMatchObject({ before: 2, state: 3, revision: 2 });
      expect((racing.readStream as jest.Mock).mock.calls).toEqual([
        ['count-race', { fromRevision: 1 }],
        ['count-race', { fromRevision: 1 }],
      ]);
      expect((await store.readStream('count-race')).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3]);
    });

    it('starts a stream kept as none (revision -1) with a whole read and a no_stream append', async () => {
      const handler = new GenericCommandHandler(store, 2);
      const read = jest.spyOn(store, 'readStream');
      const decision = await handler.executeFrom(counter, 'count-none', { state: 0, revision: -1 }, { type: 'Count' }, { actor: 'test' }, now);
      expect(decision).toMatchObject({ before: 0, state: 1, revision: 0 });
      expect(read.mock.calls).toEqual([['count-none']]);
    });
  });

  describe('an append whose outcome is unknown (the store lost the answer and could not tell)', () => {
    /** The store as a command handler sees it when answers are lost: `plan` says what each append call does. */
    function lossy(plan: Array<'land-then-lose' | 'lose' | 'ok'>) {
      const calls: NewEvent[][] = [];
      let late: (() => Promise<unknown>) | null = null;
      const wrapped: EventStore = Object.assign(Object.create(store), {
        append: jest.fn(async (streamId: string, events: NewEvent[], expected: Parameters<EventStore['append']>[2]) => {
          calls.push(events);
          const step = plan.shift() ?? 'ok';
          if (step === 'ok') return store.append(streamId, events, expected);
          if (step === 'land-then-lose') await store.append(streamId, events, expected);
          // A 'lose' copy that was in flight may still land later: `landLate` lets it.
          else late = () => store.append(streamId, events, expected);
          throw new AppendOutcomeUnknownError(streamId, new Error('Connection terminated unexpectedly'));
        }),
      });
      return { store: wrapped, calls, landLate: () => late?.() };
    }

    it('reports a command whose append landed as done, once, with the landed events and their position', async () => {
      const { store: s, calls } = lossy(['land-then-lose']);
      const handler = new GenericCommandHandler(s, 2, 1);
      const decision = await handler.execute(counter, 'count-l', { type: 'Count' }, { actor: 'test' }, now, { newStream: true });
      const stored = await store.readStream('count-l');
      expect(stored.map((e) => e.data)).toEqual([{ n: 1 }]);
      expect(calls).toHaveLength(1);
      expect(decision).toEqual({ before: 0, state: 1, events: [{ type: 'Counted', data: { n: 1 } }], position: stored[0].global_position, revision: 0 });
    });

    it('tries again with the very same event ids while the outcome is unknown, and lands once', async () => {
      const { store: s, calls } = lossy(['lose', 'lose', 'ok']);
      const handler = new GenericCommandHandler(s, 2, 1);
      const decision = await handler.execute(counter, 'count-r', { type: 'Count' }, { actor: 'test' }, now);
      expect(decision.state).toBe(1);
      expect(calls).toHaveLength(3);
      expect(new Set(calls.map((c) => c[0].event_id)).size).toBe(1);
      expect((await store.readStream('count-r')).map((e) => e.event_id)).toEqual([calls[0][0].event_id]);
    });

    it('finds an earlier copy that landed late instead of writing a second one', async () => {
      const lossyStore = lossy(['lose']);
      const s: EventStore = Object.assign(Object.create(lossyStore.store), {
        append: jest.fn(async (...args: Parameters<EventStore['append']>) => {
          if (lossyStore.calls.length === 1) await lossyStore.landLate();
          return lossyStore.store.append(...args);
        }),
      });
      const handler = new GenericCommandHandler(s, 2, 1);
      const decision = await handler.execute(counter, 'count-late', { type: 'Count' }, { actor: 'test' }, now);
      const stored = await store.readStream('count-late');
      expect(stored).toHaveLength(1);
      expect(decision).toMatchObject({ state: 1, position: stored[0].global_position });
    });

    it('gives up with AppendOutcomeUnknownError when the outcome stays unknown, having sent only the same ids', async () => {
      const { store: s, calls } = lossy(['lose', 'lose', 'lose', 'lose', 'lose', 'lose']);
      const handler = new GenericCommandHandler(s, 8, 1, 3);
      await expect(handler.execute(counter, 'count-u', { type: 'Count' }, { actor: 'test' }, now)).rejects.toBeInstanceOf(AppendOutcomeUnknownError);
      expect(calls).toHaveLength(4);
      expect(new Set(calls.map((c) => c[0].event_id)).size).toBe(1);
    });
  });

  describe('a request under an Idempotency-Key (event ids derived from it)', () => {
    /** What the API gives each attempt of one request: fresh counters, the same derivation. */
    const attemptOf = (seed: string) => {
      const replayed = jest.fn();
      const made = new Map<string, number>();
      const event_ids: RequestEventIds = {
        next(streamId) {
          const n = made.get(streamId) ?? 0;
          made.set(streamId, n + 1);
          return (i) => derivedUuid('test', seed, streamId, String(n), String(i));
        },
        replayed,
      };
      return { context: { actor: 'test', event_ids }, replayed };
    };

    it('given a first attempt that wrote, when the request runs again, then it answers with those events and writes nothing', async () => {
      const handler = new GenericCommandHandler(store, 0);
      const first = attemptOf('key-1');
      const wrote = await handler.execute(counter, 'count-k', { type: 'Count' }, first.context, now);
      // Someone else writes in between: the retry still finds its own events, not a fresh decision.
      await handler.execute(counter, 'count-k', { type: 'Count' }, { actor: 'other' }, now);
      const append = jest.spyOn(store, 'append');
      const retry = attemptOf('key-1');
      const again = await handler.execute(counter, 'count-k', { type: 'Count' }, retry.context, now);
      expect(append).not.toHaveBeenCalled();
      expect(retry.replayed).toHaveBeenCalledTimes(1);
      expect(first.replayed).not.toHaveBeenCalled();
      expect({ state: again.state, position: again.position, events: again.events }).toEqual({ state: 1, position: wrote.position, events: wrote.events });
      expect((await store.readStream('count-k')).map((e) => (e.data as { n: number }).n)).toEqual([1, 2]);
    });

    it('gives each command of one request on a stream its own ids, and a retry finds each one', async () => {
      const handler = new GenericCommandHandler(store, 0);
      const first = attemptOf('key-2');
      await handler.execute(counter, 'count-m', { type: 'Count' }, first.context, now);
      await handler.execute(counter, 'count-m', { type: 'Count' }, first.context, now);
      const retry = attemptOf('key-2');
      const one = await handler.execute(counter, 'count-m', { type: 'Count' }, retry.context, now);
      const two = await handler.execute(counter, 'count-m', { type: 'Count' }, retry.context, now);
      // Running further than the first attempt got: a new command, written.
      const three = await handler.execute(counter, 'count-m', { type: 'Count' }, retry.context, now);
      expect([one.state, two.state, three.state]).toEqual([1, 2, 3]);
      expect(retry.replayed).toHaveBeenCalledTimes(2);
      expect((await store.readStream('count-m')).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3]);
    });

    it('another key (or no key) decides anew', async () => {
      const handler = new GenericCommandHandler(store, 0);
      await handler.execute(counter, 'count-n', { type: 'Count' }, attemptOf('key-3').context, now);
      const other = attemptOf('key-4');
      expect((await handler.execute(counter, 'count-n', { type: 'Count' }, other.context, now)).state).toBe(2);
      expect((await handler.execute(counter, 'count-n', { type: 'Count' }, { actor: 'test' }, now)).state).toBe(3);
      expect(other.replayed).not.toHaveBeenCalled();
    });
  });
});
