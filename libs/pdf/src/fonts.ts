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
