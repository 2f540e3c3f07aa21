import { Decider } from '../shared/decider';
import { DocumentCommand } from './document.commands';
import { documentDecider } from './document.decider';
import { DocumentEvent } from './document.events';
import { DocumentState } from './document.state';

/**
 * Several document commands decided one after another, each on the state the ones before it
 * left, and appended together: all or nothing. A document made from a template (create, its
 * participants, fields and the send) is one such sequence, so a failure leaves nothing half-made.
 */
export const documentSequence: Decider<DocumentState, DocumentCommand[], DocumentEvent> = {
  initialState: documentDecider.initialState,
  evolve: documentDecider.evolve,
  decide(commands, state) {
    const out: DocumentEvent[] = [];
    let current = state;
    for (const command of commands) {
      const events = documentDecider.decide(command, current);
      out.push(...events);
      current = events.reduce(documentDecider.evolve, current);
    }
    return out;
  },
};
