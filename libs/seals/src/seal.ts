import { existsSync } from 'fs';
import { dirname, join } from 'path';
import { SealInputError } from './errors';

/** Longest company name (in user-perceived characters) a generated seal accepts. */
export const SEAL_NAME_MAX_CHARS = 30;
export const SEAL_DEFAULT_SIZE = 300;
/** Below this the ring text turns to mush; above it the PNG is pointlessly large for a PDF stamp. */
export const SEAL_MIN_SIZE = 64;
export const SEAL_MAX_SIZE = 2048;

const INK = '#d32f2f';
const FONT_FAMILY = 'Noto Sans KR';

export interface SealOptions {
  /** Width and height of the square PNG in pixels; default 300. */
  size?: number;
}

let fontFile: string | undefined;

/**
 * Located through the package rather than a hard-coded node_modules path so hoisting or a
 * different install root does not break it. Found once, then reused.
 */
function sealFontFile(): string {
  if (fontFile) return fontFile;
  const pkg = require.resolve('@expo-google-fonts/noto-sans-kr/package.json');
  const file = join(dirname(pkg), '700Bold', 'NotoSansKR_700Bold.ttf');
  if (!existsSync(file)) throw new Error(`seal font not found at ${file}`);
  fontFile = file;
  return file;
}

/**
 * Renders a round red corporate seal (직인) for `companyName` as a transparent PNG.
 *
 * Up to 4 characters (spaces ignored) are set in a grid, completed with "인" when there is room,
 * as on a personal or small-company seal; longer names run around the ring with "직인" in the
 * middle, as on a round corporate seal.
 *
 * @throws SealInputError (param `company_name` or `size`) for unusable input.
 */
export function generateSealPng(companyName: string, opts: SealOptions = {}): Buffer {
  const input = sealRenderInput(companyName, opts);
  // Loaded on first use: the API renders seals in its PDF pool (sealRenderInput) and never loads
  // the native renderer on its own thread.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Resvg } = require('@resvg/resvg-js') as typeof import('@resvg/resvg-js');
  const resvg = new Resvg(input.svg, {
    // System fonts are off so the seal looks the same on every machine, and so a missing
    // glyph shows as missing rather than silently falling back to some other typeface.
    font: { fontFiles: input.font_files, loadSystemFonts: false, defaultFontFamily: input.default_font_family },
  });
  return resvg.render().asPng();
}

/**
 * What rendering the seal takes, checked: its SVG and the font its text is set in. The API hands
 * this to its worker pool (the PDF pool's RENDER_SVG job), which renders exactly what
 * {@link generateSealPng} does, off the event loop.
 *
 * @throws SealInputError (param `company_name` or `size`) for unusable input.
 */
export function sealRenderInput(companyName: string, opts: SealOptions = {}): { svg: string; font_files: string[]; default_font_family: string; size: number } {
  const size = opts.size ?? SEAL_DEFAULT_SIZE;
  if (!Number.isInteger(size) || size < SEAL_MIN_SIZE || size > SEAL_MAX_SIZE) {
    throw new SealInputError(
      'invalid_parameter',
      'size',
      `size must be an integer from ${SEAL_MIN_SIZE} to ${SEAL_MAX_SIZE}`,
    );
  }
  return { svg: buildSealSvg(companyName, size), font_files: [sealFontFile()], default_font_family: FONT_FAMILY, size };
}

/**
 * The SVG behind {@link generateSealPng}; exposed so a vector stamp can be embedded directly
 * (e.g. in a PDF) without going through a bitmap. Uses the font family "Noto Sans KR", bold.
 */
export function buildSealSvg(companyName: string, size: number = SEAL_DEFAULT_SIZE): string {
  const chars = normalizeSealName(companyName);
  const compact = chars.filter((c) => c !== ' ');
  const body = compact.length <= 4 ? gridLayout(compact) : ringLayout(chars);
  // Drawn in a 100-unit box so layout numbers stay readable whatever the output size.
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 100 100">`,
    `<g fill="none" stroke="${INK}">`,
    `<circle cx="50" cy="50" r="46.5" stroke-width="3"/>`,
    `<circle cx="50" cy="50" r="42.5" stroke-width="1"/>`,
    `</g>`,
    `<g fill="${INK}" font-family="${FONT_FAMILY}" font-weight="700" text-anchor="middle">`,
    body,
    `</g>`,
    `</svg>`,
  ].join('');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Characters XML cannot carry even escaped, plus C1 controls that would only be invisible junk.
const NOT_XML_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]/;

/**
 * Returns the name as user-perceived characters (grapheme clusters) with whitespace runs
 * collapsed to one ' '. Counting graphemes, not UTF-16 units, keeps the 30-character limit
 * meaning what a user sees.
 */
function normalizeSealName(name: unknown): string[] {
  if (typeof name !== 'string') {
    throw new SealInputError('invalid_parameter', 'company_name', 'company_name must be a string');
  }
  const text = name.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (text === '') {
    throw new SealInputError('invalid_parameter', 'company_name', 'company_name must not be empty');
  }
  if (NOT_XML_TEXT.test(text) || LONE_SURROGATE.test(text)) {
    throw new SealInputError(
      'invalid_parameter',
      'company_name',
      'company_name contains control or invalid characters',
    );
  }
  const segmenter = new Intl.Segmenter('ko', { granularity: 'grapheme' });
  const chars = Array.from(segmenter.segment(text), (s) => s.segment);
  if (chars.length > SEAL_NAME_MAX_CHARS) {
    throw new SealInputError(
      'invalid_parameter',
      'company_name',
      `company_name must be at most ${SEAL_NAME_MAX_CHARS} characters (got ${chars.length})`,
    );
  }
  return chars;
}

function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => XML_ENTITIES[c]);
}
const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Round to keep the SVG short and byte-stable across platforms' float printing. */
function n(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/**
 * A glyph whose em box is centred on (cx, cy). Noto's CJK em box sits about 0.38 em above the
 * baseline, hence the baseline offset; `scaleY` stretches a lone character to fill its column.
 */
function glyph(ch: string, cx: number, cy: number, fontSize: number, extra = ''): string {
  return (
    `<text transform="translate(${n(cx)} ${n(cy)})${extra}" x="0" y="${n(fontSize * 0.38)}" ` +
    `font-size="${n(fontSize)}">${escapeXml(ch)}</text>`
  );
}

const HANGUL_OR_HAN = /^[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]$/u;

function gridLayout(name: string[]): string {
  const cells = name.length < 4 ? [...name, '인'] : name;
  switch (cells.length) {
    case 2:
      return glyph(cells[0], 50, 33, 32) + glyph(cells[1], 50, 67, 32);
    case 3:
      // Traditional reading order: right column top to bottom, then the left column, where
      // "인" is stretched to span both rows.
      return (
        glyph(cells[0], 63.5, 36.5, 26) +
        glyph(cells[1], 63.5, 63.5, 26) +
        glyph(cells[2], 36.5, 50, 26, ' scale(1 1.9)')
      );
    case 4: {
      // Vertical right-to-left suits Korean and Chinese characters; Latin letters read
      // left-to-right in rows, or "ACME" would come out as "MACE".
      const vertical = cells.every((c) => HANGUL_OR_HAN.test(c));
      const pos = vertical
        ? [[63.5, 36.5], [63.5, 63.5], [36.5, 36.5], [36.5, 63.5]]
        : [[36.5, 36.5], [63.5, 36.5], [36.5, 63.5], [63.5, 63.5]];
      return cells.map((c, i) => glyph(c, pos[i][0], pos[i][1], 26)).join('');
    }
    default:
      // Unreachable: an empty name is rejected earlier, and 1 character always gets "인".
      return glyph(cells[0] ?? '', 50, 50, 50);
  }
}

const RING_RADIUS = 34.5;
const RING_MAX_FONT = 11;
const RING_ADVANCE = 1.15; // em per character along the arc, a little air between glyphs
const RING_MAX_SPAN = 2 * Math.PI * 0.9; // leave a gap at the bottom where the text starts and ends
const RING_MIN_SPAN = (150 / 180) * Math.PI; // short names are spread so the ring does not look empty

function ringLayout(chars: string[]): string {
  // A space takes half a character's arc: enough to separate words such as "주식회사 도장".
  const weights = chars.map((c) => (c === ' ' ? 0.5 : 1));
  const units = weights.reduce((a, b) => a + b, 0);
  const fontSize = Math.min(RING_MAX_FONT, (RING_MAX_SPAN * RING_RADIUS) / (units * RING_ADVANCE));
  const step = Math.max((fontSize * RING_ADVANCE) / RING_RADIUS, RING_MIN_SPAN / units);
  const span = step * units;

  const parts: string[] = [];
  let at = -span / 2; // angle clockwise from the top; the text is centred on the top
  chars.forEach((c, i) => {
    const mid = at + (weights[i] * step) / 2;
    at += weights[i] * step;
    if (c === ' ') return;
    const x = 50 + RING_RADIUS * Math.sin(mid);
    const y = 50 - RING_RADIUS * Math.cos(mid);
    parts.push(glyph(c, x, y, fontSize, ` rotate(${n((mid * 180) / Math.PI)})`));
  });
  if (span > 1.5 * Math.PI) {
    // Marks where the name starts and ends once the two ends come close together.
    parts.push(`<circle cx="50" cy="${n(50 + RING_RADIUS)}" r="1.6"/>`);
  }
  parts.push(`<circle cx="50" cy="50" r="27" fill="none" stroke="${INK}" stroke-width="1"/>`);
  parts.push(glyph('직', 50, 40, 18) + glyph('인', 50, 60, 18));
  return parts.join('');
}
