/**
 * The event store port. The source of truth: every state change of every aggregate is an event
 * appended here. Adapters: SQLite (embedded default) and EventStoreDB (production).
 */

export const EVENT_STORE = Symbol('EVENT_STORE');

/** Metadata stored with every event. `prev_hash` and `hash` are filled in by the store at append. */
export interface EventMetadata {
  occurred_at: string;
  actor: string;
  organization_id?: string;
  livemode?: boolean;
  ip?: string | null;
  user_agent?: string | null;
  correlation_id?: string;
  causation_id?: string;
  schema_version: number;
  prev_hash?: string;
  hash?: string;
  [key: string]: unknown;
}

export interface NewEvent {
  /** UUID; unique across the store, so a retried append of the same event is rejected, not doubled. */
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface StoredEvent extends NewEvent {
  stream_id: string;
  /** 0-based position of the event inside its stream. */
  stream_revision: number;
  /** Position in the global log; strictly increasing in append order, not necessarily dense. */
  global_position: number;
  metadata: EventMetadata & { prev_hash: string; hash: string };
}

/**
 * Expected revision of a stream at append:
 * - 'no_stream': the stream must not exist yet,
 * - a number: the revision of the stream's last event,
 * - 'any': no check (used only for append-only streams with no invariants).
 */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the last appended event. */
  next_expected_revision: number;
  /** Global position of the last appended event: what read-your-writes waits for. */
  position: number;
}

/** Thrown when the expected revision does not match; the command handler re-reads and retries. */
export class WrongExpectedRevisionError extends Error {
  readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** An append repeated an event_id already in the store (a retried append): nothing was written. */
export class DuplicateEventError extends Error {
  readonly name = 'DuplicateEventError';
  constructor(readonly streamId: string) {
    super(`stream ${streamId}: an event with this event_id is already stored`);
  }
}

/**
 * The store could not learn whether an append was written (its connection died around the commit
 * and the store stayed unreachable while it checked). Retrying the very same events (same ids) is
 * safe: event ids are unique, so at most one copy lands; retrying with new ids is not.
 */
export class AppendOutcomeUnknownError extends Error {
  readonly name = 'AppendOutcomeUnknownError';
  constructor(readonly streamId: string, readonly cause: unknown) {
    super(`stream ${streamId}: the append's outcome is unknown (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

/**
 * An append refused before anything was written because an event cannot be stored the same way by
 * every adapter: a value JSON cannot encode (BigInt, a circular object), or text holding NUL,
 * another C0 control character (tab, line feed and carriage return are fine) or an unpaired
 * surrogate, which PostgreSQL's jsonb refuses and the other stores would keep. `path` names the
 * place (`events[1].data.title`).
 */
export class UnstorableEventError extends Error {
  readonly name = 'UnstorableEventError';
  constructor(readonly streamId: string, readonly path: string, reason: string) {
    super(`stream ${streamId}: ${path} ${reason}`);
  }
}

export interface ReadStreamOptions {
  /**
   * Only the events at this revision and after (0-based; default 0, the whole stream): a reader
   * that folded the stream up to revision r already reads on from r + 1, since a stream's events
   * never change. [] when the stream has no event there (or does not exist).
   */
  fromRevision?: number;
}

/** `options.fromRevision` checked (a whole number ≥ 0), as every adapter reads it. */
export function fromRevisionOf(options: ReadStreamOptions): number {
  const from = options.fromRevision ?? 0;
  if (!Number.isSafeInteger(from) || from < 0) throw new RangeError(`fromRevision must be a whole number ≥ 0, not ${String(from)}`);
  return from;
}

export interface EventStore {
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** The events of one stream in revision order (all of them, or from `options.fromRevision`); [] when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /** Events of the global log strictly after `after` (0 = from the start), in order, at most `limit`. */
  readAll(after: number, limit: number): Promise<StoredEvent[]>;
  /** Position of the last event in the global log (0 when empty). */
  headPosition(): Promise<number>;
  /**
   * Calls `listener` whenever new events may be available (after an append by this process, or
   * when the adapter notices appends by other processes). Returns an unsubscribe function.
   * Consumers then read with `readAll` from their own checkpoint: the signal carries no events,
   * so a missed signal can never lose one.
   */
  onAppended(listener: () => void): () => void;
  close(): Promise<void>;
}
