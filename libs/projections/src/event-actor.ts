import { StoredEvent } from '@dojang/event-store';

/**
 * Who acted, as JSON /audit, /history and the audit certificate all name it (issue 32 item 7): a
 * participant's own act (recorded as `participant:<id>`) by the participant's name as it was then;
 * anything else as recorded: the API key that acted (`key_…`, a correction made with a key among
 * them) or `system` (the worker). `nameOf` gives a participant's name at that point of the stream.
 */
export function actorName(recorded: unknown, nameOf: (participantId: string) => string | undefined): string {
  const actor = typeof recorded === 'string' && recorded ? recorded : 'system';
  if (!actor.startsWith('participant:')) return actor;
  const id = actor.slice('participant:'.length);
  return nameOf(id) ?? id;
}

/**
 * The actor of each event of a document's stream, folding the participants' names as the audit
 * trail projection does (added, then renamed by a delegation after the delegation's own entry).
 */
export function actorsOf(events: readonly StoredEvent[]): string[] {
  const names = new Map<string, string>();
  return events.map((event) => {
    const label = actorName(event.metadata.actor, (id) => names.get(id));
    const d = event.data as { participant?: { id?: string; name?: string }; participant_id?: string; to?: { name?: string } };
    if (event.type === 'ParticipantAdded' && d.participant?.id && d.participant.name) names.set(d.participant.id, d.participant.name);
    if (event.type === 'ParticipantDelegated' && d.participant_id && d.to?.name) names.set(d.participant_id, d.to.name);
    return label;
  });
}
