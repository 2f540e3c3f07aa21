// The "max" metadata: only it holds the per-type number patterns that getType() needs (the
// default "min" metadata types nothing). libphonenumber-js is plain JavaScript with no I/O, so the
// domain stays pure and the signing page can bundle this very rule.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * How a phone is read, wherever one is read: the API's rule for a recipient (phone-number.ts) and
 * the senders that dial what it stored (libs/notifications), so both take the same numbers the same
 * way. Imports nothing of the project (a stand-alone lib may use it: dependency-cruiser).
 */

/** What a phone may look like before it is parsed: digits, one leading +, and the usual separators (the parser also finds numbers inside free text). */
export const PHONE_CHARACTERS = /^\+?[\d\s\-.()]+$/;

/** The types a text message (SMS/LMS, PIN, 알림톡) can reach; +1 numbers are all FIXED_LINE_OR_MOBILE. */
export const MESSAGEABLE_PHONE_TYPES: ReadonlySet<string> = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

/** What libphonenumber says of a number, as plain data (the same reading for the same text). */
export interface PhoneReading {
  /** E.164: `+821012345678`. */
  readonly number: string;
  /** `82`, `1`, `81`… */
  readonly countryCallingCode: string;
  /** The number without its country code or trunk prefix: `1012345678`. */
  readonly nationalNumber: string;
  /** ISO 3166-1 region when the number settles one; undefined for non-geographic numbers. */
  readonly country: string | undefined;
  /** Valid for its region (length and assigned prefix). */
  readonly valid: boolean;
  /** `MOBILE`, `FIXED_LINE_OR_MOBILE`, `FIXED_LINE`, `UAN`…; undefined when it cannot tell (or invalid). */
  readonly type: string | undefined;
  /** The national format's digits: `01012345678`. */
  readonly domesticDigits: string;
}

/**
 * Readings by the text as given. Reading a number with the "max" metadata (validity and type run
 * the region's number patterns) costs tens of microseconds, and the same few numbers are read again
 * and again: each participant's phone when it is added, by the send's checks, by every presentation
 * of the document, by each message's sender. Bounded: the oldest reading goes once it is full.
 */
const READINGS_KEPT = 1024;
const readings = new Map<string, PhoneReading | null>();

/** The number as written, Korea the default region for numbers without `+`, never completed by guessing; null when it holds anything but a phone or parses to nothing. */
export function parsePhone(raw: string): PhoneReading | null {
  const known = readings.get(raw);
  if (known !== undefined) return known;
  const reading = readPhone(raw);
  if (readings.size >= READINGS_KEPT) readings.delete(readings.keys().next().value as string);
  readings.set(raw, reading);
  return reading;
}

function readPhone(raw: string): PhoneReading | null {
  const text = raw.trim();
  if (!PHONE_CHARACTERS.test(text)) return null;
  const parsed = parsePhoneNumberFromString(text, 'KR');
  if (!parsed) return null;
  const valid = parsed.isValid();
  return Object.freeze({
    number: parsed.number,
    countryCallingCode: parsed.countryCallingCode,
    nationalNumber: parsed.nationalNumber,
    country: parsed.country,
    valid,
    type: valid ? parsed.getType() : undefined,
    domesticDigits: parsed.formatNational().replace(/\D/g, ''),
  });
}
