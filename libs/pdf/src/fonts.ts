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
      byName.set(key, real.create(buffer, postscriptName));
    }
    return byName.get(key);
  };
  entry.exports = { ...real, create };
  cacheInstalled = true;
  return cacheInstalled;
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
  };
}

// As this module loads: anything that renders imports it before pdfmake.
cacheParsedKoreanFonts();
