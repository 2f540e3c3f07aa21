// First, as in a pool worker: the font cache must be in place before pdfmake is loaded.
import { cacheParsedKoreanFonts, parsedKoreanFontCount, reusedLayoutCount } from '../fonts';
import { layOut, renderDocDefinition } from '../pdfmake-render';
import { buildDocDefinition } from '../render-document';

export interface FontCacheProbe {
  installed: boolean;
  shared: boolean;
  parses: number;
  /** Words shaped for an earlier document and handed out again. */
  reusedWords: number;
  /** A contract rendered first (nothing shaped yet) and again after others: the same bytes. */
  sameBytesColdAndWarm: boolean;
}

/**
 * Runs in a pool worker for fonts.spec.ts (jest's module registry hides the seam the cache uses):
 * lays out three contracts and reports whether they share the parsed fonts and the shaping.
 */
export default async function fontCacheProbe(input: { probe: true } | null): Promise<FontCacheProbe | null> {
  // null: the pool's warm-up call, which must not shape anything yet.
  if (!input) return null;
  const installed = cacheParsedKoreanFonts();
  const contract = { title: '근로계약서', content: '<p><b>제1조</b> 목적: 갑과 을은 fi ffl AV Ta 계약을 체결한다.</p>', format: 'html' as const, created_at: '2026-01-01T00:00:00Z' };
  const cold = await renderDocDefinition(buildDocDefinition(contract));
  const parsedFonts: unknown[] = [];
  for (const title of ['하나', '둘', '셋']) {
    const doc = (await layOut(buildDocDefinition({ title, content: '<p><b>제1조</b> 목적</p>', format: 'html' }))) as unknown as {
      fontCache: Record<string, Record<string, { font: unknown }>>;
      end(): void;
    };
    parsedFonts.push(doc.fontCache.NotoSansKR.normal.font);
    doc.end();
  }
  const warm = await renderDocDefinition(buildDocDefinition(contract));
  return {
    installed,
    shared: parsedFonts.every((f) => f === parsedFonts[0]),
    parses: parsedKoreanFontCount(),
    reusedWords: reusedLayoutCount(),
    sameBytesColdAndWarm: cold.equals(warm),
  };
}
