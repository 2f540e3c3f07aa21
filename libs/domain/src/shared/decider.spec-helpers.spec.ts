import { Decider } from './decider';
import { DomainError, conflict, invalid } from './domain-error';
import { DeciderSpecification } from './decider.spec-helpers';

/** A toy counter, only to check the helper itself reports what it should. */
type CounterEvent = { type: 'Added'; data: { by: number } };
type CounterCommand = { type: 'Add'; by: number } | { type: 'Noop' } | { type: 'Mutate' } | { type: 'Crash' };
interface CounterState {
  total: number;
  history: number[];
}

const counter: Decider<CounterState, CounterCommand, CounterEvent> = {
  initialState: () => ({ total: 0, history: [] }),
  evolve: (s, e) => ({ total: s.total + e.data.by, history: [...s.history, e.data.by] }),
  decide: (c, s) => {
    switch (c.type) {
      case 'Add':
        if (c.by <= 0) throw invalid('invalid_parameter', 'by must be positive', 'by');
        if (s.total + c.by > 10) throw conflict('too_big', 'the total may not pass 10');
        return [{ type: 'Added', data: { by: c.by } }];
      case 'Noop':
        return [];
      case 'Mutate':
        s.history.push(99); // a decider must never do this
        return [];
      case 'Crash':
        throw new TypeError('boom');
    }
  },
};

const spec = DeciderSpecification.for(counter);
const added = (by: number): CounterEvent => ({ type: 'Added', data: { by } });

describe('DeciderSpecification', () => {
  it('then: compares the produced events and returns the folded state', () => {
    const state = spec.given([added(2)]).when({ type: 'Add', by: 3 }).then([added(3)]);
    expect(state).toEqual({ total: 5, history: [2, 3] });
  });

  it('then: fails when the events differ', () => {
    expect(() => spec.given([]).when({ type: 'Add', by: 3 }).then([added(4)])).toThrow();
  });

  it('then: fails with the domain error when the command is refused', () => {
    expect(() => spec.given([]).when({ type: 'Add', by: 0 }).then([])).toThrow(/invalid\/invalid_parameter/);
  });

  it('thenThrows: checks code, kind, param and message', () => {
    const error = spec.given([added(9)]).when({ type: 'Add', by: 2 }).thenThrows('too_big', 'conflict');
    expect(error).toBeInstanceOf(DomainError);
    spec.given([]).when({ type: 'Add', by: -1 }).thenThrows('invalid_parameter', { kind: 'invalid', param: 'by', message: /positive/ });
  });

  it('thenThrows: fails on another code, another kind, a wrong param or message', () => {
    expect(() => spec.given([added(9)]).when({ type: 'Add', by: 2 }).thenThrows('other')).toThrow();
    expect(() => spec.given([added(9)]).when({ type: 'Add', by: 2 }).thenThrows('too_big', 'invalid')).toThrow();
    expect(() => spec.given([]).when({ type: 'Add', by: 0 }).thenThrows('invalid_parameter', { param: 'x' })).toThrow();
    expect(() => spec.given([]).when({ type: 'Add', by: 0 }).thenThrows('invalid_parameter', { message: 'nope' })).toThrow();
  });

  it('thenThrows: fails when nothing is thrown, naming what was returned', () => {
    expect(() => spec.given([]).when({ type: 'Add', by: 1 }).thenThrows('too_big')).toThrow(/returned/);
  });

  it('thenThrows: fails when the error is not a DomainError', () => {
    expect(() => spec.given([]).when({ type: 'Crash' }).thenThrows('boom')).toThrow(/TypeError: boom/);
  });

  it('thenNothing: passes on an empty array and fails on events', () => {
    spec.given([]).when({ type: 'Noop' }).thenNothing();
    expect(() => spec.given([]).when({ type: 'Add', by: 1 }).thenNothing()).toThrow();
  });

  it('freezes the state, so a decider that mutates it fails', () => {
    expect(() => spec.given([added(1)]).when({ type: 'Mutate' }).thenNothing()).toThrow();
  });

  it('never freezes or alters the caller fixtures', () => {
    const given = [added(1)];
    spec.given(given).when({ type: 'Add', by: 1 }).then([added(1)]);
    expect(Object.isFrozen(given[0])).toBe(false);
  });

  it('thenEvents: hands the events and the state before them to a check', () => {
    const state = spec
      .given([added(4)])
      .when({ type: 'Add', by: 1 })
      .thenEvents((events, before) => {
        expect(before.total).toBe(4);
        expect(events).toHaveLength(1);
      });
    expect(state.total).toBe(5);
  });
});
