import { DomainError, invalid } from '../shared/domain-error';
import { intlFormatter } from '../shared/intl-formatter';
import { AUTO_FIELD_TYPES, DEFAULT_TEXT_LENGTH, FIELD_TYPES, FieldType, FieldValue, IMAGE_FIELD_TYPES, RECORDED_NUMBER, RuledSettings, ValueProblem, checkFieldValue, isIsoDate } from './field-rules';

// The kinds of field and the recorded value's type are field-rules.ts's (the signing page bundles
// that module, which must not import this one); named here too, where they have always been.
export { FIELD_TYPES };
export type { FieldType, FieldValue };

/** Drawn as text in the final PDF: these take a font size. */
export const TEXT_LIKE_FIELD_TYPES: readonly FieldType[] = ['initials', 'text', 'number', 'date', 'signing_date', 'dropdown', 'name', 'email', 'phone'];

export type FieldLocale = 'ko' | 'en';

/**
 * How a number field's value is printed (PDF, certificate, form_data's display_value): plain as
 * recorded (3500000, the default), grouped (3,500,000), won (3,500,000원, how Korean contracts
 * write amounts) or krw (₩3,500,000). Every format but plain shows the field's `decimals` places.
 */
export const NUMBER_FORMATS = ['plain', 'grouped', 'won', 'krw'] as const;
export type NumberFormat = (typeof NUMBER_FORMATS)[number];

/**
 * How an organization's documents print a date (a date field's value, the date of a time in its
 * messages), written as the pattern it stands for. The first is the default: Korean contracts write
 * 1995년 3월 15일. A field's own `locale` still wins where it was given.
 */
export const DATE_FORMATS = ['YYYY년 M월 D일', 'YYYY. M. D.', 'YYYY.MM.DD', 'YYYY-MM-DD'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
export const DEFAULT_DATE_FORMAT: DateFormat = 'YYYY년 M월 D일';

export const isDateFormat = (value: unknown): value is DateFormat => typeof value === 'string' && (DATE_FORMATS as readonly string[]).includes(value);

/** A calendar day (YYYY-MM-DD) in a date format. */
export function formatDate(isoDay: string, format: DateFormat): string {
  const [y, m, d] = isoDay.split('-');
  switch (format) {
    case 'YYYY년 M월 D일':
      return `${Number(y)}년 ${Number(m)}월 ${Number(d)}일`;
    case 'YYYY. M. D.':
      return `${Number(y)}. ${Number(m)}. ${Number(d)}.`;
    case 'YYYY.MM.DD':
      return `${y}.${m}.${d}`;
    case 'YYYY-MM-DD':
      return `${y}-${m}-${d}`;
  }
}

/** What an attachment field may take, recognised by the file's bytes (never its name or declared type). */
export const ATTACHMENT_KINDS = ['pdf', 'jpeg', 'png'] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];
export type AttachmentContentType = 'application/pdf' | 'image/jpeg' | 'image/png';
export const ATTACHMENT_CONTENT_TYPES: Record<AttachmentKind, AttachmentContentType> = { pdf: 'application/pdf', jpeg: 'image/jpeg', png: 'image/png' };
export const DEFAULT_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** An upload is read whole (and inspected in the PDF pool) before it is stored: bounded. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;

/** The limits an attachment field applies to uploads (its settings, or the defaults). */
export function attachmentRules(field: { accept?: AttachmentKind[] | null; max_bytes?: number | null }): { accept: AttachmentKind[]; max_bytes: number } {
  return { accept: field.accept?.length ? field.accept : [...ATTACHMENT_KINDS], max_bytes: field.max_bytes ?? DEFAULT_ATTACHMENT_BYTES };
}

/** An uploaded file as its attachment field's value records it: the id the signer sent, and what it was. */
export interface AttachmentValue {
  attachment_id: string;
  filename: string;
  content_type: AttachmentContentType;
  sha256: string;
  byte_size: number;
}


/**
 * The settings beyond SPEC's placement. All optional, so fields recorded before they existed
 * replay unchanged; the shell writes only those the sender gave.
 */
export interface FieldSettings extends RuledSettings {
  label?: string | null;
  read_only?: boolean;
  /** The sender's prefill (for a read-only field: the value itself). */
  value?: FieldValue | null;
  /** Points; null or absent: chosen to fit the box. */
  font_size?: number | null;
  /** number: how the value is printed (see NUMBER_FORMATS). */
  number_format?: NumberFormat | null;
  /** checkbox (optional) and radio (required): fields of one participant that are answered together. */
  group?: string | null;
  /** radio: the option this button stands for. */
  option?: string | null;
  /** checkbox group: how many of its boxes must / may be checked. */
  min_checked?: number | null;
  max_checked?: number | null;
  /** date and signing_date: ko writes 2027년 1월 2일, en 2027-01-02. */
  locale?: FieldLocale | null;
  /** attachment: the kinds of file it takes (default all) and the largest upload in bytes. */
  accept?: AttachmentKind[] | null;
  max_bytes?: number | null;
}

/** One filled field as its participant's ParticipantSigned records it. */
export interface FieldValueEntry {
  field_id: string;
  type: FieldType;
  label: string | null;
  value: FieldValue;
  /** attachment: the file the value (its attachment_id) names, with its hash. */
  attachment?: AttachmentValue;
}

export const MAX_TEXT_LENGTH = 10_000;
export const MAX_PATTERN_LENGTH = 200;
export const MAX_LABEL_LENGTH = 200;
export const MAX_OPTIONS = 100;
export const MAX_OPTION_LENGTH = 200;
export const MIN_FONT_SIZE = 4;
export const MAX_FONT_SIZE = 72;
export const MAX_DECIMALS = 6;
/** Characters of prefilled values in one field set (they travel in one event). */
export const MAX_PREFILL_CHARACTERS = 200_000;

let linearEngine: boolean | undefined;

/**
 * Patterns come from integrators and run on signers' input, so a pattern must not be able to
 * backtrack catastrophically ((a+)+$ on a long value holds the process for minutes). It is
 * compiled with V8's linear-time engine (flag `l`, RE2-like: no backreferences, no lookaround,
 * no nested counted repetition), which refuses any pattern it cannot run in linear time; the
 * process enables that engine at start (libs/application/src/linear-regexp.ts). Returns the
 * compiled whole-value matcher, or why the pattern is refused.
 */
export function fieldPattern(source: string): RegExp | string {
  if (linearEngine === undefined) {
    try {
      new RegExp('a', 'l');
      linearEngine = true;
    } catch {
      linearEngine = false;
    }
  }
  // Not the client's fault: without the engine no pattern can be run safely.
  if (!linearEngine) throw new Error('V8 linear-time RegExp engine is not enabled (--enable-experimental-regexp-engine)');
  try {
    return new RegExp(`^(?:${source})$`, 'l');
  } catch (error) {
    const message = (error as Error).message;
    if (/linear time/.test(message)) {
      return 'is not accepted: patterns must run in linear time (no backreferences, lookaround or nested counted repetition such as (a{1,9}){1,9})';
    }
    return `is not a valid regular expression (${message.replace(/^Invalid regular expression: /, '')})`;
  }
}

/**
 * Why `value` cannot be this field's value, in English for integrators, or null when it can.
 * `value` is what the sender prefilled or the signer sent, already in its recorded form (numbers
 * as canonical strings). The rules themselves are field-rules.ts's, shared with the signing page.
 */
export function valueProblem(field: { type: FieldType } & FieldSettings, value: FieldValue): string | null {
  const problem = checkFieldValue(field, value, fieldPattern);
  return problem && describeValueProblem(problem);
}

export function describeValueProblem(problem: ValueProblem): string {
  switch (problem.reason) {
    case 'not_boolean':
      return 'must be true or false';
    case 'image_field':
      return 'takes an image (signature, seal_id or seal_image), not a value';
    case 'not_string':
      return 'must be a string';
    case 'too_long':
      return `must be at most ${problem.max} characters (it has ${problem.length})`;
    case 'not_single_line':
      return 'must be a single line (the field is not multiline)';
    case 'pattern_mismatch':
      return problem.message || `does not match the pattern ${problem.pattern}`;
    case 'not_number':
      return 'must be a number such as 3500000, 3,500,000, 3,500,000원, ₩3,500,000 or -12.5 (commas only between groups of three digits, no exponent, at most 15 digits before the point)';
    case 'not_whole':
      return 'must be a whole number';
    case 'too_many_decimals':
      return `may have at most ${problem.decimals} decimal places`;
    case 'below_min':
      return `must be at least ${problem.min}`;
    case 'above_max':
      return `must be at most ${problem.max}`;
    case 'not_date':
      return 'must be a day of the calendar written 1995-03-15, 1995.03.15, 1995. 3. 15. or 1995년 3월 15일';
    case 'not_option':
      return `must be one of the options: ${problem.options.join(', ')}`;
    case 'not_attachment_id':
      return 'must be the attachment_id of a file uploaded for this field (POST /v1/signing/{token}/attachments)';
  }
}

/**
 * A value as the PDF, the certificate and form_data print it (dates per the field's locale when it
 * gives one, else in `dateFormat`, the organization's as recorded at send; marks that Noto Sans KR
 * has a glyph for, with the radio button's option).
 */
export function displayValue(
  field: { type: FieldType; locale?: FieldLocale | null; option?: string | null; number_format?: NumberFormat | null; decimals?: number | null },
  value: FieldValue,
  entry?: { attachment?: AttachmentValue },
  dateFormat?: DateFormat | null,
): string {
  // The file by name and hash: what a reader compares with the copy in the evidence bundle.
  if (field.type === 'attachment' && entry?.attachment) return `${entry.attachment.filename} (SHA-256 ${entry.attachment.sha256})`;
  if (typeof value === 'boolean') {
    if (field.type === 'radio') return `${value ? '●' : '○'} ${field.option ?? ''}`.trim();
    return value ? '✓ 선택 (checked)' : '□ 미선택 (unchecked)';
  }
  if ((field.type === 'date' || field.type === 'signing_date') && isIsoDate(value)) {
    if (field.locale === 'en') return value;
    if (field.locale === 'ko') return formatDate(value, DEFAULT_DATE_FORMAT);
    return formatDate(value, dateFormat ?? DEFAULT_DATE_FORMAT);
  }
  if (field.type === 'number' && field.number_format && field.number_format !== 'plain') return formatNumber(value, field.number_format, field.decimals ?? 0);
  return value;
}

/**
 * A recorded number (a decimal string) in a display format, by Intl.NumberFormat: the string is
 * formatted exactly (no float rounding of 15-digit amounts). What is not a recorded number is
 * shown as it is.
 */
export function formatNumber(value: string, format: NumberFormat, decimals: number): string {
  if (!RECORDED_NUMBER.test(value) || format === 'plain') return value;
  // A string keeps every digit (Intl.NumberFormat v3); the lib typings still say number.
  const text = numberFormatter(format, decimals).format(value as unknown as number);
  return format === 'won' ? `${text}원` : text;
}

function numberFormatter(format: Exclude<NumberFormat, 'plain'>, decimals: number): Intl.NumberFormat {
  return intlFormatter(`number:${format}:${decimals}`, () => {
    const digits = { minimumFractionDigits: decimals, maximumFractionDigits: decimals };
    const options: Intl.NumberFormatOptions =
      format === 'krw' ? { style: 'currency', currency: 'KRW', currencyDisplay: 'narrowSymbol', ...digits } : { useGrouping: true, ...digits };
    return new Intl.NumberFormat('ko-KR', options);
  });
}

/** The calendar date at `instant` in `timeZone` (IANA), as YYYY-MM-DD. */
export function dateIn(instant: string, timeZone: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return intlFormatter(`day:${timeZone}`, () => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })).format(new Date(instant));
}

export const DEFAULT_TIME_ZONE = 'Asia/Seoul';

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

interface PlacedField extends FieldSettings {
  participant_id: string;
  type: FieldType;
  required: boolean;
  upload_only: boolean;
}

interface FieldOwner {
  id: string;
  email: string | null;
  phone: string | null;
}

const isInt = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/**
 * Everything PUT /fields can check about the settings of a field set, beyond the placement:
 * each refusal names the exact input (`fields[3].options`), so an integrator fixes it before send.
 */
export function validateFieldSettings(fields: PlacedField[], participants: FieldOwner[]): void {
  // Prefills travel in one FieldsReplaced event (EventStoreDB takes 1 MiB per append).
  const prefilled = fields.reduce((n, f) => n + (typeof f.value === 'string' ? f.value.length : 0), 0);
  if (prefilled > MAX_PREFILL_CHARACTERS) {
    throw new DomainError('too_large', 'field_values_too_large', `The prefilled values hold ${prefilled} characters; a field set holds at most ${MAX_PREFILL_CHARACTERS}: shorten the longest.`, 'fields');
  }
  const groups = new Map<string, number[]>();
  fields.forEach((f, i) => {
    const at = `fields[${i}]`;
    const bad = (key: string, message: string) => invalid('invalid_parameter', `${at}.${key} ${message}`, `${at}.${key}`);
    const image = IMAGE_FIELD_TYPES.includes(f.type);
    const auto = AUTO_FIELD_TYPES.includes(f.type);
    const onlyFor = (key: keyof FieldSettings, types: readonly FieldType[]) => {
      if (f[key] != null && !types.includes(f.type)) throw bad(key, `applies to ${types.join(', ')} fields only (this one is ${f.type}).`);
    };
    if (f.label != null && (typeof f.label !== 'string' || f.label.length > MAX_LABEL_LENGTH)) throw bad('label', `must be a string of at most ${MAX_LABEL_LENGTH} characters.`);
    if (f.read_only && (image || auto)) throw bad('read_only', `does not apply to ${f.type} fields (${image ? 'the signer makes them' : 'the service fills them'}).`);
    onlyFor('font_size', TEXT_LIKE_FIELD_TYPES);
    if (f.font_size != null && !(typeof f.font_size === 'number' && f.font_size >= MIN_FONT_SIZE && f.font_size <= MAX_FONT_SIZE)) {
      throw bad('font_size', `must be a number of points between ${MIN_FONT_SIZE} and ${MAX_FONT_SIZE}.`);
    }
    onlyFor('multiline', ['text']);
    onlyFor('max_length', ['text']);
    onlyFor('pattern', ['text']);
    onlyFor('pattern_message', ['text']);
    onlyFor('min', ['number']);
    onlyFor('max', ['number']);
    onlyFor('decimals', ['number']);
    onlyFor('number_format', ['number']);
    if (f.number_format != null && !NUMBER_FORMATS.includes(f.number_format)) throw bad('number_format', `must be one of ${NUMBER_FORMATS.join(', ')}.`);
    onlyFor('options', ['dropdown']);
    onlyFor('group', ['checkbox', 'radio']);
    onlyFor('option', ['radio']);
    onlyFor('min_checked', ['checkbox']);
    onlyFor('max_checked', ['checkbox']);
    onlyFor('locale', ['date', 'signing_date']);
    onlyFor('accept', ['attachment']);
    onlyFor('max_bytes', ['attachment']);
    if (f.accept != null) {
      if (!Array.isArray(f.accept) || f.accept.length === 0) throw bad('accept', `must list at least one of ${ATTACHMENT_KINDS.join(', ')}.`);
      f.accept.forEach((k, j) => {
        if (!ATTACHMENT_KINDS.includes(k)) throw invalid('invalid_parameter', `${at}.accept[${j}] must be one of ${ATTACHMENT_KINDS.join(', ')}.`, `${at}.accept[${j}]`);
        if (f.accept!.indexOf(k) !== j) throw invalid('invalid_parameter', `${at}.accept[${j}] ("${k}") is listed twice.`, `${at}.accept[${j}]`);
      });
    }
    if (f.max_bytes != null && !isInt(f.max_bytes, 1, MAX_ATTACHMENT_BYTES)) throw bad('max_bytes', `must be an integer from 1 to ${MAX_ATTACHMENT_BYTES} (25 MiB).`);
    if (f.type === 'attachment' && f.value != null) throw bad('value', 'cannot be set on an attachment field: the signer uploads the file.');
    if (f.type === 'attachment' && f.read_only) throw bad('read_only', 'does not apply to attachment fields (the signer uploads the file).');
    if (f.max_length != null && !isInt(f.max_length, 1, MAX_TEXT_LENGTH)) throw bad('max_length', `must be an integer from 1 to ${MAX_TEXT_LENGTH}.`);
    if (f.pattern != null) {
      if (typeof f.pattern !== 'string' || f.pattern.length === 0 || f.pattern.length > MAX_PATTERN_LENGTH) throw bad('pattern', `must be a regular expression of 1 to ${MAX_PATTERN_LENGTH} characters.`);
      const compiled = fieldPattern(f.pattern);
      if (typeof compiled === 'string') throw bad('pattern', `${compiled}.`);
    }
    if (f.pattern_message != null && f.pattern == null) throw bad('pattern_message', 'is shown when the value does not match pattern: set pattern too.');
    if (f.decimals != null && !isInt(f.decimals, 0, MAX_DECIMALS)) throw bad('decimals', `must be an integer from 0 to ${MAX_DECIMALS}.`);
    for (const k of ['min', 'max'] as const) {
      if (f[k] != null && !(typeof f[k] === 'number' && Number.isFinite(f[k]))) throw bad(k, 'must be a number.');
    }
    if (f.min != null && f.max != null && f.min > f.max) throw bad('min', `(${f.min}) is greater than max (${f.max}): no value could satisfy both.`);
    if (f.type === 'dropdown') {
      const options = f.options;
      if (!Array.isArray(options) || options.length === 0) throw invalid('missing_parameter', `${at}.options must list at least one choice for a dropdown.`, `${at}.options`);
      if (options.length > MAX_OPTIONS) throw bad('options', `may list at most ${MAX_OPTIONS} choices.`);
      options.forEach((o, j) => {
        if (typeof o !== 'string' || !o.trim() || o.length > MAX_OPTION_LENGTH) {
          throw invalid('invalid_parameter', `${at}.options[${j}] must be a non-blank string of at most ${MAX_OPTION_LENGTH} characters.`, `${at}.options[${j}]`);
        }
        if (options.indexOf(o) !== j) throw invalid('invalid_parameter', `${at}.options[${j}] ("${o}") is listed twice.`, `${at}.options[${j}]`);
      });
    }
    if (f.type === 'radio') {
      if (!f.group) throw invalid('missing_parameter', `${at}.group is required: a radio button belongs to a group of at least two.`, `${at}.group`);
      if (typeof f.option !== 'string' || !f.option.trim() || f.option.length > MAX_OPTION_LENGTH) {
        throw invalid('missing_parameter', `${at}.option must name the choice this radio button stands for (1 to ${MAX_OPTION_LENGTH} characters).`, `${at}.option`);
      }
    }
    if (f.group != null) {
      if (typeof f.group !== 'string' || !f.group.trim() || f.group.length > 100) throw bad('group', 'must be a non-blank string of at most 100 characters.');
      const members = groups.get(f.group) ?? [];
      members.push(i);
      groups.set(f.group, members);
    }
    if (f.min_checked != null && f.group == null) throw bad('min_checked', 'applies to a checkbox group: set group too.');
    if (f.max_checked != null && f.group == null) throw bad('max_checked', 'applies to a checkbox group: set group too.');
    if (auto && f.value != null) throw bad('value', `cannot be set: a ${f.type} field is filled when its participant signs.`);
    if (image && f.value != null) throw bad('value', `cannot be set on a ${f.type} field.`);
    if (f.value != null) {
      const problem = valueProblem(f, f.value);
      if (problem) throw bad('value', `${problem.replace(/\.$/, '')}.`);
    }
    if (f.read_only && f.value == null) throw invalid('missing_parameter', `${at}.value is required: a read_only field shows the value the sender set.`, `${at}.value`);
    if (f.type === 'email' || f.type === 'phone') {
      const owner = participants.find((p) => p.id === f.participant_id);
      if (owner && !owner[f.type] && f.required) {
        throw invalid('invalid_parameter', `${at} is a required ${f.type} field but its participant has no ${f.type}: add it to the participant or make the field optional.`, `${at}.type`);
      }
    }
  });
  for (const [name, members] of groups) {
    const first = fields[members[0]];
    const at = (i: number) => `fields[${i}]`;
    for (const i of members) {
      const f = fields[i];
      if (f.type !== first.type) throw invalid('invalid_parameter', `${at(i)}.group "${name}" mixes ${first.type} and ${f.type} fields; a group holds one type.`, `${at(i)}.group`);
      if (f.participant_id !== first.participant_id) {
        throw invalid('invalid_parameter', `${at(i)}.group "${name}" spans several participants; a group is answered by one participant.`, `${at(i)}.group`);
      }
    }
    if (first.type === 'radio') {
      if (members.length < 2) throw invalid('invalid_parameter', `${at(members[0])}.group "${name}" has one radio button; a radio group needs at least two.`, `${at(members[0])}.group`);
      const seen = new Set<string>();
      for (const i of members) {
        const option = fields[i].option as string;
        if (seen.has(option)) throw invalid('invalid_parameter', `${at(i)}.option "${option}" appears twice in radio group "${name}".`, `${at(i)}.option`);
        seen.add(option);
      }
      const chosen = members.filter((i) => fields[i].value === true);
      if (chosen.length > 1) throw invalid('invalid_parameter', `${at(chosen[1])}.value: radio group "${name}" can have only one option chosen.`, `${at(chosen[1])}.value`);
    }
    if (first.type === 'checkbox') {
      const limits = (key: 'min_checked' | 'max_checked') => {
        const set = members.filter((i) => fields[i][key] != null);
        for (const i of set) {
          if (!isInt(fields[i][key], 0, members.length)) {
            throw invalid('invalid_parameter', `${at(i)}.${key} must be an integer from 0 to ${members.length} (the boxes in group "${name}").`, `${at(i)}.${key}`);
          }
          if (fields[i][key] !== fields[set[0]][key]) {
            throw invalid('invalid_parameter', `${at(i)}.${key} differs from ${at(set[0])}.${key} in group "${name}"; set it once or to the same number.`, `${at(i)}.${key}`);
          }
        }
        return set.length ? { value: fields[set[0]][key] as number, at: set[0] } : null;
      };
      const min = limits('min_checked');
      const max = limits('max_checked');
      const mustCheck = members.filter((i) => fields[i].required || (fields[i].read_only && fields[i].value === true)).length;
      if (min && max && min.value > max.value) {
        throw invalid('invalid_parameter', `${at(min.at)}.min_checked (${min.value}) is greater than max_checked (${max.value}) in group "${name}".`, `${at(min.at)}.min_checked`);
      }
      if (max && mustCheck > max.value) {
        throw invalid('invalid_parameter', `${at(max.at)}.max_checked (${max.value}) is less than the ${mustCheck} boxes of group "${name}" that must be checked (required or read-only checked).`, `${at(max.at)}.max_checked`);
      }
      const canCheck = members.filter((i) => !(fields[i].read_only && fields[i].value !== true)).length;
      if (min && min.value > canCheck) {
        throw invalid('invalid_parameter', `${at(min.at)}.min_checked (${min.value}) is more than the ${canCheck} boxes of group "${name}" the signer can check.`, `${at(min.at)}.min_checked`);
      }
    }
  }
}

/** The option a radio group, a dropdown or a checked box of a checkbox group stands for. */
export interface ChosenOption {
  value: string;
  label: string;
}

/**
 * One value of form_data as `document.completed` and GET /form_data give it: the value recorded
 * at signing, with what maps it back without the document's fields (issue 32 item 3).
 */
export type FormDataEntry = FieldValueEntry & {
  participant_id: string;
  /** The template field the document's field was made from (its id in the template): the same in every document of one template; null when not from a template. */
  template_field_key: string | null;
  /** radio and checkbox: the group the field belongs to, or null. */
  group: string | null;
  /** radio: the option this button stands for; null otherwise. */
  option: string | null;
  /**
   * What was chosen: radio, the group's chosen button (its option, and its label or the option),
   * the same on every button of the group; dropdown, the chosen option; a checked box of a
   * checkbox group, the box (its template field key or id, and its label). null when nothing was
   * chosen, and for other types.
   */
  selected: ChosenOption | null;
};
