import { existsSync } from 'fs';
import { dirname, join } from 'path';
import { SealInputError } from './errors';

/**
 * A personal seal (도장) made from a signer's name: red, round or square, the name set in Nanum
 * Myeongjo ExtraBold — the 명조 face Korean seal engravers offer — shipped as an npm package
 * (@expo-google-fonts/nanum-myeongjo), so rendering needs no network and no system font.
 */
export type PersonalSealShape = 'round' | 'square';
export const PERSONAL_SEAL_SHAPES: readonly PersonalSealShape[] = ['round', 'square'];
/** A name on a seal: a few characters; more turn to mush at stamp size. */
export const PERSONAL_SEAL_MAX_CHARS = 10;
export const PERSONAL_SEAL_SIZE = 360;

const INK = '#c62828';
const FAMILY = 'NanumMyeongjo';
const FALLBACK = 'Noto Sans KR';
const ALLOWED = 'Hangul, Hanja, Latin letters, digits, spaces and the middle dot (·)';

let fontFiles: string[] | undefined;

function sealFontFiles(): string[] {
  if (fontFiles) return fontFiles;
  const myeongjo = join(dirname(require.resolve('@expo-google-fonts/nanum-myeongjo/package.json')), '800ExtraBold', 'NanumMyeongjo_800ExtraBold.ttf');
  // Noto Sans KR covers the Hanja Nanum Myeongjo lacks (Nanum has those of KS X 1001 only).
  const noto = join(dirname(require.resolve('@expo-google-fonts/noto-sans-kr/package.json')), '700Bold', 'NotoSansKR_700Bold.ttf');
  for (const f of [myeongjo, noto]) if (!existsSync(f)) throw new Error(`seal font not found at ${f}`);
  fontFiles = [myeongjo, noto];
  return fontFiles;
}

// One user-perceived character each: Hangul syllables and jamo, CJK ideographs (Hanja), Latin
// letters (with accents, as NFC makes them), digits, a space, the middle dot. Nothing else: no
// emoji, symbols, punctuation, control or direction-override characters.
const SEAL_CHAR = /^(?:[\p{Script=Hangul}\p{Script=Han}]|\p{Script=Latin}|\p{Nd}| |[·ㆍ])$/u;

const refuse = (message: string) => new SealInputError('seal_text_invalid', 'text', message);

/**
 * The seal's text as characters, checked: 1 to 10 after trimming, each one a seal can carry.
 * @throws SealInputError `seal_text_invalid` (param `text`) saying what is allowed.
 */
export function personalSealText(text: unknown): string[] {
  if (typeof text !== 'string') throw refuse('text must be a string.');
  // Looked at only when short enough to be a name: a long string is refused before any work.
  if (text.length > 100) throw refuse(`text is too long: a seal takes at most ${PERSONAL_SEAL_MAX_CHARS} characters (${ALLOWED}).`);
  const trimmed = text.normalize('NFC').replace(/\s+/g, ' ').trim();
  const chars = Array.from(new Intl.Segmenter('ko', { granularity: 'grapheme' }).segment(trimmed), (s) => s.segment);
  if (chars.length === 0) throw refuse(`text is empty: a seal takes 1 to ${PERSONAL_SEAL_MAX_CHARS} characters (${ALLOWED}).`);
  if (chars.length > PERSONAL_SEAL_MAX_CHARS) throw refuse(`text has ${chars.length} characters: a seal takes at most ${PERSONAL_SEAL_MAX_CHARS} (${ALLOWED}).`);
  const bad = chars.find((c) => !SEAL_CHAR.test(c));
  if (bad !== undefined) {
    const cp = bad.codePointAt(0) ?? 0;
    throw refuse(`text contains U+${cp.toString(16).toUpperCase().padStart(4, '0')}, which a seal cannot carry: use ${ALLOWED}.`);
  }
  return chars;
}

const n = (v: number) => String(Math.round(v * 100) / 100);
const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const IDEOGRAPHIC = /^[\p{Script=Hangul}\p{Script=Han}·ㆍ]$/u;

/**
 * The seal's SVG in a 100-unit box. Korean and Hanja names read in columns, right to left, top to
 * bottom, as on a carved seal (a 2-character name gets 인 after it); a name with Latin letters or
 * digits reads in rows. Every character gets a cell of the same size, centred in the frame.
 */
export function buildPersonalSealSvg(text: string, shape: PersonalSealShape, size = PERSONAL_SEAL_SIZE): string {
  const all = personalSealText(text);
  const chars = all.filter((c) => c !== ' ');
  const vertical = chars.every((c) => IDEOGRAPHIC.test(c));
  const inner = shape === 'round' ? 62 : 76; // the square the text fills, inside the frame
  const body = vertical ? columns(chars.length === 2 ? [...chars, '인'] : chars, inner) : rows(all.join('').split(' '), inner);
  const frame =
    shape === 'round'
      ? `<circle cx="50" cy="50" r="46" fill="none" stroke="${INK}" stroke-width="4.5"/>`
      : `<rect x="6" y="6" width="88" height="88" rx="5" fill="none" stroke="${INK}" stroke-width="4.5"/>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100">`,
    frame,
    // A thin outline of the same ink thickens the strokes the way a carved seal prints.
    `<g fill="${INK}" stroke="${INK}" stroke-width="0.9" stroke-linejoin="round" font-family="${FAMILY}, ${FALLBACK}" font-weight="800" text-anchor="middle">`,
    ...body,
    `</g>`,
    `</svg>`,
  ].join('');
}

/** Latin letters and digits: a word per row, sized so the longest fits (about 0.62 em a letter). */
function rows(words: string[], inner: number): string[] {
  const longest = Math.max(...words.map((w) => w.length));
  const size = Math.min(inner / (longest * 0.62), inner / (words.length * 1.15), 40);
  const top = 50 - (size * 1.15 * words.length) / 2;
  return words.map((w, i) => `<text x="50" y="${n(top + size * 1.15 * (i + 0.5) + size * 0.34)}" font-size="${n(size)}">${escapeXml(w)}</text>`);
}

/** Hangul and Hanja: one cell a character, in columns read right to left, top to bottom. */
function columns(chars: string[], inner: number): string[] {
  const count = chars.length;
  // Columns of at most 3 characters, as few as fit.
  const perLine = count <= 3 ? count : count === 4 ? 2 : 3;
  const lines = Math.ceil(count / perLine);
  const cell = Math.min(inner / Math.max(perLine, lines), count === 1 ? 56 : 40);
  const across = cell * lines;
  return chars.map((c, i) => {
    const line = Math.floor(i / perLine);
    const at = i % perLine;
    const inLine = Math.min(perLine, count - line * perLine);
    const start = 50 - (cell * inLine) / 2; // a short last column is centred
    const cx = 50 + across / 2 - cell * (line + 0.5);
    const cy = start + cell * (at + 0.5);
    return `<text x="${n(cx)}" y="${n(cy + cell * 0.34)}" font-size="${n(cell * 0.92)}">${escapeXml(c)}</text>`;
  });
}

/** What the PDF pool's RENDER_SVG job takes to render the seal (never on the API's event loop). */
export function personalSealRenderInput(text: string, shape: PersonalSealShape): { svg: string; font_files: string[]; default_font_family: string } {
  if (!PERSONAL_SEAL_SHAPES.includes(shape)) throw new SealInputError('invalid_parameter', 'shape', 'shape must be round or square.');
  return { svg: buildPersonalSealSvg(text, shape), font_files: sealFontFiles(), default_font_family: FAMILY };
}
