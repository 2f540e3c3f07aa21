/**
 * The one masking rule for personal data in everything an auditor reads: `/history`, the audit
 * trail, the events an auditor key is served, the evidence bundle, the audit certificate, the
 * public verify page, and the facts the document seal signs (libs/verifier `documentFacts`).
 * It imports nothing, so the offline verifier (which may import no other lib) uses this very file:
 * a masked bundle is checked by the same function that masked it (issue 31 item 6).
 */

/** 01012345678 → 010-****-5678: enough to recognise one's own number, not to reveal it. */
export function maskPhone(phone: string | null | undefined): string | null {
  if (!phone) return null;
  if (phone.length <= 4) return '*'.repeat(phone.length);
  const last = phone.slice(-4);
  // Short numbers keep no head at all: at least two digits are always hidden.
  const head = phone.slice(0, Math.max(0, Math.min(3, phone.length - 6)));
  const middle = '*'.repeat(phone.length - 4 - head.length);
  return head ? `${head}-${middle}-${last}` : `${middle}-${last}`;
}

/** kim@example.com → k**@example.com */
export function maskEmail(email: string | null | undefined): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  const local = email.slice(0, at);
  return `${local[0]}${'*'.repeat(Math.max(2, local.length - 1))}${email.slice(at)}`;
}

const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
/** A phone number written by a person: starts with 0 or +, 9 to 15 digits, maybe split by - . or spaces. */
const PHONE_IN_TEXT = /(?<![\w+])(?:\+\d[\d .-]{7,20}\d|0\d[\d .-]{6,18}\d)(?!\w)/g;

/**
 * Free text (a decline or cancel reason, a message) may carry contact data: every phone number
 * and e-mail address in it masked as maskPhone / maskEmail mask them. Idempotent — masked text
 * holds `*` where the patterns need digits or address characters — so facts masked once and
 * masked again compare equal.
 */
export function maskContacts(text: string): string {
  return text
    .replace(EMAIL_IN_TEXT, (m) => maskEmail(m) ?? m)
    .replace(PHONE_IN_TEXT, (m) => {
      const digits = m.replace(/\D/g, '');
      return digits.length >= 9 && digits.length <= 15 ? (maskPhone(digits) ?? m) : m;
    });
}
