import LineBreaker from 'linebreak';
import { MONO_FONT_FAMILY } from './fonts';

/**
 * One run of text pdfmake never breaks inside (`noWrap`); a line may end only between runs. A
 * run without noWrap is a line end (`\n`) or a piece too long for any column (see LONG_PIECE).
 */
export interface TextRun {
  text: string;
  noWrap?: true;
  font?: string;
  fontSize?: number;
}

/**
 * A piece with no break opportunity and no protected token that is longer than this (a URL, a
 * user agent, a run of letters with no space) may still be cut where its column ends: kept whole
 * it would run past the page edge.
 */
const LONG_PIECE = 48;

/** An id longer than this is set on lines of its groups in a narrow column (FlowOptions.idGroups). */
const ID_LINE = 24;

export interface FlowOptions {
  /**
   * Hex strings (hashes) longer than this are printed in groups of this many characters with a
   * space between, so a narrow column wraps a SHA-256 between two fixed groups and never inside
   * one. Absent: hashes stay whole (a wide column).
   */
  hexGroup?: number;
  /**
   * In a narrow column a long id is set on lines of its own groups: its prefix (`participant:`),
   * then a UUID in two halves at its third hyphen; a key id (`key_…`) stays whole in a smaller
   * monospace run (KEY_ID_FONT_SIZE). Line ends are explicit: UAX #14 has
   * no break after `:`, `_` or before a digit after `-`, and pdfmake will not break between two
   * runs where the joined text has none. Absent: ids stay whole.
   */
  idGroups?: boolean;
}

/**
 * A prefixed key id (`key_a898c8e66acda35f9c767b2d`, 28 characters) in a narrow column: one
 * monospace run this small, so it fits the timeline's actor column whole (28 × 0.6 em × 6.5 pt ≈
 * 109 pt of its 116) instead of breaking at "key_". Ids are compared character by character with
 * the API's and the history's, so they are never split, however narrow the column.
 */
export const KEY_ID_FONT_SIZE = 6.5;
/** A key id longer than this still gets its own line but is not shrunk further (it would be unreadable). */
const KEY_ID_MAX = 32;

/**
 * Tokens a reader copies, compares or calls must never be cut by a line end: times and dates
 * (`2026-11-28 13:49:13 KST`), UUIDs with an optional `participant:` prefix, prefixed ids
 * (`key_a898c8e66acda35f9c767b2d`), hex hashes, masked or whole e-mail addresses and phone
 * numbers (`010-****-6666`, `+82 10-1234-5678`), IPv4 addresses. Earlier alternatives win.
 */
const TOKEN = new RegExp(
  [
    /\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|\s?[A-Z]{2,5}(?![A-Za-z])|[+-]\d{2}:?\d{2})?)?/.source,
    /(?<id>(?:[a-z_]+:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<key>(?<![\w-])[a-z]{2,12}_[A-Za-z0-9]{6,}(?![\w-])))/.source,
    /(?<hex>(?<![\w-])[0-9a-f]{16,}(?![\w-]))/.source,
    /[^\s@()<>,;:]+@[^\s@()<>,;:]+\.[A-Za-z]{2,}/.source,
    /(?<![\w*+.-])\+?\d[\d*]{0,4}(?:[ -][\d*]{2,5}){1,3}(?![\w*.-])/.source,
    /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])/.source,
  ].join('|'),
  'gi',
);

const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;
const SPACE = /\s/;

/**
 * Text for the audit certificate, cut into runs that break only where Korean and English allow.
 *
 * Where a line may end comes from UAX #14 (the `linebreak` package, the one pdfmake itself uses),
 * with two rules on top: no break inside a protected token (TOKEN), and none between two
 * characters of a Korean word — Korean documents break at spaces ("keep-all", as CSS's
 * `word-break: keep-all`), while UAX #14 alone allows a break between any two syllables, which
 * printed "자필 서명과 같 / 은 효력을". Each piece becomes one `noWrap` run, so pdfmake never falls
 * back to cutting a run at an arbitrary character. A piece wider than its column overflows rather
 * than break: columns are sized for their tokens, and hashes in narrow columns come in fixed
 * groups (`hexGroup`).
 */
export function flowingText(text: string, options: FlowOptions = {}): TextRun[] {
  // A line end stays a line end: pdfmake honours one only in a run it may break.
  return text.split(/\r?\n/).flatMap((line, i) => (i === 0 ? flowingLine(line, options) : [{ text: '\n' }, ...flowingLine(line, options)]));
}

function flowingLine(text: string, options: FlowOptions): TextRun[] {
  const protectedSpans: Span[] = [];
  /** Where an id may wrap in a narrow column: its own group boundaries. */
  const idCuts = new Set<number>();
  for (const m of text.matchAll(TOKEN)) {
    if (m.index === undefined || m[0].length === 0) continue;
    // A key id in a narrow column: whole, in a small monospace run (KEY_ID_FONT_SIZE), never cut.
    const key = !!options.idGroups && m.groups?.key !== undefined && m[0].length <= KEY_ID_MAX;
    protectedSpans.push({ start: m.index, end: m.index + m[0].length, hex: m.groups?.hex !== undefined, key });
    if (!key && options.idGroups && m.groups?.id !== undefined && m[0].length > ID_LINE) {
      const prefix = /^[a-z]+[:_]/.exec(m[0]);
      if (prefix) idCuts.add(m.index + prefix[0].length);
      const third = /^(?:[^-]*-){3}/.exec(m[0].slice(prefix?.[0].length ?? 0));
      if (third) idCuts.add(m.index + (prefix?.[0].length ?? 0) + third[0].length);
    }
  }
  const insideToken = (p: number) => protectedSpans.some((s) => s.start < p && p < s.end);

  const cuts: number[] = [];
  const breaker = new LineBreaker(text);
  for (let bk = breaker.nextBreak(); bk; bk = breaker.nextBreak()) {
    const p = bk.position;
    if (p <= 0 || p >= text.length) continue;
    if (insideToken(p)) continue;
    const before = text[p - 1];
    const after = text[p];
    if (!bk.required && !SPACE.test(before) && (HANGUL.test(before) || HANGUL.test(after))) continue;
    cuts.push(p);
  }

  const runs: TextRun[] = [];
  let last = 0;
  for (const p of [...new Set([...cuts, ...idCuts, text.length])].sort((a, b) => a - b)) {
    if (p > last) runs.push(...piece(text.slice(last, p), last, protectedSpans, options));
    if (idCuts.has(p)) runs.push({ text: '\n' });
    last = p;
  }
  return runs;
}

interface Span {
  start: number;
  end: number;
  /** A hex hash: monospace, grouped in a narrow column. */
  hex: boolean;
  /** A key id in a narrow column: one small monospace run. */
  key: boolean;
}

/** One piece between two break opportunities; a hash in it set in the monospace face (and grouped), a key id in a narrow column too. */
function piece(text: string, offset: number, spans: Span[], options: FlowOptions): TextRun[] {
  const key = spans.find((s) => s.key && s.start >= offset && s.end <= offset + text.length);
  if (key) {
    const head = text.slice(0, key.start - offset);
    const tail = text.slice(key.end - offset);
    return [
      ...(head ? [{ text: head, noWrap: true } as const] : []),
      { text: text.slice(key.start - offset, key.end - offset), noWrap: true, font: MONO_FONT_FAMILY, fontSize: KEY_ID_FONT_SIZE },
      ...(tail ? [{ text: tail, noWrap: true } as const] : []),
    ];
  }
  const hex = spans.find((s) => s.hex && s.start >= offset && s.end <= offset + text.length);
  if (!hex) {
    const tokenInside = spans.some((s) => s.start < offset + text.length && s.end > offset);
    return [tokenInside || text.trimEnd().length <= LONG_PIECE ? { text, noWrap: true } : { text }];
  }
  const runs: TextRun[] = [];
  const head = text.slice(0, hex.start - offset);
  const value = text.slice(hex.start - offset, hex.end - offset);
  const tail = text.slice(hex.end - offset);
  if (head) runs.push({ text: head, noWrap: true });
  const group = options.hexGroup && value.length > options.hexGroup ? options.hexGroup : value.length;
  for (let i = 0; i < value.length; i += group) {
    const last = i + group >= value.length;
    // Grouped (a narrow column): a size smaller, so a group of 32 fits its column with room.
    runs.push({ text: value.slice(i, i + group) + (last ? '' : ' '), noWrap: true, font: MONO_FONT_FAMILY, ...(group < value.length ? { fontSize: 7.5 } : {}) });
  }
  if (tail) runs.push({ text: tail, noWrap: true });
  return runs;
}
