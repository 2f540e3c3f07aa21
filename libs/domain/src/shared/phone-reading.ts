// The "max" metadata: only it holds the per-type number patterns that getType() needs (the
// default "min" metadata types nothing). libphonenumber-js is plain JavaScript with no I/O, so the
// domain stays pure and the signing page can bundle this very rule.
import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js/max';

/**
 * How a phone is read, wherever one is read: the API's rule for a recipient (phone-number.ts) and
 * the senders that dial what it stored (libs/notifications), so both take the same numbers the same
 * way. Imports nothing of the project (a stand-alone lib may use it: dependency-cruiser).
 */

/** What a phone may look like before it is parsed: digits, one leading +, and the usual separators (the parser also finds numbers inside free text). */
export const PHONE_CHARACTERS = /^\+?[\d\s\-.()]+$/;

/** The types a text message (SMS/LMS, PIN, 알림톡) can reach; +1 numbers are all FIXED_LINE_OR_MOBILE. */
export const MESSAGEABLE_PHONE_TYPES: ReadonlySet<string> = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

/** The number as written, Korea the default region for numbers without `+`, never completed by guessing; null when it holds anything but a phone or parses to nothing. */
export function parsePhone(raw: string): PhoneNumber | null {
  const text = raw.trim();
  if (!PHONE_CHARACTERS.test(text)) return null;
  return parsePhoneNumberFromString(text, 'KR') ?? null;
}
