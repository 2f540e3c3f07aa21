// Relative, as libs/verifier reads the hash chain: this file also runs in pool threads, which load
// sources without the @dojang path aliases; zoned-time.ts is pure and imports nothing.
import { wallClock, zoneAbbreviation } from '../../domain/src/shared/zoned-time';

// The certificate's way of writing times, apart from its rendering: the API's main thread formats
// times for the JSON certificate facts and must not load pdfmake to do it (see index.ts).

/** Where times are shown when the caller names no zone: Dojang's home, as before zones existed. */
export const DEFAULT_CERTIFICATE_ZONE = 'Asia/Seoul';

/** How the certificate writes an instant (in the organization's zone, with its name). */
export type TimeFormat = (value: string | null | undefined) => string;

/**
 * `2026-03-01 09:07:30 KST`, or `2026-12-10 23:59:59 EST` for an organization in New York: the
 * wall clock where the organization is, its zone named at that instant (EST or EDT), so no time
 * on the certificate is read in the wrong zone.
 */
export function formatCertificateTime(value: string | null | undefined, zone: string = DEFAULT_CERTIFICATE_ZONE): string {
  if (!value) return '—';
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return value;
  const w = wallClock(ms, zone);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${w.year}-${two(w.month)}-${two(w.day)} ${two(w.hour)}:${two(w.minute)}:${two(w.second)} ${zoneAbbreviation(ms, zone)}`;
}

/** Korean time, as the certificate shows it for an organization in Seoul (the default zone). */
export function formatKst(value: string | null | undefined): string {
  return formatCertificateTime(value, 'Asia/Seoul');
}
