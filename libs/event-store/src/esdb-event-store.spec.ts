import { randomUUID } from 'crypto';
import {
  AppendResult as EsdbAppendResult,
  AppendToStreamOptions,
  DeadlineExceededError,
  EventData,
  NO_STREAM,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { EsdbClient, EsdbEventStore, EventStoreUnreachableError } from './esdb-event-store.adapter';
import { AppendOutcomeUnknownError, NewEvent, WrongExpectedRevisionError } from './event-store.port';

/**
 * The EventStoreDB adapter against an in-process fake of the client calls it makes. The fake keeps
 * streams in memory with the server's behaviour for what these tests need: expected-revision
 * checks, reads forwards and backwards, commit positions; and fails on demand the ways the real
 * client does (a `{ success: false }` answer when throwOnAppendFailure is off, a deadline after the
 * server committed, an unreachable server).
 */

interface FakeRecorded {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  isJson: boolean;
  contentType: 'application/json';
  created: Date;
  position?: { commit: bigint; prepare: bigint };
}

type AppendBehaviour =
  | 'normal'
  /** A client built with throwOnAppendFailure=false, as the connection string allows. */
  | 'resolve-failure'
  /** The server writes, the answer is lost (deadline / connection reset). */
  | 'lost-after-commit'
  /** The request never reached the server. */
  | 'lost-before-commit';

class FakeEsdbClient {
  streams = new Map<string, FakeRecorded[]>();
  private nextPosition = 1_000n;
  behaviour: AppendBehaviour = 'normal';
  /** Runs before the next append is processed: a concurrent writer slipping in. */
  beforeNextAppend: (() => void) | null = null;
  /** Stream reads strip positions, as servers before 22.6 (and the client's defaults) do. */
  streamReadPosition: 'present' | 'absent' | 'zero' | 'max' = 'present';
  readAllFails: Error | 'hang' | null = null;
  appendCalls = 0;

  store(streamId: string, event: { id: string; type: string; data: unknown; metadata: unknown }) {
    const events = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, events);
    const position = (this.nextPosition += 100n);
    const recorded: FakeRecorded = {
      streamId,
      id: event.id,
      revision: BigInt(events.length),
      type: event.type,
      data: event.data,
      metadata: event.metadata,
      isJson: true,
      contentType: 'application/json',
      created: new Date(),
      position: { commit: position, prepare: position },
    };
    events.push(recorded);
    return recorded;
  }

  async appendToStream(streamId: string, input: EventData | EventData[], options: AppendToStreamOptions = {}): Promise<EsdbAppendResult> {
    this.appendCalls++;
    const hook = this.beforeNextAppend;
    this.beforeNextAppend = null;
    hook?.();
    const events = Array.isArray(input) ? input : [input];
    const stored = this.streams.get(streamId) ?? [];
    const current = stored.length === 0 ? 'no_stream' : BigInt(stored.length - 1);
    const expected = options.expectedRevision;
    const matches = expected === NO_STREAM ? current === 'no_stream' : expected === current;
    if (this.behaviour === 'lost-before-commit') throw new UnavailableError(undefined, 'connection reset before the server answered');
    // The server's idempotence: the same event ids appended again at the same expected revision
    // are already there, so it answers success and writes nothing.
    const from = expected === NO_STREAM ? 0 : typeof expected === 'bigint' ? Number(expected) + 1 : -1;
    const again = from >= 0 ? stored.slice(from, from + events.length) : [];
    if (!matches && again.length === events.length && again.every((e, i) => e.id === events[i].id)) {
      return { success: true, nextExpectedRevision: again[again.length - 1].revision, position: again[again.length - 1].position };
    }
    if (!matches) {
      if (this.behaviour === 'resolve-failure') {
        return { success: false, nextExpectedRevision: current === 'no_stream' ? -1n : current, position: undefined };
      }
      throw new WrongExpectedVersionError(undefined, { streamName: streamId, expected: expected!, current });
    }
    let last: FakeRecorded | undefined;
    for (const e of events) last = this.store(streamId, { id: e.id!, type: e.type, data: e.data, metadata: e.metadata });
    if (this.behaviour === 'lost-after-commit') throw new DeadlineExceededError(undefined, 'Deadline exceeded');
    return { success: true, nextExpectedRevision: last!.revision, position: last!.position };
  }

  readStream(streamId: string, options: { direction?: string; fromRevision?: bigint | string; maxCount?: number | bigint } = {}) {
    const streams = this.streams;
    const strip = this.streamReadPosition;
    return (async function* () {
      const events = streams.get(streamId);
      if (!events || events.length === 0) throw new StreamNotFoundError(undefined, streamId);
      const backwards = options.direction === 'backwards';
      const from = typeof options.fromRevision === 'bigint' ? Number(options.fromRevision) : backwards ? events.length - 1 : 0;
      const ordered = backwards ? events.slice(0, from + 1).reverse() : events.slice(from);
      const max = options.maxCount === undefined ? ordered.length : Number(options.maxCount);
      for (const e of ordered.slice(0, max)) {
        const event = { ...e };
        if (strip === 'absent') delete event.position;
        if (strip === 'zero') event.position = { commit: 0n, prepare: 0n };
        // What servers before 22.6 send on stream reads: the position as "none", 2^64 - 1.
        if (strip === 'max') event.position = { commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n };
        yield { event };
      }
    })();
  }

  readAll(options: { direction?: string; maxCount?: number | bigint } = {}) {
    const fails = this.readAllFails;
    const all = [...this.streams.values()].flat().sort((a, b) => (a.position!.commit < b.position!.commit ? -1 : 1));
    return (async function* () {
      if (fails === 'hang') await new Promise(() => undefined);
      if (fails) throw fails;
      const ordered = options.direction === 'backwards' ? all.reverse() : all;
      for (const event of ordered.slice(0, options.maxCount === undefined ? undefined : Number(options.maxCount))) yield { event };
    })();
  }

  subscribeToAll(): never {
    throw new Error('not used by these tests');
  }

  async dispose() {}
}

function newEvent(type = 'DocumentCreated'): NewEvent {
  return { event_id: randomUUID(), type, data: { n: 1 }, metadata: { occurred_at: '2026-03-02T09:00:00.000Z', actor: 'system', schema_version: 1 } };
}

function storeOn(fake: FakeEsdbClient) {
  return new EsdbEventStore(fake as unknown as EsdbClient, { outcomeCheckDelayMs: 0, maxAnyAttempts: 1 });
}

describe('EsdbEventStore against a fake client', () => {
  it('reads a stream from a revision on as the server reads it from that revision (the contract case, without a server)', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    await store.append('document-from', [newEvent(), newEvent('A'), newEvent('B')], 'no_stream');
    const reads = jest.spyOn(fake, 'readStream');
    const whole = await store.readStream('document-from');
    expect(await store.readStream('document-from', { fromRevision: 1 })).toEqual(whole.slice(1));
    expect(reads).toHaveBeenLastCalledWith('document-from', expect.objectContaining({ fromRevision: 1n }));
    expect(await store.readStream('document-from', { fromRevision: 3 })).toEqual([]);
    expect(await store.readStream('document-none', { fromRevision: 2 })).toEqual([]);
    await expect(store.readStream('document-from', { fromRevision: -1 })).rejects.toBeInstanceOf(RangeError);
  });

  it('maps a { success: false } append (throwOnAppendFailure=false) to WrongExpectedRevisionError and reports nothing written', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    await store.append('document-1', [newEvent()], 'no_stream');
    fake.behaviour = 'resolve-failure';
    // Another writer appends between our read of the stream head and our append.
    fake.beforeNextAppend = () => fake.store('document-1', { id: randomUUID(), type: 'Other', data: {}, metadata: {} });

    const append = store.append('document-1', [newEvent('ParticipantAdded')], 0);
    await expect(append).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(append).rejects.toMatchObject({ expected: 0, actual: 1 });
    expect((await store.readStream('document-1')).map((e) => e.type)).toEqual(['DocumentCreated', 'Other']);
  });

  it('an append whose answer was lost after the server committed reports success with the stored positions, once', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    await store.append('document-2', [newEvent()], 'no_stream');
    fake.behaviour = 'lost-after-commit';
    const events = [newEvent('ParticipantAdded'), newEvent('FieldsReplaced')];

    const result = await store.append('document-2', events, 0);

    const stored = await store.readStream('document-2');
    expect(stored.map((e) => e.event_id)).toEqual([stored[0].event_id, events[0].event_id, events[1].event_id]);
    expect(result).toEqual({ next_expected_revision: 2, position: stored[2].global_position });
    expect(fake.appendCalls).toBe(2);
  });

  it('an append whose request never reached the server is sent again, and fails with the client error while none gets through', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    fake.behaviour = 'lost-before-commit';
    // Its last copy's fate is unknown too: only the same events (same ids) may be retried.
    const lost = store.append('document-3', [newEvent()], 'no_stream');
    await expect(lost).rejects.toBeInstanceOf(AppendOutcomeUnknownError);
    await expect(lost).rejects.toMatchObject({ cause: expect.any(UnavailableError) });
    expect(await store.readStream('document-3')).toEqual([]);
    expect(fake.appendCalls).toBe(4);

    // One lost request, then the connection is back: written once.
    fake.behaviour = 'lost-before-commit';
    fake.beforeNextAppend = () => {
      fake.beforeNextAppend = () => (fake.behaviour = 'normal');
    };
    const event = newEvent();
    await expect(store.append('document-3b', [event], 'no_stream')).resolves.toMatchObject({ next_expected_revision: 0 });
    expect((await store.readStream('document-3b')).map((e) => e.event_id)).toEqual([event.event_id]);
  });

  it('a first copy that lands after the check is not doubled by the append sent again', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    await store.append('document-6', [newEvent()], 'no_stream');
    const event = newEvent('ParticipantAdded');
    // The first request is lost in transit; the server writes it only as the second one arrives.
    fake.behaviour = 'lost-before-commit';
    let firstCopy: { id: string; type: string; data: unknown; metadata: unknown } | null = null;
    const append = fake.appendToStream.bind(fake);
    fake.appendToStream = async (stream, input, options) => {
      const [e] = Array.isArray(input) ? input : [input];
      if (!firstCopy) {
        firstCopy = { id: e.id!, type: e.type, data: e.data, metadata: e.metadata };
        return append(stream, input, options);
      }
      fake.behaviour = 'normal';
      fake.store(stream, firstCopy);
      return append(stream, input, options);
    };

    const result = await store.append('document-6', [event], 0);
    const stored = await store.readStream('document-6');
    expect(stored.map((e) => e.type)).toEqual(['DocumentCreated', 'ParticipantAdded']);
    expect(result).toEqual({ next_expected_revision: 1, position: stored[1].global_position });
  });

  it('an append whose answer was lost while another writer took its revision is a revision conflict', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    await store.append('document-4', [newEvent()], 'no_stream');
    fake.behaviour = 'lost-before-commit';
    fake.beforeNextAppend = () => fake.store('document-4', { id: randomUUID(), type: 'Other', data: {}, metadata: {} });
    await expect(store.append('document-4', [newEvent('ParticipantAdded')], 0)).rejects.toMatchObject({
      name: 'WrongExpectedRevisionError',
      actual: 1,
    });
  });

  it.each(['zero', 'absent', 'max'] as const)('refuses events a stream read returns without a commit position (%s)', async (how) => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    await store.append('document-5', [newEvent()], 'no_stream');
    // The real client turns a missing commit position into the protobuf default, 0.
    fake.streamReadPosition = how;
    await expect(store.readStream('document-5')).rejects.toThrow(/without a position; server 22.6 or later/);
  });

  it('refuses text no store keeps alike (the one rule of every store) before sending anything', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    const bad = newEvent();
    bad.data = { title: 'a\u0000b' };
    await expect(store.append('document-6', [bad], 'no_stream')).rejects.toMatchObject({ name: 'UnstorableEventError', path: 'events[0].data.title' });
    expect(fake.appendCalls).toBe(0);
  });

  it('ping resolves when the server answers, and names the store when it does not', async () => {
    const fake = new FakeEsdbClient();
    const store = storeOn(fake);
    await expect(store.ping(1_000)).resolves.toBeUndefined();

    fake.readAllFails = new UnavailableError(undefined, '14 UNAVAILABLE: No connection established');
    await expect(store.ping(1_000)).rejects.toBeInstanceOf(EventStoreUnreachableError);
    await expect(store.ping(1_000)).rejects.toThrow(/UNAVAILABLE/);

    // A server that accepts the connection and never answers.
    fake.readAllFails = 'hang';
    await expect(store.ping(20)).rejects.toThrow(/no answer within 20 ms/);
  });
});
