import { maskContacts, maskEmail, maskPhone } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { actorName } from './event-actor';
import { Projection, RowLookup } from './projection';
import { documentIdOf } from './document.projection';

export const AUDIT_ENTRIES = 'audit_entries';
export const AUDIT_PEOPLE = 'audit_people';

export type AuditEventKind =
  | 'created'
  | 'sent'
  | 'viewed'
  | 'pin_sent'
  | 'pin_failed'
  | 'pin_verified'
  | 'signed'
  | 'declined'
  | 'reminded'
  | 'canceled'
  | 'expired'
  | 'completed'
  | 'corrected'
  | 'resent'
  | 'delegated'
  | 'group_signed'
  | 'attachment_uploaded';

export interface AuditEntryRow extends ReadDoc {
  object: 'audit_entry';
  document_id: string;
  seq: number;
  event: AuditEventKind;
  actor: string;
  at: string;
  ip?: string | null;
  user_agent?: string | null;
  auth_phone?: string | null;
  participant_id?: string;
  detail?: string;
}

interface PeopleRow extends ReadDoc {
  people: Record<string, { name: string; phone: string | null; email: string | null; role: string }>;
}

const TRAIL_TYPES: Record<string, AuditEventKind> = {
  DocumentCreated: 'created',
  DocumentSent: 'sent',
  SigningLinkOpened: 'viewed',
  PinIssued: 'pin_sent',
  PinVerificationFailed: 'pin_failed',
  PinVerified: 'pin_verified',
  ParticipantSigned: 'signed',
  ParticipantDeclined: 'declined',
  ReminderSent: 'reminded',
  DocumentCanceled: 'canceled',
  DocumentExpired: 'expired',
  DocumentCompleted: 'completed',
  ParticipantCorrected: 'corrected',
  SigningRequestResent: 'resent',
  ParticipantDelegated: 'delegated',
  SigningGroupSatisfied: 'group_signed',
  AttachmentUploaded: 'attachment_uploaded',
};

/** Free text from a participant (a decline reason) may carry contact data: masked by the one rule (libs/domain personal-data.ts). */
export { maskContacts };

/** What a correction changed, masked: "phone → 010-****-8888, new signing link". */
function correctionDetail(changes: Record<string, string | null>, newLink: boolean): string {
  const parts = Object.entries(changes).map(([k, v]) => {
    const shown = v === null ? 'removed' : k === 'phone' ? maskPhone(v) : k === 'email' ? maskEmail(v) : v;
    return `${k} → ${shown}`;
  });
  if (newLink) parts.push('new signing link (the old one no longer works)');
  return parts.join(', ') || 'no change';
}

/**
 * The audit trail: every action on a document in time order, with personal data masked at
 * projection time so no unmasked phone or e-mail ever reaches this read model.
 */
export const auditTrailProjection: Projection = {
  name: 'audit_trail',
  // 2: the actor as recorded (the API key, not "system") or the participant's name (issue 32 item 7).
  version: 2,
  collections: [{ name: AUDIT_ENTRIES, indexes: [['document_id', 'seq']] }, { name: AUDIT_PEOPLE }],
  handles: new Set([...Object.keys(TRAIL_TYPES), 'ParticipantAdded', 'ParticipantRemoved']),
  keys: (event) => [
    { collection: AUDIT_PEOPLE, id: documentIdOf(event) },
    { collection: AUDIT_ENTRIES, id: event.event_id },
  ],
  evolve(event: StoredEvent, rows: RowLookup): Write[] {
    const documentId = documentIdOf(event);
    const peopleRow = (rows(AUDIT_PEOPLE, documentId) as PeopleRow | null) ?? { id: documentId, people: {} };
    const d = event.data as Record<string, any>;
    if (event.type === 'ParticipantAdded') {
      const p = d.participant;
      const people = { ...peopleRow.people, [p.id]: { name: p.name, phone: maskPhone(p.phone), email: maskEmail(p.email), role: p.role } };
      return [{ op: 'put', collection: AUDIT_PEOPLE, doc: { ...peopleRow, people } }];
    }
    if (event.type === 'ParticipantRemoved') {
      const { [d.participant_id]: _gone, ...people } = peopleRow.people;
      return [{ op: 'put', collection: AUDIT_PEOPLE, doc: { ...peopleRow, people } }];
    }
    const kind = TRAIL_TYPES[event.type];
    if (!kind) return [];
    const who = d.participant_id ? peopleRow.people[d.participant_id] : undefined;
    const entry: AuditEntryRow = {
      id: event.event_id,
      object: 'audit_entry',
      document_id: documentId,
      seq: event.global_position,
      event: kind,
      // Who acted, as /history and the certificate name it (event-actor.ts).
      actor: actorName(event.metadata.actor, (id) => peopleRow.people[id]?.name),
      at: String(event.metadata.occurred_at),
    };
    if (d.participant_id) entry.participant_id = d.participant_id;
    if (event.type === 'SigningLinkOpened' || event.type === 'ParticipantSigned' || event.type === 'ParticipantDeclined' || event.type === 'PinVerificationFailed' || event.type === 'PinVerified') {
      entry.ip = d.ip ?? null;
    }
    if (event.type === 'SigningLinkOpened' || event.type === 'ParticipantSigned' || event.type === 'ParticipantDeclined') {
      entry.user_agent = d.user_agent ?? null;
    }
    if (event.type === 'ParticipantSigned') entry.auth_phone = d.auth_phone_masked ?? null;
    if (event.type === 'PinIssued') entry.detail = `PIN sent to ${d.phone_masked}`;
    if (event.type === 'PinVerificationFailed') {
      entry.detail =
        d.reason === 'expired'
          ? 'attempt on an expired PIN'
          : d.reason === 'locked'
            ? `attempt on a locked PIN (${d.failed_attempts} failed)`
            : `wrong PIN (${d.failed_attempts} failed${d.locked ? ', locked' : ''})`;
    }
    if (event.type === 'ParticipantDeclined') entry.detail = maskContacts(String(d.reason ?? ''));
    if (event.type === 'ReminderSent') {
      entry.detail = `${d.automatic ? 'automatic' : 'manual'} reminder to ${(d.participant_ids as string[]).map((id) => peopleRow.people[id]?.name ?? id).join(', ')}`;
    }
    if (event.type === 'DocumentCompleted' && d.final_pdf) entry.detail = `final PDF sha256 ${d.final_pdf.sha256}`;
    if (event.type === 'DocumentCanceled' && d.reason) entry.detail = maskContacts(String(d.reason));
    if (event.type === 'SigningRequestResent') entry.detail = `signing request resent to ${who?.name ?? d.participant_id}`;
    if (event.type === 'AttachmentUploaded') {
      entry.ip = d.ip ?? null;
      entry.detail = `attachment ${d.filename} (${d.content_type}, ${d.blob?.byte_size} bytes, sha256 ${d.blob?.sha256})`;
    }
    if (event.type === 'SigningGroupSatisfied') {
      const by = peopleRow.people[d.signed_by]?.name ?? d.signed_by;
      entry.detail = `group "${d.group}" signed by ${by} for ${(d.released as string[]).map((id) => peopleRow.people[id]?.name ?? id).join(', ')}`;
    }
    if (event.type === 'ParticipantDelegated') {
      entry.ip = d.ip ?? null;
      entry.user_agent = d.user_agent ?? null;
      entry.detail = `delegated to ${d.to.name} (${[maskPhone(d.to.phone), maskEmail(d.to.email)].filter(Boolean).join(', ')}), new signing link`;
      // Later entries name the delegate, who now holds the participant.
      if (who) {
        const now = { ...who, name: d.to.name, phone: maskPhone(d.to.phone), email: maskEmail(d.to.email) };
        return [
          { op: 'put', collection: AUDIT_ENTRIES, doc: entry },
          { op: 'put', collection: AUDIT_PEOPLE, doc: { ...peopleRow, people: { ...peopleRow.people, [d.participant_id]: now } } },
        ];
      }
    }
    if (event.type === 'ParticipantCorrected') {
      entry.detail = correctionDetail(d.changes ?? {}, Boolean(d.link));
      // The trail names people as they are now (masked), so a later entry shows the corrected name.
      if (who) {
        const now = { ...who };
        if (d.changes?.name !== undefined) now.name = d.changes.name;
        if (d.changes?.phone !== undefined) now.phone = maskPhone(d.changes.phone);
        if (d.changes?.email !== undefined) now.email = maskEmail(d.changes.email);
        return [
          { op: 'put', collection: AUDIT_ENTRIES, doc: entry },
          { op: 'put', collection: AUDIT_PEOPLE, doc: { ...peopleRow, people: { ...peopleRow.people, [d.participant_id]: now } } },
        ];
      }
    }
    return [{ op: 'put', collection: AUDIT_ENTRIES, doc: entry }];
  },
};
