import { Decider } from '@dojang/domain';
import { EventStore, StoredEvent } from '@dojang/event-store';
import { Logger } from '../runtime/observability/logger';
import { inSpan } from '../runtime/observability/tracing';
import { ProjectionDriver } from '../runtime/projection-driver';
import { CommandContext, CommandSource, Decision, FoldedStream } from './command-context';
import { GenericCommandHandler } from './command-handler';

export interface DecideOptions<State> {
  /**
   * Wait until the projections show the result before returning (read-your-writes): what an
   * answer to a client needs. A reactor or sweeper that reads nothing back leaves it off.
   */
  waitForProjections?: boolean;
  /** The stream id was just made up: decide without reading the (empty) stream first. */
  newStream?: boolean;
  /**
   * The stream as the caller last folded it (a bulk send's worker, one command per window of rows
   * on a stream of thousands of events): only the events after it are read.
   */
  known?: FoldedStream<State>;
}

/**
 * The one way into the write side. Controllers reach it through the CommandBus (DecideCommand);
 * services, reactors, sweepers, the CLI and the worker call it directly. Each command gets the
 * same span (`command <stream kind>`), the same decide-and-append (GenericCommandHandler: retries,
 * per-stream ordering, idempotent event ids) and, when asked, the same read-your-writes wait. The
 * handler itself is reachable only from here: the dependency rule `one-write-path`
 * (.dependency-cruiser.js) refuses any other import of command-handler.ts, so a new caller cannot
 * bypass the span or the wait by accident.
 */
export class CommandEntry {
  private readonly handler: GenericCommandHandler;

  constructor(
    events: EventStore,
    /** What read-your-writes waits on; null in a process that runs no projections (a unit test). */
    private readonly projections: ProjectionDriver | null = null,
    private readonly logger: Pick<Logger, 'warn'> | null = null,
    handler?: GenericCommandHandler,
  ) {
    this.handler = handler ?? new GenericCommandHandler(events);
  }

  decide<State, Command, Event extends { type: string; data: object }>(
    decider: Decider<State, Command, Event>,
    streamId: string,
    source: CommandSource<State, Command>,
    context: CommandContext,
    now: () => string,
    options: DecideOptions<State> = {},
  ): Promise<Decision<State, Event>> {
    // A wiring mistake, refused before anything is written rather than after.
    if (options.waitForProjections && !this.projections) return Promise.reject(new Error('read-your-writes asked of a command entry with no projections'));
    const kind = streamId.split('-')[0];
    return inSpan(`command ${kind}`, { 'dojang.stream_id': streamId }, async () => {
      const decision = options.known
        ? await this.handler.executeFrom(decider, streamId, options.known, source, context, now)
        : await this.handler.execute(decider, streamId, source, context, now, { newStream: options.newStream });
      if (decision.position !== null && options.waitForProjections) await this.visible(decision.position);
      return decision;
    });
  }

  /** Until the projections have applied `position`: the write itself is already durable. */
  async visible(position: number): Promise<void> {
    if (!this.projections) throw new Error('read-your-writes asked of a command entry with no projections');
    if (await this.projections.waitFor(position)) return;
    // The follower is stuck or slow: project right here rather than answer before the write is visible.
    await this.projections.catchUp();
    if (this.projections.position < position) {
      this.logger?.warn({ projections_position: this.projections.position, append_position: position }, 'read-your-writes wait gave up');
    }
  }

  /** The stream's state, read whole (a read: no span of its own, nothing written). */
  load<State, Command, Event>(decider: Decider<State, Command, Event>, streamId: string): Promise<{ state: State; events: StoredEvent[] }> {
    return this.handler.load(decider, streamId);
  }

  /** The stream's state read on from `known` (the whole stream without it). */
  loadFrom<State, Command, Event>(
    decider: Decider<State, Command, Event>,
    streamId: string,
    known: FoldedStream<State> | null,
  ): Promise<FoldedStream<State> & { events: StoredEvent[] }> {
    return this.handler.loadFrom(decider, streamId, known);
  }
}
