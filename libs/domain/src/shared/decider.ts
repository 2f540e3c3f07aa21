/**
 * A decider is the whole behaviour of one aggregate as three pure values: what it is before
 * anything happened, how an event changes it, and which events a command produces from it.
 * Time and ids come in with the command, so a decision replays identically.
 */
export interface Decider<State, Command, Event> {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  /** Returns the new events, or throws a DomainError. An empty array means "nothing to do". */
  decide: (command: Command, state: State) => Event[];
}

export interface DomainEvent<Type extends string = string, Data = Record<string, unknown>> {
  type: Type;
  data: Data;
}

export function fold<S, C, E>(decider: Decider<S, C, E>, events: E[]): S {
  return events.reduce(decider.evolve, decider.initialState());
}

/** For exhaustive switches: the compiler proves every variant was handled. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}

/** A command without its timestamp: what callers build before the handler stamps the time. */
export type WithoutNow<C> = C extends unknown ? Omit<C, 'now'> : never;
