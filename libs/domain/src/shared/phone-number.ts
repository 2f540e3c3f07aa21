import { invalid } from './domain-error';
import { MESSAGEABLE_PHONE_TYPES, PHONE_CHARACTERS, parsePhone } from './phone-reading';

export const MOBILE_PHONE_HINT =
  'a mobile number: Korean (010-1234-5678, 010 1234 5678, 01012345678 or +82 10-1234-5678) or international with + and its country code (+1 415 555 2671, +81 90-1234-5678)';

export type MobilePhoneProblem = 'phone_invalid' | 'phone_not_mobile';

/** A number as the rule reads it: where it is stored, or why it cannot be a recipient's phone. */
export type MobilePhoneReading =
  | { ok: true; /** The stored form: Korean domestic digits (01012345678), others E.164. */ phone: string; e164: string; country: string | null }
  | { ok: false; code: MobilePhoneProblem; /** What the number is, for the message: "a landline (FIXED_LINE)". */ reason: string };

const TYPE_NAMES: Record<string, string> = {
  FIXED_LINE: 'a landline',
  TOLL_FREE: 'a toll-free number',
  PREMIUM_RATE: 'a premium-rate number',
  SHARED_COST: 'a shared-cost number',
  VOIP: 'an internet phone (VoIP, 070)',
  PERSONAL_NUMBER: 'a personal (follow-me) number',
  PAGER: 'a pager',
  UAN: 'a company representative number (대표번호 such as 1588-1234)',
  VOICEMAIL: 'a voicemail number',
};

/**
 * The one rule for a recipient's phone (participants, corrections, delegation, role assignments,
 * bulk rows, the signing page): the number as written, parsed by libphonenumber with Korea as the
 * default region and never completed by guessing, taken only when its type is MOBILE or
 * FIXED_LINE_OR_MOBILE for its country, since every phone the service holds is an SMS, PIN or
 * 알림톡 target. Korean mobiles are stored as their domestic digits (0 + the national number, what
 * SPEC shows and the API has always returned); others in E.164.
 */
export function readMobilePhone(raw: string): MobilePhoneReading {
  const notANumber = (why: string): MobilePhoneReading => ({ ok: false, code: 'phone_invalid', reason: why });
  // The parser also finds numbers inside free text; a phone holds a number and nothing else.
  if (!PHONE_CHARACTERS.test(raw.trim())) return notANumber('holds characters other than digits, one leading + and separators');
  const parsed = parsePhone(raw);
  if (!parsed) return notANumber('is not a phone number');
  if (!parsed.valid) return notANumber(`is not a valid number${parsed.country ? ` for ${parsed.country}` : ''} (wrong length or unassigned prefix)`);
  const type = parsed.type;
  if (type === undefined || !MESSAGEABLE_PHONE_TYPES.has(type)) {
    return { ok: false, code: 'phone_not_mobile', reason: `is ${TYPE_NAMES[type ?? ''] ?? 'not a mobile number'}, which cannot receive text messages` };
  }
  const korean = parsed.countryCallingCode === '82';
  // 010 lines have had 8 subscriber digits since 2004 (010-1234-5678); the metadata still admits the
  // retired 7-digit form, so "010-1234-567" is a number missing a digit, not a phone to send to.
  if (korean && parsed.nationalNumber.startsWith('10') && parsed.nationalNumber.length !== 10) {
    return notANumber('is not a valid number: 010 numbers have 11 digits (010-1234-5678)');
  }
  return { ok: true, phone: korean ? `0${parsed.nationalNumber}` : parsed.number, e164: parsed.number, country: parsed.country ?? null };
}

/**
 * A recipient's phone as given at `param`: its stored form, null when absent or blank, or a
 * DomainError (400) `phone_invalid` / `phone_not_mobile` naming `param`.
 */
export function mobilePhone(raw: string | null | undefined, param: string): string | null {
  if (raw === undefined || raw === null) return null;
  const text = raw.trim();
  if (text === '') return null;
  const read = readMobilePhone(text);
  if (read.ok) return read.phone;
  throw invalid(read.code, `${param.split('.').pop()} must be ${MOBILE_PHONE_HINT}; "${text.slice(0, 40)}" ${read.reason}.`, param);
}

/**
 * The E.164 form of a stored phone (`01012345678` → `+821012345678`; `+14155552671` as it is), read
 * by the same parser and default region as `readMobilePhone`, so the pair (`phone`, `phone_e164`)
 * the API answers never disagree. Not the mobile rule: a number recorded before that rule (a
 * landline on an old draft) still has an E.164 form, and saying it hides nothing. null when there
 * is no phone or the stored text is not a valid number (never completed by guessing).
 */
export function phoneE164(stored: string | null | undefined): string | null {
  if (!stored) return null;
  const parsed = parsePhone(stored);
  return parsed?.valid ? parsed.number : null;
}
