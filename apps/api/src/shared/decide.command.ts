import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandContext, CommandSource, Clock, CLOCK, Decision, Infrastructure, inSpan } from '@dojang/application';
import { Decider } from '@dojang/domain';
import { INFRA } from './infrastructure.token';

/**
 * The single command message of the write side: which decider, which stream, which command.
 * Every use case dispatches this through the CommandBus instead of owning a handler copy.
 */
export class DecideCommand<State = unknown, Command = unknown, Event extends { type: string; data: object } = { type: string; data: object }> {
  constructor(
    readonly decider: Decider<State, Command, Event>,
    readonly streamId: string,
    readonly source: CommandSource<State, Command>,
    readonly context: CommandContext,
    /** Wait until projections show the result before answering (read-your-writes). */
    readonly waitForProjections = true,
    /** The stream id was just made up: decide without reading the (empty) stream first. */
    readonly newStream = false,
  ) {}
}

@CommandHandler(DecideCommand)
export class DecideCommandHandler implements ICommandHandler<DecideCommand> {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute(command: DecideCommand): Promise<Decision<unknown, { type: string; data: object }>> {
    const stream = command.streamId.split('-')[0];
    return inSpan(`command ${stream}`, { 'dojang.stream_id': command.streamId }, () => this.decide(command));
  }

  private async decide(command: DecideCommand): Promise<Decision<unknown, { type: string; data: object }>> {
    const decision = await this.infra.commands.execute(
      command.decider,
      command.streamId,
      command.source,
      command.context,
      () => this.clock.now().toISOString(),
      { newStream: command.newStream },
    );
    if (decision.position !== null && command.waitForProjections) {
      if (!(await this.infra.projections.waitFor(decision.position))) {
        // The follower is stuck or slow: project right here rather than answer before the write
        // is visible. The write itself is already durable.
        await this.infra.projections.catchUp();
        if (this.infra.projections.position < decision.position) {
          this.infra.logger.warn({ projections_position: this.infra.projections.position, append_position: decision.position }, 'read-your-writes wait gave up');
        }
      }
    }
    return decision;
  }
}
