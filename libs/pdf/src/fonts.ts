import { readFileSync } from 'node:fs';
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

type FontkitCreate = (buffer: Buffer, postscriptName?: string) => unknown;
/** pdfkit calls `create` on fontkit's default export object (its own interop), so that is the seam. */
// fontkit ships no types; pdfkit requires the same module instance.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fontkitModule = require('fontkit') as { default?: { create: FontkitCreate }; create: FontkitCreate };
const fontkit: { create: FontkitCreate } = fontkitModule.default ?? fontkitModule;
const parsedFonts = new WeakMap<Buffer, Map<string, unknown>>();
let fontkitWrapped = false;

/**
 * Parses each of our font files once per process (per worker thread), not once per PDF: pdfkit
 * hands fontkit the file on every document, and re-parsing Noto Sans KR was about a third of a
 * contract's lifecycle CPU. Only the buffers of {@link koreanFontFiles} are cached; a parsed font
 * is read-only to pdfkit (each document makes its own subset), so sharing it is safe.
 */
export function cacheParsedKoreanFonts(): void {
  if (fontkitWrapped) return;
  fontkitWrapped = true;
  const create = fontkit.create.bind(fontkit);
  const ours = new Set(koreanFontFiles().values());
  fontkit.create = (buffer: Buffer, postscriptName?: string) => {
    if (!ours.has(buffer)) return create(buffer, postscriptName);
    let byName = parsedFonts.get(buffer);
    if (!byName) parsedFonts.set(buffer, (byName = new Map()));
    const key = postscriptName ?? '';
    if (!byName.has(key)) byName.set(key, create(buffer, postscriptName));
    return byName.get(key);
  };
}

/** How many times fontkit really parsed one of our fonts in this thread (tests, bench). */
export function parsedKoreanFontCount(): number {
  let n = 0;
  for (const buffer of koreanFontFiles().values()) n += parsedFonts.get(buffer)?.size ?? 0;
  return n;
}

/** Reads and parses the fonts now (a pool worker does this as it starts). */
export function preloadKoreanFonts(): void {
  cacheParsedKoreanFonts();
  for (const buffer of koreanFontFiles().values()) fontkit.create(buffer);
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
