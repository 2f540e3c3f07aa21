import { Field, ParticipantSetup } from '@dojang/domain';

export type FieldDtoShape = Field;

/**
 * A duplicate copies the set-up, never the signing records: participants keep name, contact, role,
 * order and auth under fresh ids, and the fields follow their participant to the new ids.
 */
export function remapDuplicate(
  participants: ParticipantSetup[],
  fields: Field[],
  newId: () => string,
): { participants: ParticipantSetup[]; fields: Field[] } {
  const ids = new Map<string, string>();
  const copied = participants.map((p) => {
    const id = newId();
    ids.set(p.id, id);
    return { id, name: p.name, phone: p.phone, email: p.email, role: p.role, signing_order: p.signing_order, auth: p.auth, ...(p.redirect_url ? { redirect_url: p.redirect_url } : {}), ...(p.group ? { group: p.group } : {}), ...(p.allow_delegation ? { allow_delegation: true } : {}), ...(p.representative ? { representative: true } : {}) };
  });
  const copiedFields = fields
    .filter((f) => ids.has(f.participant_id))
    .map((f) => ({ ...f, id: newId(), participant_id: ids.get(f.participant_id) as string }));
  return { participants: copied, fields: copiedFields };
}
