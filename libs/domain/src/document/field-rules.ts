import { readFieldText } from './field-input';

/**
 * The rules a field's value must meet, as reasons (codes with their numbers), not sentences: the
 * API words them in English for integrators (field-types.ts valueProblem, field-values.ts), the
 * signing page in Korean or English from its own catalogue, keyed by the same reasons. This module
 * is bundled into the signing page as it is (apps/api/assets/signing-page, through esbuild), so it
 * stays pure and free of Node APIs and imports nothing at run time but field-input.ts: the page and
 * the API judge a value by the very same code.
 */

/**
 * Every kind of field a participant fills. `signature` and `seal` are SPEC's; the rest carry a
 * value (evidence in the participant's ParticipantSigned, drawn into the final PDF).
 */
export const FIELD_TYPES = [
  'signature',
  'seal',
  'initials',
  'text',
  'number',
  'date',
  'signing_date',
  'checkbox',
  'radio',
  'dropdown',
  'name',
  'email',
  'phone',
  'attachment',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** A value as recorded: booleans for checkbox and radio, strings (canonical forms) for the rest. */
export type FieldValue = string | boolean;

/** Images, not values: the signature drawing and the seal. */
export const IMAGE_FIELD_TYPES: readonly FieldType[] = ['signature', 'seal'];
/** Filled by the service when the participant signs: never by the sender or the signer. */
export const AUTO_FIELD_TYPES: readonly FieldType[] = ['signing_date', 'name', 'email', 'phone'];
/** Drawn as a mark: their value is a boolean. */
export const MARK_FIELD_TYPES: readonly FieldType[] = ['checkbox', 'radio'];

export const DEFAULT_TEXT_LENGTH = 1_000;
export const MAX_INITIALS_LENGTH = 10;

/** A number as recorded: a plain decimal string, at most 15 digits before the point and 6 after. */
export const RECORDED_NUMBER = /^-?(\d{1,15})(?:\.(\d{1,6}))?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isIsoDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** Why one value cannot fill its field. */
export type ValueProblem =
  | { reason: 'not_boolean' }
  | { reason: 'image_field' }
  | { reason: 'not_string' }
  | { reason: 'too_long'; max: number; length: number }
  | { reason: 'not_single_line' }
  | { reason: 'pattern_mismatch'; pattern: string; message: string | null }
  | { reason: 'not_number' }
  | { reason: 'not_whole' }
  | { reason: 'too_many_decimals'; decimals: number }
  | { reason: 'below_min'; min: number }
  | { reason: 'above_max'; max: number }
  | { reason: 'not_date' }
  | { reason: 'not_option'; options: string[] }
  | { reason: 'not_attachment_id' };

/** Why the answers to a group of checkboxes or radio buttons are not complete or not allowed. */
export type GroupProblem =
  | { reason: 'radio_required'; options: string[] }
  | { reason: 'radio_several'; count: number }
  | { reason: 'too_few_checked'; min: number; count: number; boxes: number }
  | { reason: 'too_many_checked'; max: number; count: number };

/** Why a signer's answers are not complete: a required field left empty, a required box unchecked, or a group. */
export type AnswerProblem = { reason: 'required' } | { reason: 'required_check' } | GroupProblem;

export type FieldRuleProblem = ValueProblem | AnswerProblem;
export type FieldRuleReason = FieldRuleProblem['reason'];

/**
 * Every reason, listed once (a record, so the compiler refuses a reason left out): whoever words
 * the problems (the signing page's catalogue, in each of its languages) is tested against this
 * list, so a new rule cannot reach a signer unworded.
 */
const REASONS: Record<FieldRuleReason, true> = {
  not_boolean: true,
  image_field: true,
  not_string: true,
  too_long: true,
  not_single_line: true,
  pattern_mismatch: true,
  not_number: true,
  not_whole: true,
  too_many_decimals: true,
  below_min: true,
  above_max: true,
  not_date: true,
  not_option: true,
  not_attachment_id: true,
  required: true,
  required_check: true,
  radio_required: true,
  radio_several: true,
  too_few_checked: true,
  too_many_checked: true,
};
// Pure: a page that does not list the reasons leaves the list out of its bundle.
export const FIELD_RULE_REASONS = /* @__PURE__ */ Object.keys(REASONS) as FieldRuleReason[];

/**
 * How a field's pattern is compiled into a whole-value matcher: a RegExp, or a string saying why
 * the pattern is refused, or null when this runtime cannot judge it (then the value is not refused
 * for it). The API passes fieldPattern (V8's linear-time engine); the signing page its browser's
 * engine, on the signer's own input only, the server judging again.
 */
export type PatternCompiler = (source: string) => RegExp | string | null;

/**
 * The settings these rules read, declared here (not in field-types.ts) so the signing page can
 * bundle this module alone; FieldSettings extends them.
 */
export interface RuledSettings {
  multiline?: boolean;
  max_length?: number | null;
  /** A whole-value match, compiled for V8's linear-time engine (see fieldPattern). */
  pattern?: string | null;
  pattern_message?: string | null;
  min?: number | null;
  max?: number | null;
  decimals?: number | null;
  /** dropdown: the choices. */
  options?: string[] | null;
}

interface RuledField extends RuledSettings {
  type: FieldType;
}

/**
 * Why `value` cannot be this field's value, or null when it can. `value` is what the sender
 * prefilled or the signer sent, already in its recorded form (numbers as canonical strings).
 */
export function checkFieldValue(field: RuledField, value: FieldValue, compilePattern: PatternCompiler): ValueProblem | null {
  switch (field.type) {
    case 'checkbox':
    case 'radio':
      return typeof value === 'boolean' ? null : { reason: 'not_boolean' };
    case 'signature':
    case 'seal':
      return { reason: 'image_field' };
    default:
      break;
  }
  if (typeof value !== 'string') return { reason: 'not_string' };
  switch (field.type) {
    case 'initials':
      return value.length > MAX_INITIALS_LENGTH ? { reason: 'too_long', max: MAX_INITIALS_LENGTH, length: value.length } : null;
    case 'text': {
      const max = field.max_length ?? DEFAULT_TEXT_LENGTH;
      if (value.length > max) return { reason: 'too_long', max, length: value.length };
      if (!field.multiline && /[\r\n]/.test(value)) return { reason: 'not_single_line' };
      if (field.pattern && value !== '') {
        const re = compilePattern(field.pattern);
        if (re !== null && typeof re !== 'string' && !re.test(value)) return { reason: 'pattern_mismatch', pattern: field.pattern, message: field.pattern_message || null };
      }
      return null;
    }
    case 'number': {
      const m = RECORDED_NUMBER.exec(value);
      if (!m) return { reason: 'not_number' };
      const decimals = field.decimals ?? 0;
      if ((m[2]?.length ?? 0) > decimals) return decimals === 0 ? { reason: 'not_whole' } : { reason: 'too_many_decimals', decimals };
      const n = Number(value);
      if (field.min != null && n < field.min) return { reason: 'below_min', min: field.min };
      if (field.max != null && n > field.max) return { reason: 'above_max', max: field.max };
      return null;
    }
    case 'date':
    case 'signing_date':
      return isIsoDate(value) ? null : { reason: 'not_date' };
    case 'dropdown':
      return (field.options ?? []).includes(value) ? null : { reason: 'not_option', options: field.options ?? [] };
    case 'attachment':
      // Which uploads it may name is the signer's check (resolveSignerValues); the sender cannot set one.
      return /^[A-Za-z0-9_-]{1,100}$/.test(value) ? null : { reason: 'not_attachment_id' };
    default:
      // name, email, phone: the service's own values.
      return null;
  }
}

/**
 * Text typed into a field, in its recorded form: blanks around dropped (a multiline field keeps
 * its inner lines and leading indentation), numbers and dates read as Koreans write them
 * (3,500,000원 → 3500000, 1995년 3월 15일 → 1995-03-15); null for an emptied field, which is no value.
 */
export function recordedText(field: { type: string; multiline?: boolean | null }, raw: string): string | null {
  const trimmed = field.multiline ? raw.replace(/^\s*\n|\s+$/g, '') : raw.trim();
  return trimmed === '' ? null : readFieldText(field.type, trimmed);
}

type GroupMember = { type: FieldType; required: boolean; option?: string | null; min_checked?: number | null; max_checked?: number | null };

/** A checkbox group's limits: how many of its boxes must and may be checked (set on any member; validateFieldSettings keeps them equal). */
export function checkboxLimits(members: readonly GroupMember[]): { min: number; max: number } {
  return {
    min: members.find((f) => f.min_checked != null)?.min_checked ?? 0,
    max: members.find((f) => f.max_checked != null)?.max_checked ?? members.length,
  };
}

/**
 * Why the answers to one group (its members, all checkbox or all radio) are not acceptable at
 * signing, given which members are checked; null when they are. Each member's own `required` is
 * judged apart (required_check on the box); this is the group as a whole.
 */
export function groupProblem<M extends GroupMember>(members: readonly M[], checked: (member: M) => boolean): GroupProblem | null {
  const count = members.filter(checked).length;
  if (members[0]?.type === 'radio') {
    if (count > 1) return { reason: 'radio_several', count };
    if (count === 0 && members.some((f) => f.required)) return { reason: 'radio_required', options: members.map((f) => f.option ?? '') };
    return null;
  }
  const { min, max } = checkboxLimits(members);
  if (count < min) return { reason: 'too_few_checked', min, count, boxes: members.length };
  if (count > max) return { reason: 'too_many_checked', max, count };
  return null;
}
