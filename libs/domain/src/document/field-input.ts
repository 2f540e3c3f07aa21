/**
 * Numbers and dates as Koreans write them, read into the one form a value is recorded in (numbers
 * as plain decimal strings, dates as YYYY-MM-DD). Pure and free of Node APIs: the signing page
 * bundles these very functions, so the page and the API read a value alike. What a reader cannot
 * read is returned unchanged, for valueProblem (field-types.ts) to refuse with the field named.
 */

/**
 * 3500000, 3,500,000, 3500000원, 3,500,000 원, ₩3,500,000, -12.5, 1,234.56: an optional minus,
 * an optional ₩ (or full-width ￦) before, an optional 원 after, digits either ungrouped or in
 * groups of three separated by commas, and an optional decimal part. No exponent (1e400), no
 * commas out of place (3,5,0): a misplaced comma is more likely a typo than a thousands separator.
 */
const WRITTEN_NUMBER = /^([-−])?\s*[₩￦]?\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(?:원)?$/u;

/** The number `text` writes, as a plain decimal string (3500000, -12.5), or null when it writes none. */
export function readNumberInput(text: string): string | null {
  const m = WRITTEN_NUMBER.exec(text.trim());
  if (!m) return null;
  const [, minus, whole, fraction] = m;
  const digits = whole.replace(/,/g, '').replace(/^0+(?=\d)/, '');
  const value = `${digits}${fraction ?? ''}`;
  // -0 is 0: one recorded form per number.
  return minus && /[1-9]/.test(value) ? `-${value}` : value;
}

/**
 * 1995-03-15 (ISO), 1995.03.15, 1995. 3. 15., 1995/3/15 and 1995년 3월 15일: year, month and day
 * in that order (the order Korean writes them), each part's separator the same throughout.
 */
const WRITTEN_DATES = [
  /^(\d{4})-(\d{1,2})-(\d{1,2})$/,
  /^(\d{4})\.\s*(\d{1,2})\.\s*(\d{1,2})\.?$/,
  /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/,
  /^(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일$/u,
];

/**
 * The date `text` writes, as YYYY-MM-DD, or null when it writes none. The calendar is not
 * consulted: 1995.02.30 reads as 1995-02-30, which valueProblem then refuses as no day at all.
 */
export function readDateInput(text: string): string | null {
  const trimmed = text.trim();
  for (const pattern of WRITTEN_DATES) {
    const m = pattern.exec(trimmed);
    if (m) return `${m[1]}-${m[2].padStart(2, '0')}-${m[3].padStart(2, '0')}`;
  }
  return null;
}

/**
 * A value typed into a field of `type`, in its recorded form: numbers and dates read as above,
 * anything else (and what cannot be read) as given.
 */
export function readFieldText(type: string, text: string): string {
  if (type === 'number') return readNumberInput(text) ?? text;
  if (type === 'date') return readDateInput(text) ?? text;
  return text;
}
