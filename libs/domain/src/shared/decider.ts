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
  /**
   * Optional: the state after `events`, from `state`, in one pass: equal to reducing `evolve`, for
   * an aggregate whose state holds a map per item (a bulk send's rows), where an `evolve` that copies
   * the map per event makes folding a long stream quadratic.
   */
  foldFrom?: (state: State, events: readonly Event[]) => State;
}

/** `events` folded onto `state`: the decider's one-pass fold when it has one, else `evolve` one by one. */
export function foldOnto<S, C, E>(decider: Decider<S, C, E>, state: S, events: readonly E[]): S {
  return decider.foldFrom ? decider.foldFrom(state, events) : events.reduce(decider.evolve, state);
}

export interface DomainEvent<Type extends string = string, Data = Record<string, unknown>> {
  type: Type;
  data: Data;
}

export function fold<S, C, E>(decider: Decider<S, C, E>, events: E[]): S {
  return foldOnto(decider, decider.initialState(), events);
}

/** For exhaustive switches: the compiler proves every variant was handled. */
export function assertNever(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}

/** A command without its timestamp: what callers build before the handler stamps the time. */
export type WithoutNow<C> = C extends unknown ? Omit<C, 'now'> : never;
