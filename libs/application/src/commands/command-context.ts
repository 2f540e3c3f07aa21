/**
 * What a command is given and what it gives back: the types every caller of the write side
 * (controllers, services, reactors) names, apart from the handler that runs them, so naming a
 * type never hands a caller the handler itself (see command-entry.ts).
 */
export interface CommandContext {
  actor: string;
  organization_id?: string;
  livemode?: boolean;
  ip?: string | null;
  user_agent?: string | null;
  correlation_id?: string;
  causation_id?: string;
  /** Set for a request under an Idempotency-Key: its events' ids, the same on every retry of it. */
  event_ids?: RequestEventIds;
}

/**
 * The event ids of one request that a client may retry (the API's Idempotency-Key): each command
 * the request runs on a stream gets ids derived from the key, the stream and the command's place
 * among the request's commands on that stream. A retry that runs the route again after its first
 * attempt wrote (the key's settle lost, a read after the write that failed) therefore finds its
 * own events in the stream and answers with them instead of deciding again: no second send, no
 * second reminder, no second bulk job. Event ids are unique in every store, so an append of the
 * same ids can never land twice either.
 */
export interface RequestEventIds {
  /** The ids of the request's next command on `streamId`: event index → event id. */
  next(streamId: string): (index: number) => string;
  /** A command's events were already written by an earlier attempt of the request: nothing new was written for it. */
  replayed(): void;
}

export interface Decision<State, Event> {
  /** The state before the command. */
  before: State;
  /** The state after the new events. */
  state: State;
  events: Event[];
  /** Where the append landed in the global log; null when the decision produced no event. */
  position: number | null;
  /** The revision of the stream's last event after the decision (-1: the stream has none). */
  revision: number;
}

/**
 * A stream folded up to a revision, which a caller keeps to read on from there (`executeFrom`,
 * `loadFrom`) instead of reading the whole stream again: a stream's events never change, so the
 * state at revision r plus the events after r is the state a whole read would fold.
 */
export interface FoldedStream<State> {
  state: State;
  /** The revision of the last event folded into `state`; -1 for none (the stream did not exist). */
  revision: number;
}

export interface ExecuteOptions {
  /**
   * The stream id was just made up (a random UUID): decide from the empty stream without reading
   * it, and append as `no_stream`. Should the stream exist after all, that append is refused and
   * the command is decided again from what is stored, as after any conflict.
   */
  newStream?: boolean;
}

/** A command, or a function that builds it from the current state (e.g. to build a final PDF). */
export type CommandSource<State, Command> = Command | ((state: State) => Command | Promise<Command>);

/** 2: document and template bodies are blob refs (`content_blob`), see docs/EVENTS.md. */
export const SCHEMA_VERSION = 2;

/**
 * Every retry of a command lost its append to another writer. Nothing was written; the client may
 * send the request again.
 */
export class ConcurrentModificationError extends Error {
  readonly code = 'concurrent_modification';
  constructor(readonly streamId: string, readonly attempts: number) {
    super(`${streamId} kept changing under ${attempts} attempts to write it.`);
    this.name = 'ConcurrentModificationError';
  }
}
