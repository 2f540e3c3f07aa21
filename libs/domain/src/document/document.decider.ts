import { Decider, assertNever } from '../shared/decider';
import { DomainError, conflict, invalid, notFound } from '../shared/domain-error';
import { constantTimeEqual, hasBidiControl, maskPhone } from '../shared/text';
import { MOBILE_PHONE_HINT, readMobilePhone } from '../shared/phone-number';
import { CancelDocument, DocumentCommand, SignDocument } from './document.commands';
import { cancelReasonOf, decideCorrectParticipant, decideResendSigningRequest } from './participant-correction.decider';
import { decideDelegateSigning, decideUploadAttachment } from './signing-routing.decider';
import { decideDownloadPin } from './completed-download.decider';
import { BlobPointer, DocumentEvent, DocumentPart, Field, MESSAGE_LANGUAGES, PARTICIPANT_CHANNELS, ParticipantSetup } from './document.events';
import { DEFAULT_DATE_FORMAT, DEFAULT_TIME_ZONE, FieldValue, validateFieldSettings } from './field-types';
import { absolutePage, layParts, partCount, partOf, validateParts } from './document-parts';
import { validateFieldOverlaps } from './field-overlap';
import { draftValues, resolveSignerValues } from './field-values';
import { formDataEntries } from './form-data-entries';
import {
  DocumentState,
  MAX_PIN_LOCKOUTS,
  ParticipantState,
  PinState,
  actedFor,
  activeParticipants,
  evolveDocument,
  groupOf,
  initialDocumentState,
  mustAct,
  signingLinkLocked,
  wouldComplete,
} from './document.state';

export const MAX_METADATA_KEYS = 20;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;
export const MAX_EXTERNAL_ID_LENGTH = 200;

/**
 * A document's metadata as every way in must leave it (the API, a template send, a bulk row): at
 * most 20 keys of 1 to 40 characters, string values of at most 500. A refusal names the key
 * (`metadata.사번`); `param` prefixes it (`metadata`).
 */
export function validateMetadata(metadata: Record<string, unknown>, param = 'metadata'): void {
  const keys = Object.keys(metadata);
  if (keys.length > MAX_METADATA_KEYS) {
    throw invalid('invalid_parameter', `metadata may hold at most ${MAX_METADATA_KEYS} keys; it has ${keys.length} (the ${MAX_METADATA_KEYS + 1}st is "${keys[MAX_METADATA_KEYS].slice(0, 60)}").`, `${param}.${keys[MAX_METADATA_KEYS]}`);
  }
  for (const key of keys) {
    const value = metadata[key];
    if (key.length === 0 || key.length > MAX_METADATA_KEY_LENGTH) throw invalid('invalid_parameter', `metadata keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters.`, `${param}.${key}`);
    if (typeof value !== 'string') throw invalid('invalid_parameter', `metadata.${key} must be a string.`, `${param}.${key}`);
    if (value.length > MAX_METADATA_VALUE_LENGTH) throw invalid('invalid_parameter', `metadata.${key} must be at most ${MAX_METADATA_VALUE_LENGTH} characters; it has ${value.length}.`, `${param}.${key}`);
  }
}

/** An external id: 1 to 200 characters, not blank. */
export function validateExternalId(externalId: string, param = 'external_id'): void {
  if (typeof externalId !== 'string' || !externalId.trim() || externalId.length > MAX_EXTERNAL_ID_LENGTH) {
    throw invalid('invalid_parameter', `external_id must be a string of 1 to ${MAX_EXTERNAL_ID_LENGTH} characters.`, param);
  }
}
export const MAX_PARTICIPANTS_PER_BATCH = 50;
/** Every participant is a signing link, a notification and a row of the audit certificate. */
export const MAX_PARTICIPANTS_PER_DOCUMENT = 50;
export const MAX_GROUP_LENGTH = 100;

/**
 * The members of a signing group act as one: one role and one signing_order, or "any one of them
 * signs" would mean different things for different members. Checked against the members already
 * on the document and those earlier in the batch.
 */
function validateGroups(existing: ParticipantSetup[], added: ParticipantSetup[], batch: boolean): void {
  const seen = [...existing];
  added.forEach((p, i) => {
    const at = batch ? `participants[${i}].group` : 'group';
    const other = p.group != null ? seen.find((x) => x.group === p.group) : undefined;
    if (other && (other.role !== p.role || other.signing_order !== p.signing_order)) {
      throw invalid(
        'invalid_parameter',
        `group "${p.group}" already has ${other.role} "${other.name}" at signing_order ${other.signing_order}; the members of a signing group share role and signing_order.`,
        at,
      );
    }
    seen.push(p);
  });
}

/**
 * The one stored form: Korean numbers as domestic digits (01012345678), others in E.164
 * (+14155552671; never +82, which has the domestic form). The shell normalizes what people type.
 */
const DIGITS = /^(?:[0-9]{6,15}|\+(?!82)[1-9][0-9]{6,14})$/;

/** Hash and size only: a body read from an old inline event never goes back into a new one. */
const pointer = (ref: BlobPointer): BlobPointer => ({ sha256: ref.sha256, byte_size: ref.byte_size });

/** A part as recorded: bodies by hash and size only, like the one-part body. */
const partPointer = (part: DocumentPart): DocumentPart => ({ ...part, content_blob: part.content_blob && pointer(part.content_blob) });

const documentNotFound = () => notFound('document_not_found', 'No such document.');

function requireExisting(state: DocumentState): void {
  if (!state.exists || state.trashed) throw documentNotFound();
}

/** Draft-only edits: a sent (or later) document is frozen; a locked draft is frozen too. */
function requireEditableDraft(state: DocumentState, lockApplies = true): void {
  requireExisting(state);
  if (state.status !== 'draft') {
    throw conflict('document_not_editable', `The document is ${state.status}; only drafts can be changed. Cancel it and create a new one.`);
  }
  if (lockApplies && state.edit_locked) {
    throw conflict('document_edit_locked', 'The document is edit-locked; release the lock in the document settings first.');
  }
}

function requireSent(state: DocumentState): void {
  requireExisting(state);
  if (state.status !== 'sent') {
    throw conflict('document_not_signable', `The document is ${state.status}; its signing links no longer accept actions.`);
  }
}

function participantOf(state: DocumentState, id: string): ParticipantState {
  const p = state.participants.find((x) => x.id === id);
  if (!p) throw notFound('participant_not_found', 'No such participant on this document.');
  return p;
}

/** The signer's browser is sent there with the outcome: never over plain http, never a script URL. */
export function isHttpsUrl(value: string): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

export function validateParticipant(p: ParticipantSetup, index?: number): void {
  const at = index === undefined ? '' : `participants[${index}].`;
  if (!p.name || !p.name.trim()) throw invalid('missing_parameter', 'A participant needs a name.', `${at}name`);
  if (hasBidiControl(p.name)) {
    throw invalid('invalid_parameter', 'A participant\'s name cannot hold bidirectional text controls (U+202A–202E, U+2066–2069, U+200E, U+200F): they reorder how it reads in messages.', `${at}name`);
  }
  if (p.phone !== null && !DIGITS.test(p.phone)) {
    throw invalid('invalid_parameter', 'phone must be a Korean number such as 010-1234-5678 or an international one such as +1 415 555 2671.', `${at}phone`);
  }
  // The shell's phone rule (mobilePhone) again, on the stored form: whatever path a phone took to
  // a command (a participant, a correction, a delegate), no landline becomes an SMS or PIN target.
  const read = p.phone === null ? null : readMobilePhone(p.phone);
  if (read && !read.ok) throw invalid(read.code, `phone must be ${MOBILE_PHONE_HINT}; ${p.phone} ${read.reason}.`, `${at}phone`);
  if (p.auth === 'sms_pin' && !p.phone) {
    throw invalid('missing_phone', 'A participant with auth sms_pin needs a phone number.', `${at}phone`);
  }
  if (!Number.isInteger(p.signing_order) || p.signing_order < 1) {
    throw invalid('invalid_parameter', 'signing_order must be a positive integer.', `${at}signing_order`);
  }
  if (p.group != null) {
    if (typeof p.group !== 'string' || !p.group.trim() || p.group.length > MAX_GROUP_LENGTH) {
      throw invalid('invalid_parameter', `group must be a non-blank string of at most ${MAX_GROUP_LENGTH} characters.`, `${at}group`);
    }
    if (p.role === 'cc') throw invalid('invalid_parameter', 'A cc participant cannot be in a signing group: a group signs, a cc only receives a copy.', `${at}group`);
  }
  if (p.allow_delegation && p.role === 'cc') {
    throw invalid('invalid_parameter', 'allow_delegation applies to signers and reviewers: a cc has nothing to delegate.', `${at}allow_delegation`);
  }
  if (p.representative && p.role === 'cc') {
    throw invalid('invalid_parameter', 'representative applies to signers and reviewers: a cc stamps no seal.', `${at}representative`);
  }
  if (p.redirect_url != null && !isHttpsUrl(p.redirect_url)) {
    throw invalid('invalid_parameter', 'redirect_url must be an absolute https URL (at most 2048 characters).', `${at}redirect_url`);
  }
  if (p.channel !== undefined && !PARTICIPANT_CHANNELS.includes(p.channel)) {
    throw invalid('invalid_parameter', `channel must be one of ${PARTICIPANT_CHANNELS.join(', ')}.`, `${at}channel`);
  }
  if (p.channel === 'email' && !p.email) throw invalid('missing_email', 'A participant with channel email needs an e-mail address.', `${at}email`);
  if ((p.channel === 'sms' || p.channel === 'kakao') && !p.phone) {
    throw invalid('missing_phone', `A participant with channel ${p.channel} needs a phone number.`, `${at}phone`);
  }
  if (p.language !== undefined && !MESSAGE_LANGUAGES.includes(p.language)) {
    throw invalid('invalid_parameter', `language must be one of ${MESSAGE_LANGUAGES.join(', ')}.`, `${at}language`);
  }
}

/**
 * The smallest field width and height, in percent of the page (about 2 mm wide and 3 mm high on
 * A4): a box any smaller is invisible on the page yet signable (issue 24 §22).
 */
export const MIN_FIELD_SIZE_PERCENT = 1;

/**
 * Everything about a field set that needs no page count: owners, parts, boxes, settings and, last
 * (so a field's own mistake is named first), that no field hides another (field-overlap.ts).
 * `boxKnown(i)` leaves a field out of the overlap check while its box is not known yet (a
 * template's anchored field, found only in a document's PDF); a document's fields arrive here with
 * their anchors already resolved, so they are all checked.
 */
export function validateFields(fields: Field[], participants: ParticipantSetup[], parts = 1, boxKnown?: (i: number) => boolean): void {
  const ids = new Set(participants.map((p) => p.id));
  fields.forEach((f, i) => {
    const at = `fields[${i}]`;
    if (!ids.has(f.participant_id)) throw invalid('invalid_parameter', `${at}.participant_id names no participant of this document.`, `${at}.participant_id`);
    if (f.part !== undefined && !(Number.isInteger(f.part) && f.part >= 0 && f.part < parts)) {
      throw invalid(
        'invalid_parameter',
        parts === 1 ? `${at}.part must be 0: the document has one part.` : `${at}.part must be a part index from 0 to ${parts - 1}.`,
        `${at}.part`,
      );
    }
    if (!Number.isInteger(f.page) || f.page < 1) throw invalid('invalid_parameter', `${at}.page must be an integer of at least 1.`, `${at}.page`);
    for (const k of ['x', 'y', 'width', 'height'] as const) {
      if (!(Number.isFinite(f[k]) && f[k] >= 0 && f[k] <= 100)) {
        throw invalid('invalid_parameter', `${at}.${k} must be a percentage between 0 and 100.`, `${at}.${k}`);
      }
    }
    for (const k of ['width', 'height'] as const) {
      if (f[k] < MIN_FIELD_SIZE_PERCENT) {
        throw invalid('invalid_parameter', `${at}.${k} must be at least ${MIN_FIELD_SIZE_PERCENT} percent of the page: a smaller box cannot be seen or signed.`, `${at}.${k}`);
      }
    }
    if (f.x + f.width > 100 || f.y + f.height > 100) throw invalid('invalid_parameter', `${at} extends past the edge of the page.`, at);
    if (f.upload_only && f.type !== 'seal') throw invalid('invalid_parameter', `${at}.upload_only applies to seal fields only.`, `${at}.upload_only`);
  });
  validateFieldSettings(fields, participants);
  validateFieldOverlaps(fields, boxKnown);
}

function mergeMetadata(current: Record<string, string>, patch: Record<string, string | null>): Record<string, string> {
  const merged: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    // Stripe-style: setting a key to null (or "") removes it.
    if (v === null || v === '') delete merged[k];
    else merged[k] = v;
  }
  validateMetadata(merged);
  return merged;
}

/** One unmet send precondition: its catalogued code (a client branches on it) and what to do about it. */
export interface SendProblem {
  code: 'document_has_no_participants' | 'document_has_no_signer' | 'signer_without_required_field' | 'missing_phone' | 'phone_not_mobile' | 'phone_invalid' | 'field_page_out_of_range';
  message: string;
  /** The input at fault, where one is: `fields[i].page`. */
  param?: string;
}

/** Every unmet send precondition, each named with what fixes it, so the integrator can fix them all at once. */
export function sendProblemsOf(state: DocumentState, pageCount: number, partPages?: number[]): SendProblem[] {
  const problems: SendProblem[] = [];
  if (state.participants.length === 0) {
    problems.push({ code: 'document_has_no_participants', message: 'the document has no participants: add one with POST /v1/documents/{id}/participants' });
  } else if (!state.participants.some(mustAct)) {
    problems.push({ code: 'document_has_no_signer', message: 'the document has no signer or reviewer (cc participants only receive copies): add a participant with role signer or reviewer' });
  }
  for (const p of state.participants) {
    // A signing group needs a required field among its members' (whoever signs fills them all).
    const owners = new Set(groupOf(state, p).map((m) => m.id));
    if (p.role === 'signer' && !state.fields.some((f) => owners.has(f.participant_id) && f.required)) {
      problems.push({ code: 'signer_without_required_field', message: `signer "${p.name}" (${p.id}) has no required field placed: place one for them with PUT /v1/documents/{id}/fields` });
    }
    if (p.auth === 'sms_pin' && !p.phone) {
      problems.push({ code: 'missing_phone', message: `participant "${p.name}" (${p.id}) uses sms_pin but has no phone: give them a phone or auth none` });
    }
    // A participant recorded before the phone rule (or copied from such a document by a duplicate)
    // may hold a landline: nothing is sent to a number no text message reaches.
    const read = p.phone ? readMobilePhone(p.phone) : null;
    if (read && !read.ok) {
      problems.push({ code: read.code, message: `participant "${p.name}" (${p.id}) has the phone ${maskPhone(p.phone)}, which ${read.reason}: correct it with PATCH /v1/documents/{id}/participants/{participant_id}` });
    }
  }
  // With parts, a field records its page within its part (partPages: the parts' page counts, from
  // the shell), but the integrator reads and writes pages across the whole document: the message
  // speaks that numbering, the field's page and its part's pages as the parts now lay out.
  const layout = partPages ? layParts(partPages) : null;
  const total = partPages ? partPages.reduce((sum, n) => sum + n, 0) : pageCount;
  state.fields.forEach((f, i) => {
    const at = layout?.[partOf(f)];
    const pages = layout ? (at?.page_count ?? 0) : pageCount;
    if (f.page <= pages) return;
    let message: string;
    if (layout && at) {
      const last = at.first_page + at.page_count - 1;
      const range = at.page_count === 0 ? 'no page' : at.page_count === 1 ? `page ${at.first_page}` : `pages ${at.first_page} to ${last}`;
      message = `fields[${i}] is on page ${absolutePage({ part_pages: layout }, f)} but its part (part ${partOf(f)}) is ${range} of the document's ${total} page${total === 1 ? '' : 's'} (pages count across the whole document)`;
    } else {
      message = `fields[${i}] is on page ${f.page} but the document has ${pages} page${pages === 1 ? '' : 's'}`;
    }
    problems.push({ code: 'field_page_out_of_range', message: `${message}: move it with PUT /v1/documents/{id}/fields`, param: `fields[${i}].page` });
  });
  return problems;
}

function hasActiveTurn(state: DocumentState, p: ParticipantState): boolean {
  return activeParticipants(state).some((a) => a.id === p.id);
}

/**
 * How long a verified PIN lets its participant act. Verifying proves who holds the phone now;
 * a page left open on a shared device should not let someone else sign hours later.
 */
export const PIN_SESSION_SECONDS = 30 * 60;

const linkLocked = (param?: string) =>
  new DomainError(
    'conflict',
    'signing_link_locked',
    `Too many wrong PINs: ${MAX_PIN_LOCKOUTS} PINs were locked, so this link takes no more. Ask the sender to send the request again.`,
    param,
  );

/** Whether the participant's PIN is verified, unused and verified recently enough to act on. */
export function pinSessionActive(pin: PinState | null, now: string): boolean {
  if (!pin || !pin.verified || pin.used) return false;
  return pin.verified_at === null || Date.parse(now) - Date.parse(pin.verified_at) <= PIN_SESSION_SECONDS * 1000;
}

export function requirePinSession(p: ParticipantState, now: string, action: 'signing' | 'declining' | 'delegating' | 'uploading'): void {
  if (p.auth !== 'sms_pin' || pinSessionActive(p.pin, now)) return;
  if (p.pin?.verified && !p.pin.used) {
    throw conflict(
      'pin_verification_required',
      `The PIN was verified more than ${PIN_SESSION_SECONDS / 60} minutes ago; request a new PIN and verify it before ${action}.`,
    );
  }
  throw conflict('pin_verification_required', `Verify the SMS PIN before ${action}.`);
}

function groupAlreadySigned(state: DocumentState, p: ParticipantState): DomainError {
  const by = state.participants.find((x) => x.id === p.group_signed_by);
  return conflict('group_already_signed', `${by ? `"${by.name}"` : 'Another member'} already signed for signing group "${p.group}"; nothing is left for this link to do.`);
}

/**
 * What signing requires before anything is looked at: a sent document, a participant who signs,
 * has not acted, has the turn and (sms_pin) a verified PIN. Saving a draft requires the same, so
 * a draft is refused exactly where a signature would be.
 */
function mayActAsSigner(state: DocumentState, participantId: string, now: string): ParticipantState {
  requireSent(state);
  const p = participantOf(state, participantId);
  if (p.role === 'cc') throw conflict('participant_cannot_sign', 'A cc participant receives a copy and has nothing to sign.');
  if (p.status === 'signed') throw conflict('participant_already_signed', 'This participant has already signed.');
  if (p.status === 'declined') throw conflict('participant_declined', 'This participant has declined.');
  if (p.group_signed_by) throw groupAlreadySigned(state, p);
  if (!hasActiveTurn(state, p)) throw conflict('not_your_turn', 'Participants with a lower signing_order must act first.');
  requirePinSession(p, now, 'signing');
  return p;
}

/**
 * A signing draft's values checked as a signature would check them, one by one (a draft is
 * partial: nothing is required yet): the participant may sign now (mayActAsSigner), each id names
 * a field of theirs (their signing group's) that they fill, and each value fits its field. Answers
 * the values to merge (null clears a field). Pure: drafts are kept outside the event log.
 */
export function checkDraftValues(
  state: DocumentState,
  participantId: string,
  submitted: Record<string, unknown>,
  now: string,
  kept: Record<string, unknown> = {},
): Record<string, FieldValue | null> {
  const p = mayActAsSigner(state, participantId, now);
  const owners = new Set(groupOf(state, p).map((m) => m.id));
  const mine = state.fields.filter((f) => owners.has(f.participant_id)).map((f) => ({ ...f, participant_id: p.id }));
  return draftValues(mine, p.id, submitted, state.attachments ?? [], kept);
}

function decideSign(cmd: SignDocument, state: DocumentState): DocumentEvent[] {
  const p = mayActAsSigner(state, cmd.participant_id, cmd.now);
  if (cmd.consent !== true) throw invalid('consent_required', 'Explicit consent to sign electronically is required.', 'consent');
  // In a signing group the one who signs fills the fields placed for any member.
  const members = groupOf(state, p);
  const owners = new Set(members.map((m) => m.id));
  const mine = state.fields.filter((f) => owners.has(f.participant_id)).map((f) => ({ ...f, participant_id: p.id }));
  const needsSignature = mine.some((f) => f.type === 'signature' && f.required);
  const needsSeal = mine.some((f) => f.type === 'seal' && f.required);
  const hasSealFields = mine.some((f) => f.type === 'seal');
  if (needsSignature && !cmd.signature) throw invalid('missing_parameter', 'A signature image is required for this participant.', 'signature');
  if (needsSeal && !cmd.seal) throw invalid('missing_parameter', 'A seal (seal_id or seal_image) is required for this participant.', 'seal_id');
  if (cmd.signature && !mine.some((f) => f.type === 'signature')) {
    throw invalid('invalid_parameter', 'This participant has no signature field to fill.', 'signature');
  }
  if (cmd.seal && !hasSealFields) throw invalid('invalid_parameter', 'This participant has no seal field to stamp.', 'seal_id');
  if (cmd.seal?.source && (cmd.seal.source === 'organization') !== (cmd.seal.seal_id !== null)) {
    throw invalid('invalid_parameter', 'seal_source organization goes with seal_id; made, drawn and uploaded with seal_image.', 'seal_source');
  }
  if (cmd.seal && !cmd.seal.uploaded && mine.some((f) => f.type === 'seal' && f.upload_only)) {
    throw invalid('seal_upload_required', 'This seal field accepts an uploaded seal image only.', 'seal_image');
  }
  // The organization's own seal binds the organization: only the one the sender named as signing
  // for it may stamp it, on a seal field that takes more than uploads.
  if (cmd.seal && cmd.seal.seal_id !== null && !p.representative) {
    throw invalid('seal_representative_only', 'Only a participant the sender marked representative may stamp one of the organization\'s seals.', 'seal_id');
  }
  const values = resolveSignerValues(mine, p, cmd.values ?? {}, cmd.now, cmd.time_zone ?? DEFAULT_TIME_ZONE, state.attachments ?? []);
  const events: DocumentEvent[] = [
    {
      type: 'ParticipantSigned',
      data: {
        participant_id: p.id,
        signed_at: cmd.now,
        signature: cmd.signature,
        seal: cmd.seal && { seal_id: cmd.seal.seal_id, image: cmd.seal.image, ...(cmd.seal.source ? { source: cmd.seal.source } : {}) },
        auth_method: p.auth,
        auth_phone_masked: p.auth === 'sms_pin' ? maskPhone(p.phone) : null,
        ip: cmd.ip,
        user_agent: cmd.user_agent,
        ...(values.length ? { values } : {}),
      },
    },
  ];
  const released = members.filter((m) => m.id !== p.id && !actedFor(m) && m.status !== 'declined').map((m) => m.id);
  if (p.group && released.length > 0) {
    events.push({ type: 'SigningGroupSatisfied', data: { group: p.group, signed_by: p.id, released, satisfied_at: cmd.now } });
  }
  if (wouldComplete(state, p.id)) {
    const formData = formDataEntries(
      state.fields,
      state.participants.flatMap((q) => (q.id === p.id ? values : (q.values ?? [])).map((v) => ({ participant_id: q.id, ...v }))),
    );
    events.push({
      type: 'DocumentCompleted',
      // From the state, not the command: the original fixed at send is what was signed.
      data: {
        completed_at: cmd.now,
        original_sha256: state.original_pdf?.sha256 ?? null,
        final_pdf: cmd.final_pdf,
        ...(cmd.chain_head ? { chain_head: cmd.chain_head } : {}),
        ...(formData.length ? { form_data: formData } : {}),
      },
    });
  }
  return events;
}

export function decideDocument(command: DocumentCommand, state: DocumentState): DocumentEvent[] {
  switch (command.type) {
    case 'CreateDocument': {
      if (state.exists) throw conflict('document_exists', 'A document with this id already exists.');
      if (!command.title.trim()) throw invalid('missing_parameter', 'title is required.', 'title');
      // A blank body is refused by the shell before it stores the blob; an empty one is seen here.
      if (command.parts) {
        validateParts(command.parts);
      } else if (!command.content_blob?.byte_size && !command.file) throw invalid('missing_parameter', 'Either content or file_url is required.', 'content');
      validateMetadata(command.metadata);
      if (command.external_id !== undefined) validateExternalId(command.external_id);
      const parts = command.parts?.map(partPointer);
      const events: DocumentEvent[] = [
        {
          type: 'DocumentCreated',
          data: {
            document_id: command.document_id,
            organization_id: command.organization_id,
            livemode: command.livemode,
            title: command.title,
            // With parts, the first stands for the body (readers that know no parts see it).
            content_blob: parts ? parts[0].content_blob : command.content_blob && pointer(command.content_blob),
            content_format: parts ? parts[0].content_format : command.content_format,
            file: parts ? parts[0].file : command.file,
            author_name: command.author_name,
            metadata: command.metadata,
            ...(command.external_id !== undefined ? { external_id: command.external_id } : {}),
            from_template: command.from_template,
            ...(command.template_version !== undefined ? { template_version: command.template_version } : {}),
            duplicated_from: command.duplicate_of?.document_id ?? null,
            created_at: command.now,
            ...(command.show_title === false ? { show_title: false } : {}),
            ...(parts ? { parts } : {}),
          },
        },
      ];
      if (command.duplicate_of) {
        for (const participant of command.duplicate_of.participants) {
          events.push({ type: 'ParticipantAdded', data: { participant, added_at: command.now } });
        }
        if (command.duplicate_of.fields.length > 0) {
          events.push({ type: 'FieldsReplaced', data: { fields: command.duplicate_of.fields, replaced_at: command.now } });
        }
      }
      return events;
    }
    case 'UpdateDocument': {
      requireEditableDraft(state);
      if (command.title !== undefined && !command.title.trim()) throw invalid('invalid_parameter', 'title cannot be empty.', 'title');
      if (command.content_blob !== undefined && state.parts) {
        throw invalid('invalid_parameter', 'The document has parts: change its bodies with parts (every part, in order).', 'content');
      }
      if (command.content_blob !== undefined && state.content_format === 'pdf') {
        throw invalid('invalid_parameter', 'The body of an uploaded PDF cannot be replaced with content.', 'content');
      }
      if (command.parts !== undefined) {
        if (command.content_blob !== undefined) throw invalid('invalid_parameter', 'Give content or parts, not both.', 'parts');
        validateParts(command.parts);
        const stranded = state.fields.findIndex((f) => partOf(f) >= (command.parts as DocumentPart[]).length);
        if (stranded >= 0) {
          throw invalid('invalid_parameter', `fields[${stranded}] is on part ${partOf(state.fields[stranded])}, which this change removes: move or remove the field with PUT /fields first.`, 'parts');
        }
      }
      const data: Extract<DocumentEvent, { type: 'DocumentUpdated' }>['data'] = { updated_at: command.now };
      if (command.title !== undefined) data.title = command.title;
      if (command.content_blob !== undefined) data.content_blob = pointer(command.content_blob);
      if (command.author_name !== undefined) data.author_name = command.author_name;
      if (command.metadata !== undefined) data.metadata = mergeMetadata(state.metadata, command.metadata);
      if (command.parts !== undefined) data.parts = command.parts.map(partPointer);
      // Nothing named to change (an empty PATCH): no event, rather than an empty DocumentUpdated.
      if (Object.keys(data).length === 1) return [];
      return [{ type: 'DocumentUpdated', data }];
    }
    case 'SetEditLock':
      requireExisting(state);
      if (state.edit_locked === command.locked) return [];
      return [{ type: 'DocumentEditLockChanged', data: { locked: command.locked, at: command.now } }];
    case 'TrashDocument':
      requireExisting(state);
      return [{ type: 'DocumentTrashed', data: { trashed_at: command.now } }];
    case 'AddParticipants': {
      requireEditableDraft(state);
      if (command.participants.length === 0) throw invalid('missing_parameter', 'participants must not be empty.', 'participants');
      if (command.participants.length > MAX_PARTICIPANTS_PER_BATCH) {
        throw invalid('invalid_parameter', `At most ${MAX_PARTICIPANTS_PER_BATCH} participants per batch.`, 'participants');
      }
      if (state.participants.length + command.participants.length > MAX_PARTICIPANTS_PER_DOCUMENT) {
        throw invalid(
          'participant_limit_exceeded',
          `A document has at most ${MAX_PARTICIPANTS_PER_DOCUMENT} participants; this one has ${state.participants.length}, so at most ${Math.max(0, MAX_PARTICIPANTS_PER_DOCUMENT - state.participants.length)} more can be added.`,
          'participants',
        );
      }
      const batch = command.batch ?? command.participants.length > 1;
      command.participants.forEach((p, i) => validateParticipant(p, batch ? i : undefined));
      validateGroups(state.participants, command.participants, batch);
      return command.participants.map((participant) => ({
        type: 'ParticipantAdded' as const,
        data: { participant, added_at: command.now },
      }));
    }
    case 'RemoveParticipant':
      requireEditableDraft(state);
      participantOf(state, command.participant_id);
      return [{ type: 'ParticipantRemoved', data: { participant_id: command.participant_id, removed_at: command.now } }];
    case 'ReplaceFields':
      requireEditableDraft(state);
      validateFields(command.fields, state.participants, partCount(state));
      if (state.parts) {
        // Each part's pages, when known (an uploaded part, or the render made for this request).
        command.fields.forEach((f, i) => {
          const pages = state.parts?.[partOf(f)]?.file?.page_count ?? command.part_page_counts?.[partOf(f)] ?? null;
          if (pages !== null && f.page > pages) {
            throw invalid(
              'field_page_out_of_range',
              `fields[${i}].page is ${f.page} but part ${partOf(f)} has ${pages} page${pages === 1 ? '' : 's'}: place it on a page from 1 to ${pages}.`,
              `fields[${i}].page`,
            );
          }
        });
      } else {
        // Known from an uploaded file, or from the draft's render the shell made for this request.
        const pages = state.page_count ?? command.page_count ?? null;
        if (pages !== null) {
          command.fields.forEach((f, i) => {
            if (f.page > pages) {
              throw invalid(
                'field_page_out_of_range',
                `fields[${i}].page is ${f.page} but the document has ${pages} page${pages === 1 ? '' : 's'}: place it on a page from 1 to ${pages}.`,
                `fields[${i}].page`,
              );
            }
          });
        }
      }
      return [{ type: 'FieldsReplaced', data: { fields: command.fields, replaced_at: command.now } }];
    case 'SendDocument': {
      requireEditableDraft(state, false);
      if (state.parts && command.parts?.length !== state.parts.length) throw new Error('SendDocument: the shell must lay out every part of the document');
      const problems = sendProblemsOf(state, command.page_count, command.parts?.map((p) => p.page_count));
      if (problems.length > 0) {
        // The first problem's code, so a client can branch on it; the message lists them all.
        throw new DomainError('precondition', problems[0].code, `The document cannot be sent: ${problems.map((p) => p.message).join('; ')}.`, problems[0].param);
      }
      return [
        {
          type: 'DocumentSent',
          data: {
            sent_at: command.now,
            expires_at: command.expires_at,
            message: command.message,
            page_count: command.page_count,
            original_pdf: command.original_pdf,
            ...(command.parts ? { parts: command.parts } : {}),
            // The default is recorded as nothing: documents of organizations that never chose one stay as they were.
            ...(command.date_format && command.date_format !== DEFAULT_DATE_FORMAT ? { date_format: command.date_format } : {}),
            links: command.links,
          },
        },
      ];
    }
    case 'OpenSigningLink': {
      requireExisting(state);
      const p = participantOf(state, command.participant_id);
      // Only the first open is an event: it is what "viewed" means for the audit trail.
      if (p.viewed_at !== null || state.status !== 'sent') return [];
      return [
        {
          type: 'SigningLinkOpened',
          data: { participant_id: p.id, opened_at: command.now, ip: command.ip, user_agent: command.user_agent },
        },
      ];
    }
    case 'IssuePin': {
      if (command.for_download) return decideDownloadPin(command, state);
      requireSent(state);
      const p = participantOf(state, command.participant_id);
      if (p.auth !== 'sms_pin' || !p.phone) throw conflict('pin_not_required', 'This participant does not sign with an SMS PIN.');
      if (p.status === 'signed') throw conflict('participant_already_signed', 'This participant has already signed.');
      // A PIN is an SMS to a real phone: none for a member whose group has signed.
      if (p.group_signed_by) throw groupAlreadySigned(state, p);
      if (signingLinkLocked(p)) throw linkLocked();
      if (p.last_pin_issued_at) {
        const elapsed = (Date.parse(command.now) - Date.parse(p.last_pin_issued_at)) / 1000;
        if (elapsed < command.cooldown_seconds) {
          const wait = Math.ceil(command.cooldown_seconds - elapsed);
          throw new DomainError('too_many', 'pin_resend_cooldown', `A new PIN can be requested in ${wait} seconds.`, undefined, wait);
        }
      }
      const expires = new Date(Date.parse(command.now) + command.ttl_seconds * 1000).toISOString();
      return [
        {
          type: 'PinIssued',
          data: { participant_id: p.id, pin_hash: command.pin_hash, issued_at: command.now, expires_at: expires, phone_masked: maskPhone(p.phone) ?? '' },
        },
      ];
    }
    case 'VerifyPin': {
      // After completion only a download PIN is left to verify (completed-download.decider.ts).
      if (!(state.status === 'completed' && state.participants.find((x) => x.id === command.participant_id)?.pin?.for_download)) requireSent(state);
      const p = participantOf(state, command.participant_id);
      const pin = p.pin;
      if (!pin || pin.used) throw conflict('pin_not_requested', 'Request a PIN first.');
      if (pin.verified) return [];
      if (signingLinkLocked(p)) throw linkLocked('pin');
      // A locked PIN was recorded as locked by the wrong attempt that locked it, and an expired one
      // by the first attempt after its expiry. Further attempts are refused without an event: a
      // script hammering a dead PIN must not grow the document's audit trail without bound.
      if (pin.locked) throw new DomainError('conflict', 'pin_locked', 'Too many wrong PINs: this PIN is locked. Request a new PIN.', 'pin');
      if (Date.parse(command.now) > Date.parse(pin.expires_at)) {
        if (pin.expiry_recorded) throw new DomainError('conflict', 'pin_expired', 'The PIN has expired; request a new PIN.', 'pin');
        return [
          {
            type: 'PinVerificationFailed',
            data: { participant_id: p.id, failed_at: command.now, failed_attempts: pin.failed_attempts, locked: false, ip: command.ip, reason: 'expired' },
          },
        ];
      }
      if (constantTimeEqual(pin.pin_hash, command.pin_hash)) {
        return [{ type: 'PinVerified', data: { participant_id: p.id, verified_at: command.now, ip: command.ip } }];
      }
      const failed = pin.failed_attempts + 1;
      return [
        {
          type: 'PinVerificationFailed',
          data: { participant_id: p.id, failed_at: command.now, failed_attempts: failed, locked: failed >= command.max_attempts, ip: command.ip, reason: 'wrong' },
        },
      ];
    }
    case 'SignDocument':
      return decideSign(command, state);
    case 'DeclineDocument': {
      requireSent(state);
      const p = participantOf(state, command.participant_id);
      if (p.role === 'cc') throw conflict('participant_cannot_sign', 'A cc participant has nothing to decline.');
      if (p.status === 'signed') throw conflict('participant_already_signed', 'This participant has already signed.');
      if (p.status === 'declined') throw conflict('participant_declined', 'This participant has already declined.');
      if (p.group_signed_by) throw groupAlreadySigned(state, p);
      if (!hasActiveTurn(state, p)) throw conflict('not_your_turn', 'Participants with a lower signing_order act first.');
      // Declining speaks for the participant as much as signing does, so it needs the same proof.
      requirePinSession(p, command.now, 'declining');
      if (!command.reason.trim()) throw invalid('missing_parameter', 'A reason is required to decline.', 'reason');
      return [
        {
          type: 'ParticipantDeclined',
          data: { participant_id: p.id, declined_at: command.now, reason: command.reason, ip: command.ip, user_agent: command.user_agent },
        },
        // One refusal stops the whole request: the contract can no longer be completed as drafted.
        { type: 'DocumentDeclined', data: { declined_at: command.now, participant_id: p.id } },
      ];
    }
    case 'CancelDocument':
      requireExisting(state);
      if (state.status === 'draft') throw conflict('document_not_sent', 'A draft has no signature request to cancel; delete it instead.');
      if (state.status === 'completed') throw conflict('document_already_completed', 'A completed document cannot be canceled.');
      if (state.status !== 'sent') throw conflict('document_not_cancelable', `The document is already ${state.status}.`);
      return [cancelEvent(command)];
    case 'ExpireDocument':
      // The expiry saga may fire late or twice; only a still-sent, overdue document expires.
      if (!state.exists || state.status !== 'sent' || !state.expires_at) return [];
      if (Date.parse(command.now) < Date.parse(state.expires_at)) return [];
      return [{ type: 'DocumentExpired', data: { expired_at: command.now } }];
    case 'RemindParticipants': {
      requireSent(state);
      const pending = activeParticipants(state);
      if (pending.length === 0) throw conflict('nobody_to_remind', 'No participant is waiting to act.');
      if (state.last_reminded_at) {
        const elapsed = (Date.parse(command.now) - Date.parse(state.last_reminded_at)) / 1000;
        if (elapsed < command.cooldown_seconds) {
          const wait = Math.ceil(command.cooldown_seconds - elapsed);
          throw new DomainError('too_many', 'reminder_cooldown', `A reminder was sent recently; try again in ${wait} seconds.`, undefined, wait);
        }
      }
      return [
        { type: 'ReminderSent', data: { participant_ids: pending.map((p) => p.id), reminded_at: command.now, automatic: command.automatic } },
      ];
    }
    case 'CorrectParticipant':
      return decideCorrectParticipant(command, state, (merged) => validateParticipant(merged));
    case 'ResendSigningRequest':
      return decideResendSigningRequest(command, state);
    case 'DelegateSigning':
      requireSent(state);
      return decideDelegateSigning(command, state, {
        validate: (merged) => validateParticipant(merged),
        requirePin: (p) => requirePinSession(p, command.now, 'delegating'),
        groupAlreadySigned: (p) => groupAlreadySigned(state, p),
      });
    case 'UploadAttachment':
      requireSent(state);
      return decideUploadAttachment(command, state, {
        requirePin: (p) => requirePinSession(p, command.now, 'uploading'),
        groupAlreadySigned: (p) => groupAlreadySigned(state, p),
        hasTurn: (p) => hasActiveTurn(state, p),
      });
    case 'CertifyDocument':
      // Only a concluded document is certified, once: a retried or racing certification adds nothing.
      requireExisting(state);
      if (!['completed', 'declined', 'canceled', 'expired'].includes(state.status)) throw conflict('document_not_concluded', 'Only a completed, declined, canceled or expired document is certified.');
      if (state.certified) return [];
      return [{ type: 'DocumentCertified', data: { certification: command.certification } }];
    case 'ArchiveTimestampDocument': {
      requireExisting(state);
      if (state.status !== 'completed' || !state.final_pdf) throw conflict('document_not_completed', 'Only a completed document with a final PDF is re-timestamped.');
      // Another worker (or a replayed job) extended this file already: the final PDF moved on.
      if (state.final_pdf.sha256 !== command.previous_final_sha256 || command.final_pdf.sha256 === state.final_pdf.sha256) return [];
      const { final_pdf, previous_final_sha256, timestamped_at, tsa_certificate_expires_at } = command;
      return [{ type: 'DocumentArchiveTimestamped', data: { final_pdf, previous_final_sha256, timestamped_at, tsa_certificate_expires_at } }];
    }
    default:
      return assertNever(command);
  }
}

/** The reason goes into the event only when one was given (events before reasons have none). */
function cancelEvent(command: CancelDocument): DocumentEvent {
  const reason = cancelReasonOf(command);
  return { type: 'DocumentCanceled', data: { canceled_at: command.now, ...(reason ? { reason } : {}) } };
}

export const documentDecider: Decider<DocumentState, DocumentCommand, DocumentEvent> = {
  initialState: initialDocumentState,
  evolve: evolveDocument,
  decide: decideDocument,
};
