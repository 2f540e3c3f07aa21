/**
 * Given / when / then for deciders (in the style of Emmett's DeciderSpecification), for tests only.
 *
 *   const spec = DeciderSpecification.for(documentDecider);
 *   spec.given([created()]).when(send()).then([sentEvent]);
 *   spec.given([]).when(send()).thenThrows('document_not_found', 'not_found');
 *   spec.given([created(), sent()]).when(expire()).thenNothing();
 *
 * The state is folded from the given events with the decider's own `evolve`; the given events, the
 * folded state and the command are deep-frozen first, so a decider (or evolve) that mutates its
 * input fails loudly instead of passing by accident. `then` returns the state after the new events,
 * so a test can also check what the events do once folded.
 */
import { Decider } from './decider';
import { DomainError, DomainErrorKind } from './domain-error';

export interface ThrowsExpectation {
  kind?: DomainErrorKind;
  /** Exact param, when the error names one. */
  param?: string;
  /** Substring or pattern the message must match. */
  message?: string | RegExp;
}

export interface WhenStep<State, Event> {
  /** The command produced exactly these events (deep equality, in order). Returns the state after them. */
  then(expected: Event[]): State;
  /** The command produced events satisfying `check` (for events with generated or derived parts). */
  thenEvents(check: (events: Event[], before: State) => void): State;
  /** The command was refused with a DomainError of this code (and optionally kind / param / message). */
  thenThrows(code: string, expected?: DomainErrorKind | ThrowsExpectation): DomainError;
  /** The command was accepted and had nothing to do: an empty array, not an error. */
  thenNothing(): State;
}

export interface GivenStep<State, Command, Event> {
  when(command: Command): WhenStep<State, Event>;
}

export interface DeciderSpec<State, Command, Event> {
  given(events: Event[]): GivenStep<State, Command, Event>;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value as object)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** A deep copy (keeps NaN, Infinity and undefined), so freezing never touches the caller's fixtures. */
const clone = <T>(value: T): T => structuredClone(value);

function describeOutcome(run: () => unknown): string {
  try {
    return `returned ${JSON.stringify(run(), null, 2)}`;
  } catch (e) {
    return e instanceof DomainError ? `threw DomainError ${e.kind}/${e.code}: ${e.message}` : `threw ${String(e)}`;
  }
}

export const DeciderSpecification = {
  for<State, Command, Event>(decider: Decider<State, Command, Event>): DeciderSpec<State, Command, Event> {
    return {
      given(givenEvents: Event[]) {
        const history = deepFreeze(clone(givenEvents));
        return {
          when(rawCommand: Command) {
            const command = deepFreeze(clone(rawCommand));
            const foldState = (events: Event[]) => events.reduce(decider.evolve, decider.initialState());
            const before = () => deepFreeze(foldState(history));
            const decide = () => decider.decide(command, before());
            const after = (produced: Event[]) => foldState([...history, ...clone(produced)]);

            const decideOrFail = (): Event[] => {
              try {
                return decide();
              } catch (e) {
                const what = e instanceof DomainError ? `DomainError ${e.kind}/${e.code}: ${e.message}` : String(e);
                throw new Error(`expected the command to be accepted, but it threw ${what}`);
              }
            };

            return {
              then(expected: Event[]): State {
                const produced = decideOrFail();
                expect(produced).toEqual(expected);
                return after(produced);
              },
              thenEvents(check: (events: Event[], state: State) => void): State {
                const produced = decideOrFail();
                check(produced, before());
                return after(produced);
              },
              thenNothing(): State {
                const produced = decideOrFail();
                expect(produced).toEqual([]);
                return after(produced);
              },
              thenThrows(code: string, expected?: DomainErrorKind | ThrowsExpectation): DomainError {
                let error: unknown;
                try {
                  decide();
                } catch (e) {
                  error = e;
                }
                if (error === undefined) {
                  throw new Error(`expected DomainError "${code}", but the command ${describeOutcome(decide)}`);
                }
                if (!(error instanceof DomainError)) {
                  throw new Error(`expected DomainError "${code}", but got ${String(error)}`);
                }
                const exp: ThrowsExpectation = typeof expected === 'string' ? { kind: expected } : expected ?? {};
                expect({ code: error.code, ...(exp.kind ? { kind: error.kind } : {}) }).toEqual({
                  code,
                  ...(exp.kind ? { kind: exp.kind } : {}),
                });
                if (exp.param !== undefined) expect(error.param).toBe(exp.param);
                if (exp.message !== undefined) expect(error.message).toMatch(exp.message);
                return error;
              },
            };
          },
        };
      },
    };
  },
};
