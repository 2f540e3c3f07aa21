// First, as in a pool worker: the font cache must be in place before pdfmake is loaded.
import { cacheParsedKoreanFonts, parsedKoreanFontCount } from '../fonts';
import { layOut } from '../pdfmake-render';
import { buildDocDefinition } from '../render-document';

/**
 * Runs in a pool worker for fonts.spec.ts (jest's module registry hides the seam the cache uses):
 * lays out three contracts and reports whether they share the parsed fonts.
 */
export default async function fontCacheProbe(): Promise<{ installed: boolean; shared: boolean; parses: number }> {
  const installed = cacheParsedKoreanFonts();
  const parsedFonts: unknown[] = [];
  for (const title of ['하나', '둘', '셋']) {
    const doc = (await layOut(buildDocDefinition({ title, content: '<p><b>제1조</b> 목적</p>', format: 'html' }))) as unknown as {
      fontCache: Record<string, Record<string, { font: unknown }>>;
      end(): void;
    };
    parsedFonts.push(doc.fontCache.NotoSansKR.normal.font);
    doc.end();
  }
  return { installed, shared: parsedFonts.every((f) => f === parsedFonts[0]), parses: parsedKoreanFontCount() };
}
