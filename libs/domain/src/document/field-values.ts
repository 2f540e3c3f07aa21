import { DomainError, invalid } from '../shared/domain-error';
import { AttachmentValue, FieldSettings, FieldType, FieldValue, FieldValueEntry, dateIn, valueProblem } from './field-types';
import { AUTO_FIELD_TYPES, IMAGE_FIELD_TYPES, groupProblem, recordedText } from './field-rules';

interface OwnField extends FieldSettings {
  id: string;
  participant_id: string;
  type: FieldType;
  required: boolean;
}

interface Signer {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
}

/** A file a participant uploaded for an attachment field (AttachmentUploaded). */
export interface UploadedAttachment extends AttachmentValue {
  participant_id: string;
  field_id: string;
}

/** At most this many characters of values per signature: they travel in one event (EventStoreDB takes 1 MiB). */
export const MAX_VALUE_CHARACTERS = 200_000;

const at = (fieldId: string) => `values.${fieldId}`;
const required = (f: OwnField, why: string) =>
  invalid('field_value_required', `${f.label ? `"${f.label}" (${f.id})` : `Field ${f.id}`} ${why}`, at(f.id));
const refused = (f: OwnField, why: string) =>
  invalid('field_value_invalid', `${f.label ? `"${f.label}" (${f.id})` : `Field ${f.id}`} ${why.replace(/\.$/, '')}.`, at(f.id));

/** A submitted JSON value in its recorded form, or why it cannot be one. */
function recorded(f: OwnField, raw: unknown): FieldValue | null | { problem: string } {
  if (raw === null || raw === undefined) return null;
  if (f.type === 'checkbox' || f.type === 'radio') return typeof raw === 'boolean' ? raw : { problem: 'must be true or false' };
  if (f.type === 'number' && typeof raw === 'number') {
    if (!Number.isFinite(raw)) return { problem: 'must be a finite number' };
    return String(raw);
  }
  if (typeof raw !== 'string') return { problem: `must be a string${f.type === 'number' ? ' or a number' : ''}` };
  // Surrounding blanks are never meant; an emptied field is an absent value; 3,500,000원 and
  // 1995. 3. 15. as typed are recorded as 3500000 and 1995-03-15.
  return recordedText(f, raw);
}

/**
 * The values a participant's signature records: what they sent in `values` (by field id) over
 * the sender's prefill, read-only values as the sender set them, and name, email, phone and
 * signing date from the participant and the moment of signing. Refuses, naming the field
 * (`values.<field id>`) and why, a value for a field that is not theirs or not theirs to fill,
 * a missing required value, an invalid one, and a group whose rules are not met.
 */
export function resolveSignerValues(
  fields: readonly OwnField[],
  signer: Signer,
  submitted: Record<string, unknown>,
  now: string,
  timeZone: string,
  uploads: readonly UploadedAttachment[] = [],
): FieldValueEntry[] {
  const mine = fields.filter((f) => f.participant_id === signer.id);
  for (const id of Object.keys(submitted)) {
    const f = mine.find((x) => x.id === id);
    if (!f) throw invalid('invalid_parameter', `values.${id} names no field of this participant; use the field ids of GET /v1/signing/{token}.`, at(id));
    if (IMAGE_FIELD_TYPES.includes(f.type)) throw refused(f, `is a ${f.type} field: send it as ${f.type === 'signature' ? 'signature' : 'seal_id or seal_image'}, not in values`);
    if (AUTO_FIELD_TYPES.includes(f.type)) throw refused(f, `is filled by the service when you sign (${f.type}); leave it out of values`);
    if (f.read_only && submitted[id] !== undefined) throw refused(f, 'is read-only: the sender set its value; leave it out of values');
  }
  const entries: FieldValueEntry[] = [];
  let characters = 0;
  for (const f of mine) {
    if (IMAGE_FIELD_TYPES.includes(f.type)) continue;
    let value: FieldValue | null;
    if (AUTO_FIELD_TYPES.includes(f.type)) {
      value = f.type === 'signing_date' ? dateIn(now, timeZone) : f.type === 'name' ? signer.name : f.type === 'email' ? signer.email : signer.phone;
    } else if (f.read_only) {
      value = f.value ?? null;
    } else {
      const given = recorded(f, submitted[f.id]);
      if (given !== null && typeof given === 'object') throw refused(f, given.problem);
      value = given ?? f.value ?? null;
    }
    if (value === null && (f.type === 'checkbox' || f.type === 'radio')) value = false;
    const missing = value === null || (f.type === 'checkbox' && value === false);
    if (missing && f.required && f.type !== 'radio') {
      throw required(f, f.type === 'checkbox' ? 'must be checked: it is required.' : 'is required: send it in values.');
    }
    if (value === null) continue;
    const problem = valueProblem(f, value);
    if (problem) throw refused(f, problem);
    if (typeof value === 'string') characters += value.length;
    if (f.type === 'attachment') {
      // Only a file this participant uploaded for this very field: an id seen elsewhere proves nothing.
      const file = uploads.find((u) => u.attachment_id === value && u.field_id === f.id && u.participant_id === signer.id);
      if (!file) throw refused(f, 'names no file you uploaded for this field: upload it with POST /v1/signing/{token}/attachments and send its attachment_id');
      const { participant_id: _p, field_id: _f, ...attachment } = file;
      entries.push({ field_id: f.id, type: f.type, label: f.label ?? null, value, attachment });
      continue;
    }
    entries.push({ field_id: f.id, type: f.type, label: f.label ?? null, value });
  }
  if (characters > MAX_VALUE_CHARACTERS) {
    throw new DomainError('too_large', 'field_values_too_large', `The values hold ${characters} characters; a signature records at most ${MAX_VALUE_CHARACTERS}: shorten the longest text values.`, 'values');
  }
  checkGroups(mine, entries);
  return entries;
}

function checkGroups(mine: readonly OwnField[], entries: FieldValueEntry[]): void {
  const checked = new Set(entries.filter((e) => e.value === true).map((e) => e.field_id));
  const groups = new Map<string, OwnField[]>();
  for (const f of mine) {
    if (f.group == null || (f.type !== 'checkbox' && f.type !== 'radio')) continue;
    groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
  }
  for (const [name, members] of groups) {
    const problem = groupProblem(members, (f) => checked.has(f.id));
    if (!problem) continue;
    const first = members[0];
    switch (problem.reason) {
      case 'radio_several':
        throw refused(members.filter((f) => checked.has(f.id))[1], `cannot be chosen too: radio group "${name}" takes one choice (${problem.count} were chosen)`);
      case 'radio_required':
        throw required(first, `belongs to radio group "${name}", which is required: choose one of ${problem.options.map((o) => `"${o}"`).join(', ')}.`);
      case 'too_few_checked':
        throw required(first, `belongs to checkbox group "${name}": check at least ${problem.min} of its ${problem.boxes} boxes (${problem.count} checked).`);
      case 'too_many_checked':
        throw refused(first, `belongs to checkbox group "${name}": check at most ${problem.max} of its boxes (${problem.count} checked)`);
    }
  }
}

/**
 * The values of a signing draft, each checked on its own as signing checks it (its type, length,
 * pattern, range, options; an attachment names a file this participant uploaded for that field):
 * a draft holds what is filled so far, so nothing is required and groups are judged at signing.
 * Refuses, naming `values.<field id>`: an id that is no field of the signer (`field_not_found`),
 * a field the signer does not fill, being an image, automatic or read-only (`field_not_fillable`),
 * and a value that does not fit (`field_value_invalid`). null (or a blank string) clears a field.
 */
export function draftValues(
  fields: readonly OwnField[],
  signerId: string,
  submitted: Record<string, unknown>,
  uploads: readonly UploadedAttachment[] = [],
  /** What the draft already holds, for the size limit. */
  kept: Record<string, unknown> = {},
): Record<string, FieldValue | null> {
  const mine = fields.filter((f) => f.participant_id === signerId);
  const out: Record<string, FieldValue | null> = {};
  let characters = 0;
  for (const [id, raw] of Object.entries(submitted)) {
    const f = mine.find((x) => x.id === id);
    if (!f) throw invalid('field_not_found', `values.${id} names no field of this participant; use the field ids of GET /v1/signing/{token}.`, at(id));
    if (IMAGE_FIELD_TYPES.includes(f.type)) throw invalid('field_not_fillable', `${f.label ? `"${f.label}" (${f.id})` : `Field ${f.id}`} is a ${f.type} field: it is given when signing, not in a draft.`, at(id));
    if (AUTO_FIELD_TYPES.includes(f.type)) throw invalid('field_not_fillable', `${f.label ? `"${f.label}" (${f.id})` : `Field ${f.id}`} is filled by the service when you sign (${f.type}).`, at(id));
    if (f.read_only) throw invalid('field_not_fillable', `${f.label ? `"${f.label}" (${f.id})` : `Field ${f.id}`} is read-only: the sender set its value.`, at(id));
    const given = recorded(f, raw);
    if (given !== null && typeof given === 'object') throw refused(f, given.problem);
    if (given === null) {
      out[id] = null;
      continue;
    }
    const problem = valueProblem(f, given);
    if (problem) throw refused(f, problem);
    if (f.type === 'attachment' && !uploads.some((u) => u.attachment_id === given && u.field_id === f.id && u.participant_id === signerId)) {
      throw refused(f, 'names no file you uploaded for this field: upload it with POST /v1/signing/{token}/attachments and send its attachment_id');
    }
    if (typeof given === 'string') characters += given.length;
    out[id] = given;
  }
  // The whole draft, as signing it would record it, stays within what one signature takes.
  for (const [id, value] of Object.entries(kept)) if (!(id in out) && typeof value === 'string') characters += value.length;
  if (characters > MAX_VALUE_CHARACTERS) {
    throw new DomainError('too_large', 'field_values_too_large', `The values hold ${characters} characters; a signature records at most ${MAX_VALUE_CHARACTERS}: shorten the longest text values.`, 'values');
  }
  return out;
}
