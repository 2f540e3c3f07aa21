import { DomainError, conflict, invalid, notFound } from '../shared/domain-error';
import { CancelDocument, CorrectParticipant, ResendSigningRequest } from './document.commands';
import { DocumentEvent, ParticipantChanges } from './document.events';
import { DocumentState, ParticipantState, activeParticipants } from './document.state';

/** A cancel reason is read in e-mails, SMS and on the signing page: short, like a decline reason. */
export const MAX_CANCEL_REASON_LENGTH = 1000;
/** A resent request is a real SMS to a real phone: at most one per participant this often. */
export const RESEND_COOLDOWN_SECONDS = 5 * 60;

const CHANGEABLE = ['name', 'phone', 'email', 'auth'] as const;

function documentOf(state: DocumentState): void {
  if (!state.exists || state.trashed) throw notFound('document_not_found', 'No such document.');
}

function participantOf(state: DocumentState, id: string): ParticipantState {
  const p = state.participants.find((x) => x.id === id);
  if (!p) throw notFound('participant_not_found', 'No such participant on this document.');
  return p;
}

/** Only what differs from the participant as it is: an unchanged value is not a correction. */
function changesOf(p: ParticipantState, requested: ParticipantChanges): ParticipantChanges {
  const out: ParticipantChanges = {};
  for (const key of CHANGEABLE) {
    const value = requested[key];
    if (value !== undefined && value !== p[key]) Object.assign(out, { [key]: value });
  }
  return out;
}

/**
 * Corrects a participant who has not signed. In a draft it is an ordinary edit (the edit lock
 * applies). Once sent, it also replaces the participant's signing link: the command carries the
 * new token's hash, and the version must move forward so an old token can never come back. A
 * participant who signed (or declined) is part of the record and cannot be changed: 409.
 * `validate` is the same check a new participant passes (name, phone format, sms_pin needs a phone).
 */
export function decideCorrectParticipant(
  cmd: CorrectParticipant,
  state: DocumentState,
  validate: (merged: ParticipantState) => void,
): DocumentEvent[] {
  documentOf(state);
  const p = participantOf(state, cmd.participant_id);
  if (!CHANGEABLE.some((k) => cmd.changes[k] !== undefined)) {
    throw invalid('missing_parameter', 'Give at least one of name, phone, email or auth to change.', 'name');
  }
  if (state.status === 'draft') {
    if (state.edit_locked) throw conflict('document_edit_locked', 'The document is edit-locked; release the lock in the document settings first.');
  } else if (state.status !== 'sent') {
    throw conflict('document_not_editable', `The document is ${state.status}; its participants can no longer be corrected.`);
  }
  if (p.status === 'signed') {
    throw conflict('participant_already_signed', 'This participant has already signed; a signed participant cannot be corrected. Cancel the document and send a new one.');
  }
  if (p.status === 'declined') throw conflict('participant_declined', 'This participant has declined; the request has ended.');
  const changes = changesOf(p, cmd.changes);
  validate({ ...p, ...changes });
  if (state.status === 'draft') {
    if (Object.keys(changes).length === 0) return [];
    return [{ type: 'ParticipantCorrected', data: { participant_id: p.id, changes, corrected_at: cmd.now, link: null } }];
  }
  // After send a correction always replaces the link, even with nothing else changed: that is
  // how a sender revokes a link that reached the wrong person.
  if (!cmd.link || !cmd.link.token_hash) throw new Error('CorrectParticipant after send needs the replacement link');
  if (cmd.link.version <= (p.link_version ?? 0) || cmd.link.token_hash === p.token_hash) {
    throw new Error('CorrectParticipant must move the link version forward');
  }
  return [
    {
      type: 'ParticipantCorrected',
      data: { participant_id: p.id, changes, corrected_at: cmd.now, link: { version: cmd.link.version, token_hash: cmd.link.token_hash } },
    },
  ];
}

/** The participant's signing request again, on the same link, to whoever's turn has come. */
export function decideResendSigningRequest(cmd: ResendSigningRequest, state: DocumentState): DocumentEvent[] {
  documentOf(state);
  if (state.status !== 'sent') {
    throw conflict('document_not_signable', `The document is ${state.status}; there is no signing request to resend.`);
  }
  const p = participantOf(state, cmd.participant_id);
  if (p.role === 'cc') throw conflict('participant_cannot_sign', 'A cc participant receives a copy and has no signing request.');
  if (p.status === 'signed') throw conflict('participant_already_signed', 'This participant has already signed.');
  if (p.status === 'declined') throw conflict('participant_declined', 'This participant has declined.');
  if (!activeParticipants(state).some((a) => a.id === p.id)) {
    throw conflict('not_your_turn', 'Participants with a lower signing_order must act first; this participant is asked automatically when their turn comes.');
  }
  if (p.request_resent_at) {
    const elapsed = (Date.parse(cmd.now) - Date.parse(p.request_resent_at)) / 1000;
    if (elapsed < cmd.cooldown_seconds) {
      const wait = Math.ceil(cmd.cooldown_seconds - elapsed);
      throw new DomainError('too_many', 'resend_cooldown', `This participant's request was resent recently; try again in ${wait} seconds.`, undefined, wait);
    }
  }
  return [{ type: 'SigningRequestResent', data: { participant_id: p.id, resent_at: cmd.now } }];
}

/** The reason as recorded: trimmed, null when blank. */
export function cancelReasonOf(cmd: CancelDocument): string | null {
  const reason = cmd.reason?.trim() ?? '';
  if (reason.length > MAX_CANCEL_REASON_LENGTH) {
    throw invalid('invalid_parameter', `reason may hold at most ${MAX_CANCEL_REASON_LENGTH} characters.`, 'reason');
  }
  return reason || null;
}
