import { maskContacts, maskEmail, maskPhone } from '@dojang/domain';

export const REDACTED = '[redacted]';

/** Secrets that must never leave the server, whatever event carries them (PIN, token, key hashes). */
const SECRET_KEY = /(^|_)(pin|token|key|secret)_(hash|ciphertext)$|^(pin|secret|token)$/;

/**
 * Personal data in an event's data masked by the one rule (libs/domain personal-data.ts) for every
 * auditor read — `/history`, the events and the evidence bundle an auditor key is served: phone
 * numbers and e-mail addresses by `maskPhone` / `maskEmail`, contacts inside free text (a decline
 * or cancel reason, a message) by `maskContacts`, and secrets replaced by "[redacted]". Walks the
 * whole value by key name, so an event type added later is masked without anyone remembering to.
 * The audit certificate and the seal's facts mask reasons with the same `maskContacts`, so a
 * masked bundle still verifies offline against them.
 */
export function maskEventData(value: unknown, key = ''): unknown {
  if (SECRET_KEY.test(key)) return value == null ? value : REDACTED;
  if (Array.isArray(value)) return value.map((v) => maskEventData(v, ''));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = maskEventData(v, k);
    return out;
  }
  if (typeof value !== 'string') return value;
  if (key === 'phone' || key === 'to_phone') return maskPhone(value);
  if (key === 'email' || key === 'to_email') return maskEmail(value);
  if (key === 'reason' || key === 'message') return maskContacts(value);
  return value;
}
