/**
 * Invisible format characters (zero-width space, joiners, bidi controls and
 * marks, the Arabic letter mark, BOM, variation selectors, soft hyphen). The
 * bidi controls must go anyway: an override in a name or title would make
 * the text after it read backwards ("(rengiS)"), spoofing what people sign. Browsers draw nothing for them,
 * but the PDF font has no glyph either, so pdfkit would draw its "missing
 * glyph" box — visible tofu in a contract. They are removed before layout.
 * Hangul fillers (U+115F, U+1160, U+3164) are deliberately not listed: they
 * take part in composing old Hangul syllables.
 */
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff]/g;

export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

export function hasInvisible(text: string): boolean {
  INVISIBLE.lastIndex = 0;
  const found = INVISIBLE.test(text);
  INVISIBLE.lastIndex = 0;
  return found;
}
