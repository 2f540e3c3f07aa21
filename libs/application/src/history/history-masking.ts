import { maskEmail, maskPhone } from '@dojang/domain';
import { maskContacts } from '@dojang/projections';

export const REDACTED = '[redacted]';

/** Secrets that must never leave the server, whatever event carries them (PIN, token, key hashes). */
const SECRET_KEY = /(^|_)(pin|token|key|secret)_(hash|ciphertext)$|^(pin|secret|token)$/;

/**
 * Personal data in an event's data masked as the audit trail masks it: phone numbers and e-mail
 * addresses by `maskPhone` / `maskEmail`, contacts inside free text (a decline reason) by
 * `maskContacts`, and secrets replaced by "[redacted]". Walks the whole value by key name, so an
 * event type added later is masked without anyone remembering to.
 */
export function maskEventData(value: unknown, key = '', options: { contactsInText?: boolean } = {}): unknown {
  if (SECRET_KEY.test(key)) return value == null ? value : REDACTED;
  if (Array.isArray(value)) return value.map((v) => maskEventData(v, '', options));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = maskEventData(v, k, options);
    return out;
  }
  if (typeof value !== 'string') return value;
  if (key === 'phone' || key === 'to_phone') return maskPhone(value);
  if (key === 'email' || key === 'to_email') return maskEmail(value);
  // The evidence bundle keeps free text as stored (options.contactsInText false): the audit
  // certificate states a decline reason as recorded, and the verifier compares the two.
  if ((key === 'reason' || key === 'message') && options.contactsInText !== false) return maskContacts(value);
  return value;
}
