import { randomUUID } from 'crypto';
import { Decider, foldOnto } from '@dojang/domain';
import {
  AppendOutcomeUnknownError,
  AppendResult,
  DuplicateEventError,
  EventMetadata,
  EventStore,
  StoredEvent,
  WrongExpectedRevisionError,
} from '@dojang/event-store';
import { upcast } from '@dojang/projections';
import { CommandContext, CommandSource, ConcurrentModificationError, Decision, ExecuteOptions, FoldedStream, SCHEMA_VERSION } from './command-context';

/**
 * The one command handler: read the stream, fold it, decide, append with the expected revision.
 * On a revision conflict somebody else wrote first, so it re-reads and decides again.
 *
 * Within one process, the commands for one stream run one at a time: writers racing on one
 * document in the same process would otherwise all read the same revision, all but one lose the
 * append, and a burst of them burns through the retries. Retries remain for the writers of other
 * processes (ROLE=api replicas, the worker, the CLI).
 */
export class GenericCommandHandler {
  /** The last queued command of each stream with one running or waiting. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly store: EventStore,
    private readonly retries = 8,
    /** First pause before trying again after an append whose outcome is unknown; doubled each time. */
    private readonly outcomeRetryDelayMs = 250,
    /** How many times a command whose append's outcome stays unknown tries again before giving up. */
    private readonly outcomeRetries = 4,
  ) {}

  async execute<State, Command, Event extends { type: string; data: object }>(
    decider: Decider<State, Command, Event>,
    streamId: string,
    source: CommandSource<State, Command>,
    context: CommandContext,
    now: () => string,
    options: ExecuteOptions = {},
  ): Promise<Decision<State, Event>> {
    return this.serialized(streamId, () => this.decideAndAppend(decider, streamId, null, source, context, now, options));
  }

  /**
   * `execute` for a caller that keeps the stream's state between commands (a bulk send's worker,
   * one command per window of rows on a stream of thousands of events): only the events after
   * `known.revision` are read (also on each retry), folded onto `known.state`, and the append
   * expects the revision last read. Everything else as `execute`; the decision's `state` and
   * `revision` are what to keep for the next command. Under derived event ids (`event_ids`) only
   * the events after `known` are searched for an earlier attempt's.
   */
  async executeFrom<State, Command, Event extends { type: string; data: object }>(
    decider: Decider<State, Command, Event>,
    streamId: string,
    known: FoldedStream<State>,
    source: CommandSource<State, Command>,
    context: CommandContext,
    now: () => string,
  ): Promise<Decision<State, Event>> {
    return this.serialized(streamId, () => this.decideAndAppend(decider, streamId, known, source, context, now, {}));
  }

  private async serialized<T>(streamId: string, run: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(streamId);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(streamId, mine);
    try {
      if (previous) await previous;
      return await run();
    } finally {
      if (this.tails.get(streamId) === mine) this.tails.delete(streamId);
      release();
    }
  }

  private async decideAndAppend<State, Command, Event extends { type: string; data: object }>(
    decider: Decider<State, Command, Event>,
    streamId: string,
    known: FoldedStream<State> | null,
    source: CommandSource<State, Command>,
    context: CommandContext,
    now: () => string,
    options: ExecuteOptions,
  ): Promise<Decision<State, Event>> {
    const base: FoldedStream<State> = known ?? { state: decider.initialState(), revision: -1 };
    // The event ids of an append whose outcome is unknown (its store lost the answer and could
    // not tell). Every later attempt of this command reuses them, so at most one of its appends
    // can ever land (event ids are unique in every store), and each read looks for them first.
    let inDoubt: string[] | null = null;
    let doubts = 0;
    // Under an Idempotency-Key the ids are the request's own, known before anything is read.
    const derived = context.event_ids?.next(streamId) ?? null;
    for (let attempt = 0; ; attempt++) {
      let stored: StoredEvent[];
      try {
        // A made-up id names an empty stream: one read fewer per creation.
        stored = attempt === 0 && options.newStream ? [] : await this.readAfter(streamId, base.revision);
      } catch (err) {
        if (!inDoubt) throw err;
        // Still unknown: the store cannot be read either.
        if (++doubts > this.outcomeRetries) throw new AppendOutcomeUnknownError(streamId, err);
        await sleep(this.outcomeRetryDelayMs * 2 ** (doubts - 1));
        continue;
      }
      const history = stored.map(upcast);
      if (derived) {
        // An earlier attempt of this very request (same key, same body) already wrote this command.
        const landed = landedDecision(decider, base, history, derived);
        if (landed) {
          context.event_ids!.replayed();
          return landed;
        }
      }
      if (inDoubt) {
        const doubted = inDoubt;
        const landed = landedDecision(decider, base, history, (i) => doubted[i]);
        if (landed) return landed;
      }
      const before = foldOnto(decider, base.state, history as unknown as Event[]);
      const read = history.length === 0 ? base.revision : history[history.length - 1].stream_revision;
      const command = typeof source === 'function' ? await (source as (s: State) => Command | Promise<Command>)(before) : source;
      const events = decider.decide(command, before);
      if (events.length === 0) return { before, state: before, events, position: null, revision: read };
      const occurred_at = now();
      const metadata: EventMetadata = {
        occurred_at,
        actor: context.actor,
        organization_id: context.organization_id,
        livemode: context.livemode,
        ip: context.ip ?? null,
        user_agent: context.user_agent ?? null,
        correlation_id: context.correlation_id,
        causation_id: context.causation_id,
        schema_version: SCHEMA_VERSION,
      };
      const ids = events.map((_, i) => inDoubt?.[i] ?? derived?.(i) ?? randomUUID());
      let result: AppendResult;
      try {
        result = await this.store.append(
          streamId,
          events.map((e, i) => ({ event_id: ids[i], type: e.type, data: e.data as Record<string, unknown>, metadata })),
          read < 0 ? 'no_stream' : read,
        );
      } catch (err) {
        if (err instanceof AppendOutcomeUnknownError) {
          if (++doubts > this.outcomeRetries) throw err;
          // The first ids in doubt stay the ones reused: any copy that lands carries them.
          inDoubt ??= ids;
          await sleep(this.outcomeRetryDelayMs * 2 ** (doubts - 1));
          continue;
        }
        // With ids in doubt or derived, a refusal may be the earlier copy having landed (or landing
        // meanwhile, a retry racing its first attempt): the next read tells.
        if ((inDoubt || derived) && err instanceof DuplicateEventError) {
          if (attempt >= this.retries) throw err;
          continue;
        }
        if (err instanceof WrongExpectedRevisionError) {
          if (attempt >= this.retries) throw new ConcurrentModificationError(streamId, attempt + 1);
          // Jittered back-off so racing writers don't collide again in lockstep.
          await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
          continue;
        }
        throw err;
      }
      const state = foldOnto(decider, before, events);
      return { before, state, events, position: result.position, revision: result.next_expected_revision };
    }
  }

  /** The events after `revision` (all of them for -1), read from the store. */
  private readAfter(streamId: string, revision: number): Promise<StoredEvent[]> {
    return revision < 0 ? this.store.readStream(streamId) : this.store.readStream(streamId, { fromRevision: revision + 1 });
  }

  async load<State, Command, Event>(decider: Decider<State, Command, Event>, streamId: string): Promise<{ state: State; events: StoredEvent[] }> {
    const events = (await this.store.readStream(streamId)).map(upcast);
    return { state: foldOnto(decider, decider.initialState(), events as unknown as Event[]), events };
  }

  /**
   * The stream's state read on from `known` (the whole stream without it): the events after
   * `known.revision`, folded onto `known.state`. `events` are only those read.
   */
  async loadFrom<State, Command, Event>(
    decider: Decider<State, Command, Event>,
    streamId: string,
    known: FoldedStream<State> | null,
  ): Promise<FoldedStream<State> & { events: StoredEvent[] }> {
    const base = known ?? { state: decider.initialState(), revision: -1 };
    const events = (await this.readAfter(streamId, base.revision)).map(upcast);
    return {
      state: foldOnto(decider, base.state, events as unknown as Event[]),
      revision: events.length === 0 ? base.revision : events[events.length - 1].stream_revision,
      events,
    };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The decision an earlier attempt of this command wrote, if the stream holds it: the run of events
 * whose ids are the command's (`idAt(0)`, `idAt(1)`, …; an append is atomic), with the state
 * before and after it. `history` is the stream after `base` (all of it from the initial state).
 */
function landedDecision<State, Command, Event>(
  decider: Decider<State, Command, Event>,
  base: FoldedStream<State>,
  history: StoredEvent[],
  idAt: (index: number) => string | undefined,
): Decision<State, Event> | null {
  const firstId = idAt(0);
  const first = firstId === undefined ? -1 : history.findIndex((e) => e.event_id === firstId);
  if (first < 0) return null;
  let end = first + 1;
  while (end < history.length && history[end].event_id === idAt(end - first)) end++;
  const fold = (events: StoredEvent[], from: State) => foldOnto(decider, from, events as unknown as Event[]);
  const before = fold(history.slice(0, first), base.state);
  const mine = history.slice(first, end);
  return {
    before,
    state: fold(mine, before),
    events: mine.map((e) => ({ type: e.type, data: e.data }) as unknown as Event),
    position: mine[mine.length - 1].global_position,
    revision: history[history.length - 1].stream_revision,
  };
}
