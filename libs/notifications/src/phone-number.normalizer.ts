/**
 * Participants' phones are stored as Korean domestic digits (SPEC: "digits
 * only", e.g. 01012345678) but SMS providers want E.164. Korean domestic
 * numbers always begin with the trunk prefix 0, which E.164 drops after +82.
 */

export class InvalidPhoneNumberError extends Error {
  constructor(input: string) {
    super(`not a dialable phone number: ${JSON.stringify(input)}`);
    this.name = 'InvalidPhoneNumberError';
  }
}

export const KOREA_COUNTRY_CODE = '82';

/**
 * `01012345678` → `+821012345678`; `+82 10-1234-5678` → `+821012345678`;
 * `821012345678` → `+821012345678`; other `+<country>` numbers pass through.
 * Separators (spaces, hyphens, dots, parentheses) are tolerated; anything
 * else, or a length E.164 cannot hold, throws {@link InvalidPhoneNumberError}.
 */
export function toE164(phone: string): string {
  if (typeof phone !== 'string') throw new InvalidPhoneNumberError(String(phone));
  const trimmed = phone.trim();
  if (!/^\+?[\d\s\-.()]+$/.test(trimmed)) throw new InvalidPhoneNumberError(phone);
  const international = trimmed.startsWith('+');
  const digits = trimmed.replace(/\D/g, '');

  let e164: string;
  if (international) {
    e164 = `+${digits}`;
  } else if (digits.startsWith('00')) {
    // Korean international dialling prefixes (001, 002, 00700, …) vary by carrier; too ambiguous to guess.
    throw new InvalidPhoneNumberError(phone);
  } else if (digits.startsWith('0')) {
    e164 = `+${KOREA_COUNTRY_CODE}${digits.slice(1)}`;
  } else if (digits.startsWith(KOREA_COUNTRY_CODE) && digits.length >= 10) {
    // Domestic numbers never start with 82, so this is already the country code.
    e164 = `+${digits}`;
  } else {
    throw new InvalidPhoneNumberError(phone);
  }
  // E.164: at most 15 digits; Korean numbers are +82 followed by 8–10 digits.
  const national = e164.slice(1);
  if (national.length < 8 || national.length > 15 || national.startsWith('0')) throw new InvalidPhoneNumberError(phone);
  if (national.startsWith(KOREA_COUNTRY_CODE) && (national.length < 10 || national.length > 12 || national[2] === '0')) {
    throw new InvalidPhoneNumberError(phone);
  }
  return e164;
}
