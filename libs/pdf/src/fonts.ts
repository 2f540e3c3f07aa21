import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Korean font for every PDF we generate.
 *
 * Noto Sans KR from the npm package `@expo-google-fonts/noto-sans-kr`
 * (static TTFs of Google Fonts' Noto Sans KR, Adobe/Google, SIL Open Font
 * License 1.1; the package's own code is MIT). The OFL allows embedding in
 * documents; pdfkit embeds only the glyphs a document uses (subset), which
 * keeps a contract around 50 KB instead of 6 MB per font.
 *
 * There is no italic cut: Hangul has no italic tradition and the family ships
 * none, so italic text is set upright rather than in a fake oblique.
 */
export const KOREAN_FONT_FAMILY = 'NotoSansKR';
export const KOREAN_FONT_PACKAGE = '@expo-google-fonts/noto-sans-kr';
export const KOREAN_FONT_LICENSE = 'SIL Open Font License 1.1';

const REGULAR_FILE = 'NotoSansKR-Regular.ttf';
const BOLD_FILE = 'NotoSansKR-Bold.ttf';
/**
 * A monospace face for hashes and ids on the audit certificate (Roboto Mono, Apache 2.0, from the
 * same Google Fonts packages): each character one width, so a SHA-256 is 64 equal columns a
 * reader can compare group by group, and its width is known before it is laid out.
 */
export const MONO_FONT_FAMILY = 'RobotoMono';
const MONO_FONT_PACKAGE = '@expo-google-fonts/roboto-mono';
const MONO_FILE = 'RobotoMono-Regular.ttf';

let fontFiles: Map<string, Buffer> | undefined;

function packageDir(): string {
  return dirname(require.resolve(`${KOREAN_FONT_PACKAGE}/package.json`));
}

/**
 * The TTFs are read once per process: they are 6 MB each and every render
 * needs them, so re-reading them from disk would dominate small documents.
 */
export function koreanFontFiles(): Map<string, Buffer> {
  if (!fontFiles) {
    const dir = packageDir();
    fontFiles = new Map([
      [REGULAR_FILE, readFileSync(join(dir, '400Regular', 'NotoSansKR_400Regular.ttf'))],
      [BOLD_FILE, readFileSync(join(dir, '700Bold', 'NotoSansKR_700Bold.ttf'))],
      [MONO_FILE, readFileSync(join(dirname(require.resolve(`${MONO_FONT_PACKAGE}/package.json`)), '400Regular', 'RobotoMono_400Regular.ttf'))],
    ]);
  }
  return fontFiles;
}

type FontkitCreate = (buffer: Uint8Array, postscriptName?: string) => unknown;

let realParses = 0;
let cacheInstalled: boolean | undefined;

/**
 * Parses each of our font files once per process (per pool worker), not once per PDF: pdfkit
 * hands fontkit the font file for every document, and re-parsing Noto Sans KR (its layout tables
 * above all) was about a third of a contract's lifecycle CPU. fontkit's exports are read-only
 * getters, so the seam is the module pdfkit requires: before pdfmake's pdfkit is loaded, its
 * `fontkit` module entry is replaced by a copy whose `create` returns the parsed font again for
 * our buffers. A parsed font is read-only to pdfkit (each document makes its own subset), so
 * documents can share it. Must run before pdfmake is loaded: this module runs it as it loads, and
 * pdfmake-render.ts imports this module first; where the module cache cannot be reached (jest's registry) fonts are parsed per
 * document as before. Returns whether the cache is in place.
 */
export function cacheParsedKoreanFonts(): boolean {
  if (cacheInstalled !== undefined) return cacheInstalled;
  cacheInstalled = false;
  const fromPdfmake = createRequire(require.resolve('pdfmake/package.json'));
  const pdfkitPath = fromPdfmake.resolve('pdfkit');
  const fromPdfkit = createRequire(pdfkitPath);
  const fontkitPath = fromPdfkit.resolve('fontkit');
  // pdfkit already holds the real module: too late for this process.
  if (require.cache[pdfkitPath]) return cacheInstalled;
  const real = fromPdfkit('fontkit') as Record<string, unknown> & { create: FontkitCreate };
  const entry = require.cache[fontkitPath];
  if (!entry) return cacheInstalled;
  let ours: Set<Uint8Array> | undefined;
  const parsed = new Map<Uint8Array, Map<string, unknown>>();
  const create: FontkitCreate = (buffer, postscriptName) => {
    ours ??= new Set<Uint8Array>(koreanFontFiles().values());
    if (!ours.has(buffer)) return real.create(buffer, postscriptName);
    let byName = parsed.get(buffer);
    if (!byName) parsed.set(buffer, (byName = new Map()));
    const key = postscriptName ?? '';
    if (!byName.has(key)) {
      realParses++;
      byName.set(key, memoizeLayout(keepCodePoints(real.create(buffer, postscriptName) as ShapingFont & GlyphSource)));
    }
    return byName.get(key);
  };
  entry.exports = { ...real, create };
  cacheInstalled = true;
  return cacheInstalled;
}

interface GlyphLike {
  codePoints: number[];
}
interface GlyphSource {
  getGlyph(id: number, codePoints?: number[]): GlyphLike;
}

/**
 * fontkit keeps one glyph object per glyph id, with the characters it was first made for. A
 * subset being written makes the parts of a composite glyph with no characters (Roboto Mono draws
 * ":" from "."), and pdfkit's ToUnicode map reads a glyph's characters: in a font shared between
 * documents, a "." first met as a part of ":" stayed characterless, and every later document's "."
 * was copied as a space. A glyph asked for again with its characters gets them.
 */
function keepCodePoints<T extends GlyphSource>(font: T): T {
  const getGlyph = font.getGlyph.bind(font);
  font.getGlyph = (id: number, codePoints: number[] = []) => {
    const glyph = getGlyph(id, codePoints);
    if (codePoints.length > 0 && (!glyph.codePoints || glyph.codePoints.length === 0)) glyph.codePoints = codePoints;
    return glyph;
  };
  return font;
}

export interface GlyphRunLike {
  glyphs: unknown[];
  positions: object[];
}
export interface ShapingFont {
  layout(text: unknown, ...rest: unknown[]): GlyphRunLike;
}

/**
 * Bounds of the shaped-word cache, per font: words longer than this are shaped every time (a long
 * token rarely repeats, and one could be a whole page), and past this many cached glyphs the cache
 * starts again, so what one document leaves behind stays a few MB of a worker's heap.
 */
export const LAYOUT_CACHE_MAX_WORD = 48;
export const LAYOUT_CACHE_MAX_GLYPHS = 100_000;
let layoutHits = 0;

/**
 * pdfkit shapes every word through fontkit's OpenType layout (GSUB/GPOS lookups on Noto Sans KR)
 * and keeps the result for one document only: the audit certificate's labels and a contract's
 * boilerplate were shaped again for every PDF, about half of a certificate's CPU. Shaping depends
 * only on the font, the text and the features, so a shaped word is kept with the parsed font and
 * handed out again. pdfkit scales a run's positions in place, so each caller gets its own copy
 * of the positions (the glyph objects are fontkit's own per-font cache and are shared already).
 */
export function memoizeLayout(font: ShapingFont): ShapingFont {
  const layout = font.layout.bind(font);
  const cache = new Map<string, GlyphRunLike>();
  let glyphs = 0;
  font.layout = (text: unknown, ...rest: unknown[]) => {
    const [features] = rest;
    // Only the form pdfkit uses: a short string, with or without a feature list or map.
    if (typeof text !== 'string' || text.length > LAYOUT_CACHE_MAX_WORD || rest.length > 1 || (features != null && typeof features !== 'object')) {
      return layout(text, ...rest);
    }
    const key = features == null ? `\u0000${text}` : `${JSON.stringify(features)}\u0000${text}`;
    let run = cache.get(key);
    if (run) layoutHits++;
    else {
      run = layout(text, ...rest);
      if (glyphs + run.glyphs.length > LAYOUT_CACHE_MAX_GLYPHS) {
        cache.clear();
        glyphs = 0;
      }
      cache.set(key, run);
      glyphs += run.glyphs.length;
    }
    return copyRun(run);
  };
  return font;
}

function copyRun(run: GlyphRunLike): GlyphRunLike {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(run) as object) as GlyphRunLike, run);
  copy.glyphs = run.glyphs.slice();
  copy.positions = run.positions.map((p) => Object.assign(Object.create(Object.getPrototypeOf(p) as object) as object, p));
  return copy;
}

/** Words whose shaping was reused from an earlier document in this thread. */
export function reusedLayoutCount(): number {
  return layoutHits;
}

/** How many times one of our fonts was really parsed in this thread through the cache. */
export function parsedKoreanFontCount(): number {
  return realParses;
}

/** pdfmake font table; names refer to entries of {@link koreanFontFiles}. */
export function koreanFontDescriptors(): Record<string, { normal: string; bold: string; italics: string; bolditalics: string }> {
  return {
    [KOREAN_FONT_FAMILY]: {
      normal: REGULAR_FILE,
      bold: BOLD_FILE,
      italics: REGULAR_FILE,
      bolditalics: BOLD_FILE,
    },
    [MONO_FONT_FAMILY]: { normal: MONO_FILE, bold: MONO_FILE, italics: MONO_FILE, bolditalics: MONO_FILE },
  };
}

// As this module loads: anything that renders imports it before pdfmake.
cacheParsedKoreanFonts();
