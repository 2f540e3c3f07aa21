import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CommandContext, CommandSource, Clock, CLOCK, Decision, Infrastructure } from '@dojang/application';
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

/**
 * Nest's door to the one command entry (libs/application commands/command-entry.ts), which opens
 * the span, decides, appends and waits; the clock is the only thing Nest adds.
 */
@CommandHandler(DecideCommand)
export class DecideCommandHandler implements ICommandHandler<DecideCommand> {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute(command: DecideCommand): Promise<Decision<unknown, { type: string; data: object }>> {
    return this.infra.commands.decide(command.decider, command.streamId, command.source, command.context, () => this.clock.now().toISOString(), {
      waitForProjections: command.waitForProjections,
      newStream: command.newStream,
    });
  }
}
