import { DEFAULT_DATE_FORMAT, DateFormat, formatDate } from '../document/field-types';
import { intlFormatter } from './intl-formatter';
/**
 * Wall-clock arithmetic in an organization's IANA time zone, with nothing but `Intl` (the zone
 * database ships with Node's ICU, so no library and no data file of our own). Pure: every function
 * takes the instant it works from.
 */


/** Whether `zone` is an IANA zone name this runtime knows (`Asia/Seoul`, `America/New_York`). */
export function isValidTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function partsFormatter(zone: string): Intl.DateTimeFormat {
  return intlFormatter(
    `parts:${zone}`,
    () => new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }),
  );
}

/** The wall clock in `zone` at instant `ms`. */
export function wallClock(ms: number, zone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of partsFormatter(zone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour % 24, minute: parts.minute, second: parts.second };
}

/** Offset of `zone` from UTC at instant `ms`, in milliseconds (+9 h for Seoul). */
export function zoneOffsetMs(ms: number, zone: string): number {
  const w = wallClock(ms, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - (ms - (ms % 1000));
}

/**
 * The instant a wall-clock time happens in `zone`. A time skipped by a DST jump (02:30 on a New
 * York spring-forward night) lands just after the gap; a repeated time (the fall-back hour) takes
 * its first occurrence.
 */
export function zonedInstant(w: WallClock, zone: string): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  // A zone changes offset at most once within a day: try the offset in force before and after.
  const before = asUtc - zoneOffsetMs(asUtc - 14 * 3600_000, zone);
  const after = asUtc - zoneOffsetMs(asUtc + 14 * 3600_000, zone);
  const matches = (ms: number) => {
    const back = wallClock(ms, zone);
    return back.year === w.year && back.month === w.month && back.day === w.day && back.hour === w.hour && back.minute === w.minute;
  };
  const valid = [before, after].filter(matches);
  if (valid.length > 0) return Math.min(...valid);
  // In the gap: read with the offset before the jump, which lands as far past it as it was into it.
  return before;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` that names a real calendar day, or null. */
export function parseCalendarDate(value: string): { year: number; month: number; day: number } | null {
  const m = DATE_ONLY.exec(value);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return { year, month, day };
}

/**
 * The last moment of a calendar day in `zone`: 23:59:59.999 there. A deadline "until 10 December"
 * holds through the whole of that day where the organization is, whatever the server's zone.
 */
export function endOfDayInZone(date: string, zone: string): string {
  const d = parseCalendarDate(date);
  if (!d) throw new RangeError(`not a calendar date: ${date}`);
  // The next day's midnight, minus a millisecond: right even on a day with a DST change.
  const next = new Date(Date.UTC(d.year, d.month - 1, d.day + 1));
  const midnight = zonedInstant({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate(), hour: 0, minute: 0, second: 0 }, zone);
  return new Date(midnight - 1).toISOString();
}

/** The calendar day (`YYYY-MM-DD`) it is in `zone` at instant `ms`. */
export function calendarDateInZone(ms: number, zone: string): string {
  const w = wallClock(ms, zone);
  return `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

export interface QuietHours {
  /** `HH:MM`, local: no reminder from here… */
  start: string;
  /** …until here (may be the next morning: 21:00–08:00). */
  end: string;
}

export const DEFAULT_QUIET_HOURS: QuietHours = { start: '21:00', end: '08:00' };

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
export function isValidClockTime(value: unknown): value is string {
  return typeof value === 'string' && HHMM.test(value);
}
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * When a message due at `dueIso` may go out: unchanged outside the quiet hours, else the moment
 * they end that (or the next) local morning. Start equal to end means no quiet hours.
 */
export function deferPastQuietHours(dueIso: string, zone: string, quiet: QuietHours | null | undefined): string {
  if (!quiet || quiet.start === quiet.end) return dueIso;
  const due = Date.parse(dueIso);
  const w = wallClock(due, zone);
  const now = w.hour * 60 + w.minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const overnight = start > end;
  const inside = overnight ? now >= start || now < end : now >= start && now < end;
  if (!inside) return dueIso;
  // The end falls on the same local day when we are past midnight (or the window does not wrap),
  // else on the next day.
  const sameDay = !overnight || now < end;
  const base = new Date(Date.UTC(w.year, w.month - 1, w.day + (sameDay ? 0 : 1)));
  const until = zonedInstant(
    { year: base.getUTCFullYear(), month: base.getUTCMonth() + 1, day: base.getUTCDate(), hour: Math.floor(end / 60), minute: end % 60, second: 0 },
    zone,
  );
  return new Date(Math.max(until, due)).toISOString();
}

/**
 * The short name people read for a zone at an instant: KST for Seoul, EST/EDT for New York. ICU
 * knows the American and European ones in English; for the rest it says GMT+9 and the like, so
 * a few Asian zones are named by hand.
 */
const ZONE_ABBREVIATIONS: Record<string, string> = { 'Asia/Seoul': 'KST', 'Asia/Tokyo': 'JST', 'Asia/Shanghai': 'CST', 'Asia/Singapore': 'SGT', 'Asia/Hong_Kong': 'HKT', 'Asia/Taipei': 'CST' };
export function zoneAbbreviation(ms: number, zone: string): string {
  if (ZONE_ABBREVIATIONS[zone]) return ZONE_ABBREVIATIONS[zone];
  if (zone === 'UTC' || zone === 'Etc/UTC') return 'UTC';
  const f = intlFormatter(`zone-name:${zone}`, () => new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }));
  const name = f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName');
  return name?.value ?? zone;
}

const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * A time as people read it, always with its zone: "2026년 12월 10일 오후 11:59 (KST)" or
 * "December 10, 2026, 11:59 PM EST". Built from parts rather than a locale's own pattern because
 * ICU versions disagree on Korean day periods, and a deadline must read the same on every server.
 */
export function formatZonedDateTime(value: string | number | Date, zone: string, lang: 'ko' | 'en', dateFormat?: DateFormat): string {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (Number.isNaN(ms)) throw new TypeError(`invalid date: ${String(value)}`);
  const w = wallClock(ms, zone);
  const hour12 = w.hour % 12 === 0 ? 12 : w.hour % 12;
  const pm = w.hour >= 12;
  const minute = String(w.minute).padStart(2, '0');
  const abbr = zoneAbbreviation(ms, zone);
  return lang === 'ko'
    ? // The date as the organization writes dates (its date_format), the time as Koreans read it.
      `${formatDate(`${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`, dateFormat ?? DEFAULT_DATE_FORMAT)} ${pm ? '오후' : '오전'} ${hour12}:${minute} (${abbr})`
    : `${EN_MONTHS[w.month - 1]} ${w.day}, ${w.year}, ${hour12}:${minute} ${pm ? 'PM' : 'AM'} ${abbr}`;
}
