import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { ApiError } from '../shared/api-error';

/** What a phone may look like before it is parsed: digits, one leading +, and the usual separators. */
const PHONE_CHARACTERS = /^\+?[\d\s\-.()]+$/;

export const PHONE_FORMAT_HINT =
  'a Korean number (010-1234-5678, 010 1234 5678, 01012345678 or +82 10-1234-5678) or an international number with + and its country code (+1 415 555 2671)';

/**
 * One stored form for every way people write a phone number, parsed by libphonenumber-js with
 * Korea as the default region. Korean numbers keep the domestic digits-only form the API has
 * always stored and returned (01012345678: what SPEC shows, what masking and the SMS senders'
 * E.164 conversion expect); numbers of other countries are stored in E.164 (+14155552671), the
 * only unambiguous digits form for them. Blank means no phone.
 */
export function normalizePhone(raw: string | undefined, param: string): string | null {
  if (raw === undefined) return null;
  const text = raw.trim();
  if (text === '') return null;
  const refuse = () => ApiError.invalid(param, `${param.split('.').pop()} must be ${PHONE_FORMAT_HINT}; got "${text.slice(0, 40)}".`);
  // The parser also finds numbers inside free text; a phone field holds a number and nothing else.
  if (!PHONE_CHARACTERS.test(text)) throw refuse();
  const parsed = parsePhoneNumberFromString(text, 'KR');
  if (!parsed || !parsed.isValid()) throw refuse();
  return parsed.countryCallingCode === '82' ? `0${parsed.nationalNumber}` : parsed.number;
}
