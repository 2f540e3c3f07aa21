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

export interface FlowOptions {
  /**
   * Hex strings (hashes) longer than this are printed in groups of this many characters with a
   * space between, so a narrow column wraps a SHA-256 between two fixed groups and never inside
   * one. Absent: hashes stay whole (a wide column).
   */
  hexGroup?: number;
  /**
   * A narrow column: an id (`key_a898c8e66acda35f9c767b2d`, a UUID, `participant:` and a UUID) is
   * one small monospace run (ID_FONT_SIZE), whole. An id longer than ID_MAX has its prefix on a
   * line of its own and the rest, whole, on the next (an explicit line end: UAX #14 has no break
   * after `:` or `_`). Absent: ids stay whole in the text's own face.
   */
  idGroups?: boolean;
}

/**
 * Ids are compared character by character with the API's and the history's, so they are never
 * split, however narrow the column: they were, as "key_" / the rest and "participant:" /
 * "e5bf4367-7874-4e77-" / "8563-e6bedd2487fe". In a narrow column an id is one monospace run this
 * small: a participant id (48 characters × 0.6 em × 6.3 pt ≈ 181 pt) fits the timeline's
 * event-and-actor column (186 pt) and its detail column (183 pt) whole, a key id (28 characters,
 * 106 pt) with room.
 */
export const ID_FONT_SIZE = 6.3;
/** An id longer than this would not fit a narrow column even that small: its prefix goes on a line of its own. */
const ID_MAX = 48;
/**
 * An address or Message-ID longer than this does not fit a narrow column in the text's own face
 * (8 pt: a 42-character Message-ID on dojang.test fits the 183 pt column): it is set like an id, and one longer than
 * ID_MAX is cut after its `@` and then between the labels of its domain, each piece whole.
 */
const MAIL_PLAIN_MAX = 43;

/**
 * Tokens a reader copies, compares or calls must never be cut by a line end: times and dates
 * (`2026-11-28 13:49:13 KST`), UUIDs with an optional `participant:` prefix, prefixed ids
 * (`key_a898c8e66acda35f9c767b2d`), hex hashes, masked or whole e-mail addresses and phone
 * numbers (`010-****-6666`, `+82 10-1234-5678`), IPv4 addresses. Earlier alternatives win; a
 * prefixed id followed by `@` is the local part of an address or a Message-ID
 * (`<msg_f1443f9645505317a1c736b8@dojang.test>`), whole with it in one face.
 */
const TOKEN = new RegExp(
  [
    /\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|\s?[A-Z]{2,5}(?![A-Za-z])|[+-]\d{2}:?\d{2})?)?/.source,
    /(?<id>(?<uuidPrefix>[a-z_]+:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![\w-])(?<keyPrefix>[a-z]{2,12}_)[A-Za-z0-9]{6,}(?![\w@-]))/.source,
    /(?<hex>(?<![\w-])[0-9a-f]{16,}(?![\w@-]))/.source,
    /(?<mail><?[^\s@()<>,;:]+@[^\s@()<>,;:]+\.[A-Za-z]{2,}>?)/.source,
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
  /** Where an overlong id wraps in a narrow column: after its prefix. */
  const idCuts = new Set<number>();
  for (const m of text.matchAll(TOKEN)) {
    if (m.index === undefined || m[0].length === 0) continue;
    if (options.idGroups && m.groups?.mail !== undefined && m[0].length > MAIL_PLAIN_MAX) {
      // A long address or Message-ID in a narrow column: whole small monospace pieces, one a line.
      // Kept as one run it was the widest thing in its column, and pdfmake widened the column to
      // it, pushing the whole table past the page's edge.
      const pieces = mailPieces(m[0]);
      let at = m.index;
      pieces.forEach((part, i) => {
        if (i > 0) idCuts.add(at);
        protectedSpans.push({ start: at, end: at + part.length, hex: false, idFrom: at });
        at += part.length;
      });
      continue;
    }
    const span: Span = { start: m.index, end: m.index + m[0].length, hex: m.groups?.hex !== undefined };
    if (options.idGroups && m.groups?.id !== undefined) {
      // A narrow column: the id in one small monospace run, whole; an overlong one after its prefix's own line.
      const prefix = m[0].length > ID_MAX ? (m.groups.uuidPrefix ?? m.groups.keyPrefix ?? '') : '';
      if (prefix) idCuts.add(m.index + prefix.length);
      span.idFrom = m.index + prefix.length;
    }
    protectedSpans.push(span);
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

/**
 * A long address or Message-ID cut where a reader expects it: after the `@`, then between domain
 * labels (each line ending with its dot), so every line holds at most ID_MAX characters. A label
 * longer than that on its own stays whole: DNS allows 63 characters, and such a line may overflow.
 */
function mailPieces(token: string): string[] {
  if (token.length <= ID_MAX) return [token];
  const at = token.lastIndexOf('@') + 1;
  const pieces = [token.slice(0, at)];
  let line = '';
  for (const label of token.slice(at).split(/(?<=\.)/)) {
    if (line && line.length + label.length > ID_MAX) {
      pieces.push(line);
      line = '';
    }
    line += label;
  }
  if (line) pieces.push(line);
  return pieces;
}

interface Span {
  start: number;
  end: number;
  /** A hex hash: monospace, grouped in a narrow column. */
  hex: boolean;
  /** An id in a narrow column: from here to its end one small monospace run (before it, an overlong id's prefix). */
  idFrom?: number;
}

/** One piece between two break opportunities; a hash in it set in the monospace face (and grouped), an id in a narrow column too. */
function piece(text: string, offset: number, spans: Span[], options: FlowOptions): TextRun[] {
  const id = spans.find((s) => s.idFrom !== undefined && s.idFrom >= offset && s.end <= offset + text.length);
  if (id?.idFrom !== undefined) {
    const head = text.slice(0, id.idFrom - offset);
    const tail = text.slice(id.end - offset);
    return [
      ...(head ? [{ text: head, noWrap: true } as const] : []),
      { text: text.slice(id.idFrom - offset, id.end - offset), noWrap: true, font: MONO_FONT_FAMILY, fontSize: ID_FONT_SIZE },
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
