import { randomUUID } from 'crypto';
import { DuplicateEventError, EventStore, NewEvent, StoredEvent, UnstorableEventError, WrongExpectedRevisionError } from './event-store.port';
import { GENESIS_HASH, verifyChain } from './hash-chain';

export interface EventStoreContractOptions {
  /**
   * Alters the stored data of one event behind the store's back, as an attacker with disk access
   * would. Left out for stores whose events cannot be changed in place (EventStoreDB).
   */
  tamper?: (store: EventStore, streamId: string, revision: number) => Promise<void> | void;
  /**
   * Whether an event_id is rejected even when it was used in another stream. SQLite has a unique
   * index; EventStoreDB indexes no event ids, so its adapter only catches repeats within a stream.
   */
  globallyUniqueEventIds?: boolean;
}

/**
 * The behaviour every EventStore adapter must have. `make` is called for each test and may be
 * called again within a test for a second instance: every instance from one suite run must share
 * the same storage (same file, same server), so that cross-process behaviour is exercised. Tests
 * use their own fresh streams, so the storage need not be empty.
 */
export function eventStoreContract(name: string, make: () => Promise<EventStore>, options: EventStoreContractOptions = {}): void {
  describe(`EventStore contract: ${name}`, () => {
    const run = randomUUID().slice(0, 8);
    let counter = 0;
    const opened: EventStore[] = [];
    let store: EventStore;

    const open = async () => {
      const s = await make();
      opened.push(s);
      return s;
    };
    /** A stream no other test (or earlier run against the same server) has touched. */
    const newStream = (kind = 'contract') => `${kind}-${run}-${++counter}`;
    const ours = (events: StoredEvent[], streams: string[]) => events.filter((e) => streams.includes(e.stream_id));

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    describe('append and optimistic concurrency', () => {
      it("appends to a new stream with 'no_stream'", async () => {
        const s = newStream();
        const result = await store.append(s, [event(), event()], 'no_stream');
        expect(result.next_expected_revision).toBe(1);
        expect(result.position).toBeGreaterThan(0);
        expect((await store.readStream(s)).map((e) => e.stream_revision)).toEqual([0, 1]);
      });

      it('appends again with the revision of the last event', async () => {
        const s = newStream();
        const first = await store.append(s, [event()], 'no_stream');
        const second = await store.append(s, [event(), event()], first.next_expected_revision);
        expect(second.next_expected_revision).toBe(2);
        expect(second.position).toBeGreaterThan(first.position);
        expect((await store.readStream(s)).map((e) => e.stream_revision)).toEqual([0, 1, 2]);
      });

      it("rejects 'no_stream' on a stream that exists", async () => {
        const s = newStream();
        await store.append(s, [event()], 'no_stream');
        const err = await store.append(s, [event()], 'no_stream').catch((e) => e);
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect(err).toMatchObject({ streamId: s, expected: 'no_stream', actual: 0 });
        expect(await store.readStream(s)).toHaveLength(1);
      });

      it('rejects a stale revision and writes nothing', async () => {
        const s = newStream();
        await store.append(s, [event()], 'no_stream');
        await store.append(s, [event()], 0);
        const err = await store.append(s, [event(), event()], 0).catch((e) => e);
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect(err).toMatchObject({ streamId: s, expected: 0, actual: 1 });
        expect(await store.readStream(s)).toHaveLength(2);
      });

      it('rejects a revision on a stream that does not exist', async () => {
        const s = newStream();
        const err = await store.append(s, [event()], 0).catch((e) => e);
        expect(err).toBeInstanceOf(WrongExpectedRevisionError);
        expect(err).toMatchObject({ expected: 0, actual: 'no_stream' });
        expect(await store.readStream(s)).toEqual([]);
      });

      it('rejects an append of no events', async () => {
        await expect(store.append(newStream(), [], 'no_stream')).rejects.toThrow();
      });

      it('lets exactly one of several concurrent appends with the same expected revision win', async () => {
        const s = newStream();
        const other = await open();
        await store.append(s, [event()], 'no_stream');
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? other : store).append(s, [event('Raced', { i })], 0)),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(5);
        for (const r of lost) expect(r.reason).toBeInstanceOf(WrongExpectedRevisionError);
        const events = await store.readStream(s);
        expect(events).toHaveLength(2);
        expect(verifyChain(events).intact).toBe(true);
      });

      it("lands every concurrent 'any' append and keeps the chain intact", async () => {
        const s = newStream();
        const other = await open();
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) => (i % 2 ? other : store).append(s, [event('Logged', { i })], 'any')),
        );
        expect(new Set(results.map((r) => r.next_expected_revision))).toEqual(new Set([0, 1, 2, 3, 4, 5]));
        const events = await store.readStream(s);
        expect(events.map((e) => e.stream_revision)).toEqual([0, 1, 2, 3, 4, 5]);
        expect(verifyChain(events)).toMatchObject({ intact: true, events: 6 });
      });
    });

    describe('reading', () => {
      it('reads [] for a stream that does not exist', async () => {
        expect(await store.readStream(newStream())).toEqual([]);
      });

      it('reads a stream in revision order with everything that was appended', async () => {
        const s = newStream();
        const appended = [event('Created', { n: 1, nested: { list: [1, 'two', null], flag: true } }), event('Renamed', { n: 2 })];
        await store.append(s, appended.slice(0, 1), 'no_stream');
        await store.append(s, appended.slice(1), 0);
        const events = await store.readStream(s);
        expect(events.map((e) => e.stream_revision)).toEqual([0, 1]);
        expect(events[1].global_position).toBeGreaterThan(events[0].global_position);
        events.forEach((e, i) => {
          expect(e.stream_id).toBe(s);
          expect(e.event_id).toBe(appended[i].event_id);
          expect(e.type).toBe(appended[i].type);
          expect(e.data).toEqual(appended[i].data);
          const { prev_hash, hash, ...metadata } = e.metadata;
          expect(metadata).toEqual(appended[i].metadata);
          expect(typeof prev_hash).toBe('string');
          expect(typeof hash).toBe('string');
        });
      });

      it('reads a stream from a revision on: that event and the later ones, as a whole read has them', async () => {
        const s = newStream();
        await store.append(s, [event('A', { n: 0 }), event('B', { n: 1 })], 'no_stream');
        await store.append(s, [event('C', { n: 2 }), event('D', { n: 3 })], 1);
        const whole = await store.readStream(s);
        expect(await store.readStream(s, { fromRevision: 0 })).toEqual(whole);
        expect(await store.readStream(s, {})).toEqual(whole);
        const tail = await store.readStream(s, { fromRevision: 2 });
        expect(tail.map((e) => e.stream_revision)).toEqual([2, 3]);
        expect(tail).toEqual(whole.slice(2));
        expect(await store.readStream(s, { fromRevision: 3 })).toEqual(whole.slice(3));
        // A reader that has folded the whole stream reads on from one past its last revision.
        expect(await store.readStream(s, { fromRevision: 4 })).toEqual([]);
        expect(await store.readStream(s, { fromRevision: 400 })).toEqual([]);
        // What another writer appended after the first read is there on the next read from that revision.
        const other = await open();
        await other.append(s, [event('E', { n: 4 })], 3);
        expect((await store.readStream(s, { fromRevision: 4 })).map((e) => [e.stream_revision, e.type])).toEqual([[4, 'E']]);
      });

      it('reads [] from a revision of a stream that does not exist, and refuses a revision that is not one', async () => {
        const s = newStream();
        expect(await store.readStream(s, { fromRevision: 3 })).toEqual([]);
        await store.append(s, [event()], 'no_stream');
        for (const bad of [-1, 1.5, Number.NaN]) await expect(store.readStream(s, { fromRevision: bad })).rejects.toBeInstanceOf(RangeError);
      });

      it('appends after a read from a revision with the revision it read last', async () => {
        const s = newStream();
        await store.append(s, [event(), event(), event()], 'no_stream');
        const [last] = await store.readStream(s, { fromRevision: 2 });
        const next = await store.append(s, [event()], last.stream_revision);
        expect(next.next_expected_revision).toBe(3);
        const events = await store.readStream(s);
        expect(events).toHaveLength(4);
        expect(verifyChain(events).intact).toBe(true);
      });

      it('reads the global log after a position, in append order across streams', async () => {
        const a = newStream();
        const b = newStream();
        const before = await store.headPosition();
        const a1 = event();
        const b1 = event();
        const a2 = event();
        await store.append(a, [a1], 'no_stream');
        await store.append(b, [b1], 'no_stream');
        const last = await store.append(a, [a2], 0);
        const all = await store.readAll(before, 1000);
        for (const e of all) expect(e.global_position).toBeGreaterThan(before);
        strictlyIncreasing(all.map((e) => e.global_position));
        const mine = ours(all, [a, b]);
        expect(mine.map((e) => e.event_id)).toEqual([a1.event_id, b1.event_id, a2.event_id]);
        expect(mine.map((e) => [e.stream_id, e.stream_revision])).toEqual([
          [a, 0],
          [b, 0],
          [a, 1],
        ]);
        expect(mine[2].global_position).toBe(last.position);
      });

      it('reads the global log in pages that resume from the last position', async () => {
        const s = newStream();
        const before = await store.headPosition();
        const appended = [event(), event(), event(), event(), event()];
        await store.append(s, appended.slice(0, 3), 'no_stream');
        await store.append(s, appended.slice(3), 2);
        const seen: StoredEvent[] = [];
        let after = before;
        for (;;) {
          const page = await store.readAll(after, 2);
          expect(page.length).toBeLessThanOrEqual(2);
          if (page.length === 0) break;
          seen.push(...page);
          after = page[page.length - 1].global_position;
        }
        strictlyIncreasing(seen.map((e) => e.global_position));
        expect(ours(seen, [s]).map((e) => e.event_id)).toEqual(appended.map((e) => e.event_id));
        expect(await store.readAll(before, 0)).toEqual([]);
        expect(await store.readAll(before, 1)).toHaveLength(1);
      });

      it('returns the position of the last event of a multi-event append', async () => {
        const s = newStream();
        const result = await store.append(s, [event(), event(), event()], 'no_stream');
        const events = await store.readStream(s);
        expect(events[2].global_position).toBe(result.position);
        expect(result.next_expected_revision).toBe(2);
      });

      it('reports the head of the global log', async () => {
        const result = await store.append(newStream(), [event()], 'no_stream');
        expect(await store.headPosition()).toBe(result.position);
        expect(await store.readAll(result.position, 10)).toEqual([]);
      });
    });

    describe('event ids', () => {
      it('rejects a retried append instead of doubling it', async () => {
        const s = newStream();
        const first = event();
        const second = event();
        await store.append(s, [first], 'no_stream');
        await expect(store.append(s, [first], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        await store.append(s, [second], 0);
        await expect(store.append(s, [second], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(s)).map((e) => e.event_id)).toEqual([first.event_id, second.event_id]);
      });

      it("rejects a retried 'any' append instead of doubling it", async () => {
        const s = newStream();
        const logged = event();
        await store.append(s, [logged], 'any');
        await store.append(s, [event()], 'any');
        await expect(store.append(s, [logged], 'any')).rejects.toBeInstanceOf(DuplicateEventError);
        expect(await store.readStream(s)).toHaveLength(2);
      });

      it('rejects an append that repeats an event_id and writes none of it', async () => {
        const s = newStream();
        const twice = event();
        await expect(store.append(s, [twice, event(), twice], 'no_stream')).rejects.toBeInstanceOf(DuplicateEventError);
        expect(await store.readStream(s)).toEqual([]);
      });

      if (options.globallyUniqueEventIds !== false) {
        it('rejects an event_id already used in another stream', async () => {
          const shared = event();
          await store.append(newStream(), [shared], 'no_stream');
          const s = newStream();
          await expect(store.append(s, [shared], 'no_stream')).rejects.toBeInstanceOf(DuplicateEventError);
          expect(await store.readStream(s)).toEqual([]);
        });
      }
    });

    describe('hash chain', () => {
      it('chains every event to the previous one from the genesis hash', async () => {
        const s = newStream();
        await store.append(s, [event(), event()], 'no_stream');
        await store.append(s, [event()], 1);
        const events = await store.readStream(s);
        expect(events[0].metadata.prev_hash).toBe(GENESIS_HASH);
        expect(events[1].metadata.prev_hash).toBe(events[0].metadata.hash);
        expect(events[2].metadata.prev_hash).toBe(events[1].metadata.hash);
        for (const e of events) expect(e.metadata.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(verifyChain(events)).toEqual({ intact: true, events: 3, head_hash: events[2].metadata.hash });
      });

      it('starts every stream from the genesis hash', async () => {
        await store.append(newStream(), [event()], 'no_stream');
        const s = newStream();
        await store.append(s, [event()], 'no_stream');
        expect((await store.readStream(s))[0].metadata.prev_hash).toBe(GENESIS_HASH);
      });

      it('detects altered, reordered and missing events in a copy of the stream', async () => {
        const s = newStream();
        await store.append(s, [event('A', { amount: 100 }), event('B', { amount: 200 }), event('C', { amount: 300 })], 'no_stream');
        const events = await store.readStream(s);
        const copy = () => events.map((e) => structuredClone(e));

        const altered = copy();
        altered[1].data.amount = 201;
        expect(verifyChain(altered)).toMatchObject({ intact: false, broken_at_revision: 1 });

        const reattributed = copy();
        reattributed[2].metadata.actor = 'someone else';
        expect(verifyChain(reattributed)).toMatchObject({ intact: false, broken_at_revision: 2 });

        const reordered = copy();
        [reordered[0], reordered[1]] = [reordered[1], reordered[0]];
        expect(verifyChain(reordered)).toMatchObject({ intact: false, broken_at_revision: 0 });

        const missing = copy();
        missing.splice(1, 1);
        expect(verifyChain(missing)).toMatchObject({ intact: false, broken_at_revision: 1 });
      });

      if (options.tamper) {
        const tamper = options.tamper;
        it('detects an event altered in storage', async () => {
          const s = newStream();
          await store.append(s, [event(), event(), event()], 'no_stream');
          await tamper(store, s, 1);
          expect(verifyChain(await store.readStream(s))).toMatchObject({ intact: false, broken_at_revision: 1 });
        });
      }

      it('hashes what it stores when data holds values JSON changes (Date, undefined)', async () => {
        const s = newStream();
        const signedAt = new Date('2024-05-06T07:08:09.000Z');
        await store.append(s, [event('Signed', { signed_at: signedAt, reason: undefined, list: [1, undefined] })], 'no_stream');
        const [stored] = await store.readStream(s);
        expect(stored.data).toEqual({ signed_at: signedAt.toISOString(), list: [1, null] });
        expect(verifyChain([stored]).intact).toBe(true);
      });
    });

    describe('notifications', () => {
      it('signals listeners after an append by this instance', async () => {
        const signal = listen(store);
        await store.append(newStream(), [event()], 'no_stream');
        await signal.next(5000);
        signal.stop();
      });

      it('signals listeners after an append by another instance', async () => {
        const other = await open();
        const signal = listen(store);
        // Let the adapter settle (first poll, subscription confirmation) before counting.
        await sleep(1000);
        signal.reset();
        await other.append(newStream(), [event()], 'no_stream');
        await signal.next(10000);
        signal.stop();
      });

      it('stops signalling after unsubscribe', async () => {
        const signal = listen(store);
        signal.stop();
        await store.append(newStream(), [event()], 'no_stream');
        await sleep(300);
        expect(signal.count).toBe(0);
      });
    });

    describe('values that cannot be stored', () => {
      const circular: Record<string, unknown> = { name: 'loop' };
      circular.self = circular;
      it.each([
        ['a BigInt', { amount: BigInt(1) }],
        ['a circular object', { loop: circular }],
      ])('refuses an append whose data holds %s with UnstorableEventError, and lands the other appends of the same turn', async (_label, bad) => {
        const [a, b, c] = [newStream(), newStream(), newStream()];
        // Requested in one turn of the event loop: the stores that group appends put them in one group.
        const results = await Promise.allSettled([
          store.append(a, [event()], 'no_stream'),
          store.append(b, [event('Bad', bad)], 'no_stream'),
          store.append(c, [event()], 'no_stream'),
        ]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        const err = (results[1] as PromiseRejectedResult).reason;
        expect(err).toBeInstanceOf(UnstorableEventError);
        expect(err).toMatchObject({ streamId: b, path: 'events[0]' });
        expect(await store.readStream(b)).toEqual([]);
        expect((await store.readStream(a)).length + (await store.readStream(c)).length).toBe(2);
      });

      // One rule for every store: PostgreSQL's jsonb cannot hold NUL or a lone surrogate, so none
      // of them takes text PostgreSQL could not (a log then moves between stores unchanged).
      it.each([
        ['NUL in a data value', { title: 'a\u0000b' }, {}, 'events[0].data.title'],
        ['another C0 control in a nested value', { signer: { names: ['ok', 'x\u001by'] } }, {}, 'events[0].data.signer.names[1]'],
        ['a lone surrogate', { title: 'a\ud800b' }, {}, 'events[0].data.title'],
        ['NUL in a data key', { ['k\u0000']: 1 }, {}, 'events[0].data'],
        ['NUL in metadata', {}, { user_agent: 'curl\u0000' }, 'events[0].metadata.user_agent'],
      ])('refuses %s with UnstorableEventError naming where, and writes nothing', async (_label, data, metadata, path) => {
        const s = newStream();
        const bad = event('Bad', data);
        Object.assign(bad.metadata, metadata);
        const good = event();
        const err = await store.append(s, [good, bad], 'no_stream').catch((e) => e);
        expect(err).toBeInstanceOf(UnstorableEventError);
        expect(err).toMatchObject({ streamId: s, path: path.replace('events[0]', 'events[1]') });
        expect(await store.readStream(s)).toEqual([]);
      });

      it('keeps tab, line feed, carriage return and paired surrogates as given', async () => {
        const s = newStream();
        const data = { text: 'a\tb\nc\r\nd 😀 \u007f' };
        await store.append(s, [event('Text', data)], 'no_stream');
        const [stored] = await store.readStream(s);
        expect(stored.data).toEqual(data);
        expect(verifyChain([stored]).intact).toBe(true);
      });
    });

    describe('unicode', () => {
      it('round-trips Korean text in data and metadata', async () => {
        const s = newStream();
        const data = { title: '근로계약서', signer: { name: '홍길동', note: '서명 완료 ✍️ — 감사합니다' }, clauses: ['제1조 (목적)', '제2조 (근로시간)'] };
        const appended = event('ContractSigned', data);
        appended.metadata.actor = '김철수';
        const before = await store.headPosition();
        await store.append(s, [appended], 'no_stream');
        const [stored] = await store.readStream(s);
        expect(stored.data).toEqual(data);
        expect(stored.metadata.actor).toBe('김철수');
        expect(verifyChain([stored]).intact).toBe(true);
        const [fromLog] = ours(await store.readAll(before, 1000), [s]);
        expect(fromLog.data).toEqual(data);
      });
    });
  });
}

function event(type = 'Happened', data: Record<string, unknown> = {}): NewEvent {
  return {
    event_id: randomUUID(),
    type,
    data,
    metadata: { occurred_at: new Date().toISOString(), actor: 'user_contract', schema_version: 1, correlation_id: randomUUID() },
  };
}

function strictlyIncreasing(values: number[]) {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Counts onAppended signals and waits for the next one. */
function listen(store: EventStore) {
  let waiters: Array<() => void> = [];
  const state = {
    count: 0,
    stop: () => undefined as void,
    reset() {
      state.count = 0;
    },
    next(timeoutMs: number): Promise<void> {
      if (state.count > 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no onAppended signal within ${timeoutMs} ms`)), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
  state.stop = store.onAppended(() => {
    state.count++;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });
  return state;
}
