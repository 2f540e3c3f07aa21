import { DomainError, conflict, invalid, notFound } from '../shared/domain-error';
import { DelegateSigning, UploadAttachment } from './document.commands';
import { DocumentEvent } from './document.events';
import { ATTACHMENT_CONTENT_TYPES, attachmentRules } from './field-types';
import { DocumentState, ParticipantState, groupOf } from './document.state';

/** A signer's uploads travel as events: bounded per participant so a link cannot grow the stream without end. */
export const MAX_ATTACHMENTS_PER_PARTICIPANT = 20;
const MAX_FILENAME_LENGTH = 200;

function participantOf(state: DocumentState, id: string): ParticipantState {
  const p = state.participants.find((x) => x.id === id);
  if (!p) throw notFound('participant_not_found', 'No such participant on this document.');
  return p;
}

/** Who may still act through their link: not a cc, not finished, not signed for by their group. */
function stillActing(state: DocumentState, p: ParticipantState, groupAlreadySigned: (p: ParticipantState) => DomainError): void {
  if (p.role === 'cc') throw conflict('participant_cannot_sign', 'A cc participant receives a copy and has nothing to sign.');
  if (p.status === 'signed') throw conflict('participant_already_signed', 'This participant has already signed.');
  if (p.status === 'declined') throw conflict('participant_declined', 'This participant has declined.');
  if (p.group_signed_by) throw groupAlreadySigned(p);
}

/**
 * A signer hands their signing to another person, when the sender allowed it for them
 * (allow_delegation). The participant keeps its id, role, order and fields; the delegate becomes
 * who holds it, with a new link (the command carries its hash, version moving forward like a
 * correction's), so the old link answers "replaced" at once. The delegate passes the checks a new
 * participant does (name; phone format; a phone for sms_pin, since the delegate proves who they are
 * with a PIN sent to their own phone) and needs a phone or an e-mail for the link to reach them.
 * sms_pin participants verify their PIN first: handing over speaks for them as much as signing.
 */
export function decideDelegateSigning(
  cmd: DelegateSigning,
  state: DocumentState,
  rules: { validate: (merged: ParticipantState) => void; requirePin: (p: ParticipantState) => void; groupAlreadySigned: (p: ParticipantState) => DomainError },
): DocumentEvent[] {
  const p = participantOf(state, cmd.participant_id);
  stillActing(state, p, rules.groupAlreadySigned);
  if (!p.allow_delegation) throw conflict('delegation_not_allowed', 'The sender did not allow this participant to delegate signing.');
  rules.requirePin(p);
  const to = { name: cmd.delegate.name.trim(), phone: cmd.delegate.phone, email: cmd.delegate.email };
  rules.validate({ ...p, ...to });
  if (!to.phone && !to.email) throw invalid('missing_parameter', 'Give the delegate a phone or an e-mail address: the new signing link is sent there.', 'phone');
  if (to.name === p.name && to.phone === p.phone && to.email === p.email) {
    throw invalid('invalid_parameter', 'The delegate is the participant as they are: name someone else.', 'name');
  }
  if (!cmd.link.token_hash || cmd.link.version <= (p.link_version ?? 0) || cmd.link.token_hash === p.token_hash) {
    throw new Error('DelegateSigning must move the link version forward');
  }
  return [
    {
      type: 'ParticipantDelegated',
      data: {
        participant_id: p.id,
        delegated_at: cmd.now,
        from: { name: p.name, phone: p.phone, email: p.email },
        to,
        link: { version: cmd.link.version, token_hash: cmd.link.token_hash },
        ip: cmd.ip,
        user_agent: cmd.user_agent,
      },
    },
  ];
}

/**
 * A file for one of the participant's attachment fields (or their signing group's). The shell has
 * recognised its kind by its bytes and stored it; this checks it is the field's kind and within
 * its size, and that the participant may act now (their turn, PIN session). The signature that
 * names the attachment_id makes it the field's value.
 */
export function decideUploadAttachment(
  cmd: UploadAttachment,
  state: DocumentState,
  rules: { requirePin: (p: ParticipantState) => void; groupAlreadySigned: (p: ParticipantState) => DomainError; hasTurn: (p: ParticipantState) => boolean },
): DocumentEvent[] {
  const p = participantOf(state, cmd.participant_id);
  stillActing(state, p, rules.groupAlreadySigned);
  const owners = new Set(groupOf(state, p).map((m) => m.id));
  const field = state.fields.find((f) => f.id === cmd.field_id && owners.has(f.participant_id));
  if (!field) throw invalid('invalid_parameter', 'field_id names no field of this participant.', 'field_id');
  if (field.type !== 'attachment') throw invalid('invalid_parameter', `field_id names a ${field.type} field; files go to attachment fields only.`, 'field_id');
  if (!rules.hasTurn(p)) throw conflict('not_your_turn', 'Participants with a lower signing_order must act first.');
  rules.requirePin(p);
  const { accept, max_bytes } = attachmentRules(field);
  if (cmd.blob.byte_size > max_bytes) {
    throw new DomainError('too_large', 'file_too_large', `The file has ${cmd.blob.byte_size} bytes; this field takes at most ${max_bytes}.`, 'file');
  }
  if (!accept.includes(cmd.kind)) throw new Error(`UploadAttachment: the shell let a ${cmd.kind} through to a field accepting ${accept.join(', ')}`);
  if ((state.attachments ?? []).filter((a) => a.participant_id === p.id).length >= MAX_ATTACHMENTS_PER_PARTICIPANT) {
    throw conflict('attachment_limit_reached', `A participant uploads at most ${MAX_ATTACHMENTS_PER_PARTICIPANT} files; sign with those uploaded, or ask the sender to send a new request.`);
  }
  const filename = cmd.filename.trim().slice(0, MAX_FILENAME_LENGTH) || `attachment.${cmd.kind === 'jpeg' ? 'jpg' : cmd.kind}`;
  return [
    {
      type: 'AttachmentUploaded',
      data: {
        attachment_id: cmd.attachment_id,
        participant_id: p.id,
        field_id: field.id,
        filename,
        content_type: ATTACHMENT_CONTENT_TYPES[cmd.kind],
        blob: { sha256: cmd.blob.sha256, byte_size: cmd.blob.byte_size },
        uploaded_at: cmd.now,
        ip: cmd.ip,
      },
    },
  ];
}
