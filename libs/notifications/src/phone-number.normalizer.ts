// The domain's reading of a phone (phone-reading.ts, which imports nothing of the project): the
// senders dial what the API stored, read by the same parser, metadata and default region.
import { MESSAGEABLE_PHONE_TYPES, parsePhone } from '@dojang/domain/shared/phone-reading';

/** A number no message can be sent to: not a phone number, or one that cannot receive text. Final, never worth a retry. */
export class InvalidPhoneNumberError extends Error {
  constructor(input: string, reason = 'not a dialable phone number') {
    super(`${reason}: ${JSON.stringify(input)}`);
    this.name = 'InvalidPhoneNumberError';
  }
}

export const KOREA_COUNTRY_CODE = '82';

/** A phone as libphonenumber reads it. */
export interface DialableNumber {
  /** `+821012345678`. */
  e164: string;
  /** The country calling code without `+`: `82`, `1`, `81`. */
  callingCode: string;
  /** Within its country, without a trunk prefix: `1012345678` for 010-1234-5678, `9012345678` for +81 90-1234-5678. */
  nationalNumber: string;
  /** As dialled inside its country, digits only: `01012345678`, `15881234`, `09012345678`. */
  domesticDigits: string;
  /** The region (ISO 3166-1) when the number settles one (`KR`, `JP`, `US`); null for non-geographic numbers. */
  region: string | null;
  /** libphonenumber's type (`MOBILE`, `FIXED_LINE_OR_MOBILE`, `FIXED_LINE`, `UAN`, …); undefined when it cannot tell. */
  type: string | undefined;
}

/**
 * Reads a phone with libphonenumber, Korea the default region for numbers written without `+`
 * (`010-1234-5678`, `01012345678`); `+<country>` numbers as written. Anything the library does not
 * hold to be a valid number throws {@link InvalidPhoneNumberError}; nothing is completed by guessing.
 */
export function readDialableNumber(phone: string): DialableNumber {
  if (typeof phone !== 'string') throw new InvalidPhoneNumberError(String(phone));
  const parsed = parsePhone(phone);
  if (!parsed?.valid) throw new InvalidPhoneNumberError(phone);
  return {
    e164: parsed.number,
    callingCode: parsed.countryCallingCode,
    nationalNumber: parsed.nationalNumber,
    domesticDigits: parsed.domesticDigits,
    region: parsed.country ?? null,
    type: parsed.type,
  };
}

/**
 * A recipient of SMS, LMS, PIN or 알림톡: {@link readDialableNumber}, and also refused (final) when
 * libphonenumber types it as something that cannot receive text (a landline, 1588 representative
 * number, 070 VoIP). The API refuses those at entry with `phone_not_mobile`; this is for numbers
 * stored before that rule (an old "1588-1234" kept as "015881234"), which would otherwise be
 * charged for and reported delivered although no phone can show them.
 */
export function readTextableNumber(phone: string): DialableNumber {
  const number = readDialableNumber(phone);
  if (number.type === undefined || !MESSAGEABLE_PHONE_TYPES.has(number.type)) {
    throw new InvalidPhoneNumberError(phone, `not a number that can receive text messages (${number.type ?? 'unknown type'})`);
  }
  return number;
}

/**
 * Whether KakaoTalk 알림톡 can reach this phone: Korean (+82) numbers only. The one rule for it:
 * the notifier sends a message meant for KakaoTalk to any other number by SMS/LMS from the start,
 * in both modes (so the test-mode outbox shows what live mode does), and SolapiSender refuses an
 * 알림톡 to one should a caller not ask first. A number that cannot be read is not reachable.
 */
export function alimtalkReaches(phone: string | DialableNumber): boolean {
  if (typeof phone !== 'string') return phone.callingCode === KOREA_COUNTRY_CODE;
  try {
    return readDialableNumber(phone).callingCode === KOREA_COUNTRY_CODE;
  } catch {
    return false;
  }
}

/** `01012345678` → `+821012345678`; `+82 10-1234-5678` → `+821012345678`; `+1 415 555 2671` → `+14155552671`. */
export function toE164(phone: string): string {
  return readDialableNumber(phone).e164;
}
