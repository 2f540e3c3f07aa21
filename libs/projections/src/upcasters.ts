import { StoredEvent } from '@dojang/event-store';

/**
 * The one deserialisation boundary where old event shapes become current ones. Stored events are
 * never rewritten; a new schema_version gets an upcaster here instead.
 *
 * Keyed by `${type}@${schema_version}`; each returns the event at the next version.
 */
const upcasters: Record<string, (e: StoredEvent) => StoredEvent> = {
  // Version 1 of ParticipantAdded had no `auth` (every participant signed with an SMS PIN).
  'ParticipantAdded@0': (e) => {
    const participant = (e.data as { participant: Record<string, unknown> }).participant;
    return {
      ...e,
      data: { ...e.data, participant: { auth: 'sms_pin', ...participant } },
      metadata: { ...e.metadata, schema_version: 1 },
    };
  },
};

export function upcast(event: StoredEvent): StoredEvent {
  let current = event;
  for (let guard = 0; guard < 20; guard++) {
    const step = upcasters[`${current.type}@${current.metadata.schema_version ?? 1}`];
    if (!step) return current;
    current = step(current);
  }
  return current;
}
