// The masking rule lives with the free-text one, in a file the offline verifier may import.
export { maskEmail, maskPhone } from './personal-data';

/** Compares two strings without an early exit, so timing reveals nothing about where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/**
 * Bidirectional formatting controls: embeddings and overrides (U+202A–202E), isolates
 * (U+2066–2069) and the marks U+200E/U+200F. In a name that reaches a message or a file name they
 * reorder what people read: "\u202eknaB" shows as "Bank" in an SMS prefix, "evil\u202egnp.exe" as
 * "evilexe.png" (issue 33 §14). Names are refused with them; file names have them removed.
 */
const BIDI_CONTROL = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function hasBidiControl(text: string): boolean {
  return BIDI_CONTROL.test(text);
}

export function withoutBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}
