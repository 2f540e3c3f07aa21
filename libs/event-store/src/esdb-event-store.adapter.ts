import {
  AllStreamRecordedEvent,
  AllStreamSubscription,
  BACKWARDS,
  CancelledError,
  DeadlineExceededError,
  END,
  EventData,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  Position,
  ReadPosition,
  RecordedEvent,
  START,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
} from '@eventstore/db-client';
import {
  AppendOutcomeUnknownError,
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadStreamOptions,
  StoredEvent,
  WrongExpectedRevisionError,
  DuplicateEventError,
  fromRevisionOf,
} from './event-store.port';
import { GENESIS_HASH, eventHash } from './hash-chain';
import { assertStorableEvents } from './storable-events';

export interface EsdbEventStoreOptions {
  /**
   * How many times an append with expected revision 'any' re-reads the stream head after losing a
   * race. The chain needs the previous event's hash, so 'any' is turned into "the revision I just
   * read" and a lost race means re-reading and re-hashing, not appending blindly.
   */
  maxAnyAttempts?: number;
  /** How many of a stream's latest events an 'any' append checks for a repeated event_id. */
  duplicateWindow?: number;
  /** Delay before re-subscribing to $all after the subscription dropped. */
  resubscribeDelayMs?: number;
  /**
   * How many times an append whose outcome is unknown (timeout, connection lost) re-reads the
   * stream to learn whether it landed, and the pause before each re-read.
   */
  outcomeChecks?: number;
  outcomeCheckDelayMs?: number;
}

/** The part of the client this store calls: what tests fake, and all a deployment needs. */
export type EsdbClient = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'>;

/** A store that may be unreachable at boot answers this, naming itself. */
export class EventStoreUnreachableError extends Error {
  readonly name = 'EventStoreUnreachableError';
}

/** Events read back from $all with a position; stream reads only carry one from server 22.6 on. */
type Recorded = RecordedEvent | AllStreamRecordedEvent;

/**
 * Event store on EventStoreDB. Durability: the server acknowledges an append only after its own
 * fsync. Optimistic concurrency maps onto the server's expected revision; the hash chain is
 * computed here from the stream's last event, so every append (even 'any') is sent with the
 * exact revision the chain was computed against.
 *
 * Positions: for the implicit transactions every gRPC append is, each event's commit position
 * equals its prepare position and is unique in the log, so it serves as `global_position`.
 */
export class EsdbEventStore implements EventStore {
  private readonly client: EsdbClient;
  private readonly listeners = new Set<() => void>();
  private subscription: AllStreamSubscription | null = null;
  private resubscribeTimer: NodeJS.Timeout | null = null;
  private closed = false;

  /** `connection`: an `esdb://` connection string, or a client (shared, or a test's fake). */
  constructor(
    connection: string | EsdbClient,
    private readonly options: EsdbEventStoreOptions = {},
  ) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  /**
   * One cheap round trip (the last event of $all, which every reader of the log may read), so a
   * process learns at boot, within `timeoutMs`, that the server does not answer, instead of at its
   * first request. Rejects with EventStoreUnreachableError.
   */
  async ping(timeoutMs: number): Promise<void> {
    const read = (async () => {
      for await (const _ of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, deadline: timeoutMs })) break;
    })();
    let timer: NodeJS.Timeout | undefined;
    // The gRPC deadline covers the call; this covers a client still resolving or connecting.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs + 250);
    });
    try {
      await Promise.race([read, late]);
    } catch (err) {
      read.catch(() => undefined);
      throw new EventStoreUnreachableError((err as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append of no events');
    assertDistinctIds(streamId, events);
    // The rule every store keeps, so a log moves between stores unchanged.
    assertStorableEvents(streamId, events);
    const attempts = expected === 'any' ? Math.max(1, this.options.maxAnyAttempts ?? 10) : 1;
    const window = expected === 'any' ? Math.max(1, this.options.duplicateWindow ?? 16) : 1;

    for (let attempt = 1; ; attempt++) {
      const tail = await this.readTail(streamId, window);
      const last = tail[0];
      const actual: number | 'no_stream' = last ? Number(last.revision) : 'no_stream';
      // Checked here rather than left to the server: the server treats a retry of an append that
      // already succeeded as idempotent and answers success, while the port promises rejection.
      if (expected !== 'any' && expected !== actual) {
        throw new WrongExpectedRevisionError(streamId, expected, actual);
      }
      if (expected === 'any') assertNotInTail(streamId, events, tail);

      let prevHash = GENESIS_HASH;
      if (last) {
        const hash = (last.metadata as Partial<EventMetadata> | undefined)?.hash;
        if (typeof hash !== 'string') {
          throw new Error(`stream ${streamId}: last event ${last.id} carries no hash; the stream was not written by this store`);
        }
        prevHash = hash;
      }
      let revision = actual === 'no_stream' ? -1 : actual;
      const toWrite = events.map((event) => {
        revision += 1;
        // Hash what the server will hand back: JSON, not the caller's objects (Dates, undefined).
        const data = asJson(event.data);
        const metadata = asJson(event.metadata);
        const hash = eventHash({ event_id: event.event_id, stream_id: streamId, stream_revision: revision, type: event.type, data, metadata }, prevHash);
        const chained = { ...metadata, prev_hash: prevHash, hash };
        prevHash = hash;
        return jsonEvent({ id: event.event_id, type: event.type, data, metadata: chained });
      });

      let conflict: number | 'no_stream';
      try {
        const result = await this.client.appendToStream(streamId, toWrite, {
          expectedRevision: actual === 'no_stream' ? NO_STREAM : BigInt(actual),
        });
        // A client made with throwOnAppendFailure=false reports a revision conflict this way
        // (nextExpectedRevision is then the stream's current revision, -1 for none); nothing
        // was written.
        if (!result.success) throw new AppendRejected(result.nextExpectedRevision);
        const nextRevision = result.nextExpectedRevision;
        const known = knownCommit(result.position?.commit);
        const position = known !== undefined ? Number(known) : await this.positionOf(streamId, nextRevision);
        this.notify();
        return { next_expected_revision: Number(nextRevision), position };
      } catch (err) {
        if (err instanceof WrongExpectedVersionError) {
          const current = err.actualVersion;
          conflict = typeof current === 'bigint' ? Number(current) : 'no_stream';
        } else if (err instanceof AppendRejected) {
          conflict = err.current < 0n ? 'no_stream' : Number(err.current);
        } else if (isUnknownOutcome(err)) {
          // The server may have written the events before the answer was lost. Answering an
          // error then would let the caller retry a command that already took effect.
          const outcome = await this.settle(streamId, actual, events, toWrite, err);
          if (outcome !== 'taken') {
            this.notify();
            return outcome;
          }
          conflict = (await this.readTail(streamId, 1)).map((e) => Number(e.revision))[0] ?? 'no_stream';
        } else {
          throw err;
        }
        if (attempt < attempts) {
          // Jitter so that writers that collided do not collide again on the next round.
          await sleep(Math.floor(Math.random() * 10 * attempt));
          continue;
        }
        throw new WrongExpectedRevisionError(streamId, expected, conflict);
      }
    }
  }

  /**
   * After an append whose answer was lost: learns whether it landed, and while it has not, sends
   * the very same append again. The server answers a repeat of an append it already wrote (same
   * event ids at the same expected revision) with success and writes nothing, so a first copy
   * that lands late, after the check, is not doubled either. 'taken': another writer holds the
   * revision. Fails with AppendOutcomeUnknownError (the last client error its cause) when the server cannot tell.
   */
  private async settle(streamId: string, actual: number | 'no_stream', events: NewEvent[], toWrite: EventData[], lost: unknown): Promise<AppendResult | 'taken'> {
    let last = lost;
    for (let round = 1; round <= Math.max(1, this.options.outcomeChecks ?? 3); round++) {
      const outcome = await this.appendOutcome(streamId, actual, events);
      if (outcome === 'unknown') throw new AppendOutcomeUnknownError(streamId, last);
      if (outcome !== 'absent') return outcome;
      try {
        const result = await this.client.appendToStream(streamId, toWrite, {
          expectedRevision: actual === 'no_stream' ? NO_STREAM : BigInt(actual),
        });
        if (!result.success) return 'taken';
        const known = knownCommit(result.position?.commit);
        const position = known !== undefined ? Number(known) : await this.positionOf(streamId, result.nextExpectedRevision);
        return { next_expected_revision: Number(result.nextExpectedRevision), position };
      } catch (err) {
        if (err instanceof WrongExpectedVersionError) return 'taken';
        if (!isUnknownOutcome(err)) throw err;
        last = err;
      }
    }
    throw new AppendOutcomeUnknownError(streamId, last);
  }

  /**
   * After an append whose answer was lost: reads the revisions the append was meant to take.
   * Our event ids there → it landed (the stored positions are the result); other events there → it
   * lost a race ('taken'); nothing there → it was not written ('absent'). 'unknown' when the
   * server cannot be read either.
   */
  private async appendOutcome(streamId: string, actual: number | 'no_stream', events: NewEvent[]): Promise<AppendResult | 'taken' | 'absent' | 'unknown'> {
    const checks = Math.max(1, this.options.outcomeChecks ?? 3);
    const first = actual === 'no_stream' ? 0 : actual + 1;
    for (let check = 1; check <= checks; check++) {
      await sleep((this.options.outcomeCheckDelayMs ?? 200) * check);
      const found: Recorded[] = [];
      try {
        for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: BigInt(first), maxCount: events.length })) {
          if (resolved.event) found.push(resolved.event);
        }
      } catch (err) {
        if (err instanceof StreamNotFoundError) return 'absent';
        continue;
      }
      if (found.length === 0) return 'absent';
      // An append is atomic: all of its events or none.
      if (found.length !== events.length || found.some((e, i) => e.id !== events[i].event_id)) return 'taken';
      const last = found[found.length - 1];
      const commit = commitOf(last);
      return {
        next_expected_revision: Number(last.revision),
        position: commit !== undefined ? Number(commit) : await this.positionOf(streamId, last.revision),
      };
    }
    return 'unknown';
  }

  /** The stream's latest events, newest first; [] when the stream does not exist. */
  private async readTail(streamId: string, count: number): Promise<Recorded[]> {
    const out: Recorded[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: count })) {
        if (resolved.event) out.push(resolved.event);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  /** Fallback when the server did not return a position (e.g. an append it judged idempotent). */
  private async positionOf(streamId: string, revision: bigint): Promise<number> {
    for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: revision, maxCount: 1 })) {
      const commit = resolved.event ? commitOf(resolved.event) : undefined;
      if (commit !== undefined) return Number(commit);
    }
    // Never below the event's real position, so read-your-writes waits long enough.
    return this.headPosition();
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const from = fromRevisionOf(options);
    const out: StoredEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: from > 0 ? BigInt(from) : START })) {
        if (resolved.event) out.push(toStored(resolved.event));
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    if (limit <= 0) return out;
    let cursor = after;
    // System events are filtered out client-side (readAll has no server-side filter in this
    // client), so one page may not be enough to fill `limit`.
    while (out.length < limit) {
      // +1: a read from a position includes the event at that position, which was already delivered.
      const want = limit - out.length + 1;
      let seen = 0;
      let furthest = cursor;
      for await (const resolved of this.client.readAll({ fromPosition: positionAt(cursor), maxCount: want })) {
        seen++;
        const event = resolved.event;
        if (!event) continue;
        const position = Number(event.position.commit);
        if (position <= cursor) continue;
        furthest = Math.max(furthest, position);
        if (isSystem(event) || !event.isJson) continue;
        out.push(toStored(event));
        if (out.length >= limit) break;
      }
      if (seen < want || furthest === cursor) break;
      cursor = furthest;
    }
    return out;
  }

  async headPosition(): Promise<number> {
    let from: ReadPosition = END;
    let pageSize = 1;
    let lowest: bigint | null = null;
    for (;;) {
      let seen = 0;
      let pageLowest: Position | null = null;
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: pageSize })) {
        seen++;
        const event: AllStreamRecordedEvent | undefined = resolved.event;
        if (!event) continue;
        if (!isSystem(event) && event.isJson) return Number(event.position.commit);
        if (!pageLowest || event.position.commit < pageLowest.commit) pageLowest = event.position;
      }
      if (seen === 0 || !pageLowest) return 0;
      // No progress backwards means the start of the log: only system events there.
      if (lowest !== null && pageLowest.commit >= lowest) return 0;
      lowest = pageLowest.commit;
      from = pageLowest;
      pageSize = 64;
    }
  }

  onAppended(listener: () => void): () => void {
    this.listeners.add(listener);
    this.ensureSubscription();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopSubscription();
    };
  }

  private ensureSubscription() {
    if (this.subscription || this.resubscribeTimer || this.closed) return;
    const subscription = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    this.subscription = subscription;
    subscription.on('data', () => this.notify());
    // Appends made between the call to onAppended and the server confirming the subscription
    // would otherwise go unsignalled.
    subscription.on('confirmation', () => this.notify());
    const dropped = () => {
      if (this.subscription !== subscription) return;
      this.subscription = null;
      if (this.closed || this.listeners.size === 0) return;
      this.resubscribeTimer = setTimeout(() => {
        this.resubscribeTimer = null;
        this.ensureSubscription();
      }, this.options.resubscribeDelayMs ?? 1000);
      this.resubscribeTimer.unref();
    };
    subscription.on('error', dropped);
    subscription.on('end', dropped);
    subscription.on('close', dropped);
  }

  private stopSubscription() {
    if (this.resubscribeTimer) clearTimeout(this.resubscribeTimer);
    this.resubscribeTimer = null;
    const subscription = this.subscription;
    this.subscription = null;
    if (subscription) subscription.unsubscribe().catch(() => undefined);
  }

  private notify() {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the append has succeeded.
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.stopSubscription();
    await this.client.dispose();
  }
}

function positionAt(after: number): ReadPosition {
  if (after <= 0) return START;
  const p = BigInt(after);
  return { commit: p, prepare: p };
}

function isSystem(event: Recorded): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The server would store both; SQLite's unique index rejects them, and so do we. */
function assertDistinctIds(streamId: string, events: NewEvent[]) {
  const ids = new Set<string>();
  for (const event of events) {
    if (ids.has(event.event_id)) throw new DuplicateEventError(streamId);
    ids.add(event.event_id);
  }
}

/**
 * EventStoreDB does not index event ids, so a retried 'any' append (the one mode with no revision
 * to catch it) is caught by comparing with the stream's latest events.
 */
function assertNotInTail(streamId: string, events: NewEvent[], tail: Recorded[]) {
  const recent = new Set(tail.map((e) => e.id));
  for (const event of events) {
    if (recent.has(event.event_id)) throw new DuplicateEventError(streamId);
  }
}

/** Thrown inside append for a `{ success: false }` answer, so it takes the conflict path. */
class AppendRejected extends Error {
  constructor(readonly current: bigint) {
    super('append rejected: wrong expected revision');
  }
}

/**
 * Errors after which the append may or may not have been written: the request may have reached
 * the server, which committed, and only the answer was lost.
 */
function isUnknownOutcome(err: unknown): boolean {
  if (
    err instanceof TimeoutError ||
    err instanceof DeadlineExceededError ||
    err instanceof UnavailableError ||
    err instanceof CancelledError ||
    err instanceof UnknownError
  ) {
    return true;
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT';
}

/**
 * An event's commit position, or undefined when the server sent none. Stream reads carry one only
 * from server 22.6 on; before that the server sends 2^64 - 1 ("none"), or the client fills in the
 * protobuf default, 0, which no non-system event can have (the log starts with the server's own
 * epoch records).
 */
function commitOf(event: Recorded): bigint | undefined {
  return knownCommit(event.position?.commit);
}

/** "No position" on the wire: servers before 22.6 send 2^64 - 1 on stream reads, the client's default is 0. */
const NO_POSITION = 2n ** 64n - 1n;

function knownCommit(commit: bigint | undefined): bigint | undefined {
  return commit === undefined || commit <= 0n || commit >= NO_POSITION ? undefined : commit;
}

function toStored(event: Recorded): StoredEvent {
  const commit = commitOf(event);
  if (commit === undefined) {
    throw new Error('EventStoreDB returned an event without a position; server 22.6 or later is required');
  }
  if (!event.isJson) throw new Error(`event ${event.id} in ${event.streamId} is not JSON`);
  return {
    event_id: event.id,
    stream_id: event.streamId,
    stream_revision: Number(event.revision),
    global_position: Number(commit),
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: event.metadata as StoredEvent['metadata'],
  };
}
