import type { Content } from 'pdfmake/interfaces';

/**
 * Bounds what pdfmake's line breaker can be made to do (issue 24, item 16). Two of its costs grow
 * faster than the text:
 * - a word wider than the line is cut by measuring ever shorter prefixes of the whole remaining
 *   word for every line it fills: a 12,000-character word took 100 s, a 4,000-character one 6.5 s;
 * - every inline of a paragraph copies the list of the inlines after it: one paragraph of 30,000
 *   words took minutes.
 * So before pdfmake sees the body, words longer than MAX_UNBROKEN_CHARS are handed over as
 * separate inlines of that length (pdfmake keeps them on one line while they fit and cuts between
 * them like any over-long word, so the page looks the same), and paragraphs of more than
 * MAX_UNITS_PER_TEXT words are laid out as consecutive text blocks of at most that many. Ordinary
 * contracts have neither and are passed through untouched, so their PDFs stay byte for byte the
 * same.
 */
export const MAX_UNBROKEN_CHARS = 40;
export const MAX_UNITS_PER_TEXT = 1_000;

/** Characters pdfmake's line breaker may break after (Hangul, CJK): each is a word of its own. */
const WIDE = '\\u1100-\\u11ff\\u2e80-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff00-\\uffef';
const UNIT = new RegExp(`\\s+|[${WIDE}]\\s*|[^\\s${WIDE}]+\\s*`, 'gu');
/** Never cut before these: they combine with what precedes them (marks, Hangul vowel and final jamo). */
const COMBINING = /^[\p{M}\u1160-\u11ff\ud7b0-\ud7ff\u200c\u200d]/u;

type Inline = string | ({ text: string } & Record<string, unknown>);
interface Unit {
  text: string;
  /** The inline of the source it came from. */
  from: number;
  /** Must start a new inline: the piece of a cut word. */
  cut: boolean;
}

/** A word cut into pieces of at most `max` code points, never before a combining character. */
export function cutLongWord(word: string, max = MAX_UNBROKEN_CHARS): string[] {
  const chars = Array.from(word);
  if (chars.length <= max) return [word];
  const pieces: string[] = [];
  let start = 0;
  while (start < chars.length) {
    let end = Math.min(start + max, chars.length);
    while (end < chars.length && COMBINING.test(chars[end])) end++;
    pieces.push(chars.slice(start, end).join(''));
    start = end;
  }
  return pieces;
}

function unitsOf(inlines: Inline[]): { units: Unit[]; changed: boolean } {
  const units: Unit[] = [];
  let changed = false;
  inlines.forEach((inline, from) => {
    const text = typeof inline === 'string' ? inline : inline.text;
    for (const [match] of text.matchAll(UNIT)) {
      const word = match.trimEnd();
      if (word.length <= MAX_UNBROKEN_CHARS) {
        units.push({ text: match, from, cut: false });
        continue;
      }
      const pieces = cutLongWord(word);
      if (pieces.length > 1) changed = true;
      pieces.forEach((piece, i) => units.push({ text: i === pieces.length - 1 ? piece + match.slice(word.length) : piece, from, cut: i > 0 }));
    }
  });
  return { units, changed: changed || units.length > MAX_UNITS_PER_TEXT };
}

/** A paragraph's inlines, in parts of at most MAX_UNITS_PER_TEXT words, long words in pieces; null when nothing needs it. */
export function boundInlines(inlines: Inline[]): Inline[][] | null {
  const { units, changed } = unitsOf(inlines);
  if (!changed) return null;
  const parts: Inline[][] = [];
  for (let start = 0; start < units.length; start += MAX_UNITS_PER_TEXT) {
    const part: Inline[] = [];
    let text = '';
    let from = -1;
    const push = () => {
      if (from < 0) return;
      const source = inlines[from];
      part.push(typeof source === 'string' ? text : { ...source, text });
    };
    for (const unit of units.slice(start, start + MAX_UNITS_PER_TEXT)) {
      if (unit.from !== from || unit.cut) {
        push();
        text = '';
        from = unit.from;
      }
      text += unit.text;
    }
    push();
    parts.push(part);
  }
  return parts;
}

function isInline(value: unknown): value is Inline {
  return typeof value === 'string' || (typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string');
}

function boundTextNode(node: Content): Content {
  if (typeof node === 'string') {
    const parts = boundInlines([node]);
    return parts ? { stack: parts.map((text) => ({ text })) } : node;
  }
  if (typeof node !== 'object' || node === null) return node;
  const n = node as unknown as Record<string, unknown>;
  if ('text' in n) {
    const text = n.text;
    const inlines = Array.isArray(text) ? text : [text];
    // Only flat paragraphs (what the converters make); anything else is left as it is.
    if (!inlines.every(isInline)) return node;
    const parts = boundInlines(inlines as Inline[]);
    if (!parts) return node;
    if (parts.length === 1) return { ...n, text: parts[0] } as Content;
    const { text: _text, ...props } = n;
    return { ...props, stack: parts.map((part) => ({ text: part })) } as Content;
  }
  const out: Record<string, unknown> = { ...n };
  for (const key of ['stack', 'ul', 'ol', 'columns'] as const) {
    if (Array.isArray(n[key])) out[key] = (n[key] as Content[]).map(boundTextNode);
  }
  const table = n.table as { body?: Content[][] } | undefined;
  if (table && Array.isArray(table.body)) out.table = { ...table, body: table.body.map((row) => row.map(boundTextNode)) };
  return out as unknown as Content;
}

/** The content with long words cut and long paragraphs split (see above); ordinary content unchanged. */
export function boundLayoutWork(content: Content[]): Content[] {
  return content.map(boundTextNode);
}
