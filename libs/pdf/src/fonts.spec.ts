import * as path from 'path';
import { PdfJob } from './pool/pdf-jobs';
import { PdfPool } from './pool/pdf-pool';
import { GlyphRunLike, KOREAN_FONT_FAMILY, LAYOUT_CACHE_MAX_GLYPHS, LAYOUT_CACHE_MAX_WORD, memoizeLayout, MONO_FONT_FAMILY } from './fonts';
import { renderDocDefinition } from './pdfmake-render';
import { pdftotext } from './testing/poppler';
import type { FontCacheProbe } from './testing/font-cache.handler';

const PROBE: PdfJob<{ probe: true }, FontCacheProbe | null> = {
  id: 'test.font-cache',
  version: 1,
  filename: path.join(__dirname, 'testing', `font-cache.handler${path.extname(__filename)}`),
};

describe('fonts', () => {

  it('keep every character copyable in a later document: a glyph first met as another glyph\'s part still maps to its character', async () => {
    // Roboto Mono draws ":" and ";" from the glyphs of "." and ",". A document with only the former
    // made the shared font meet "." and "," as parts, with no character; every later document's
    // "." and "," then extracted as spaces ("contracts hanbit-software co kr>").
    const doc = (text: string) => ({ defaultStyle: { font: KOREAN_FONT_FAMILY }, content: [{ text, font: MONO_FONT_FAMILY }] });
    const first = pdftotext(await renderDocDefinition(doc('participant:e5bf4367; 12:30')));
    const later = pdftotext(await renderDocDefinition(doc('sign.example.co.kr, 1.2.3')));
    expect([first.trim(), later.trim()]).toEqual(['participant:e5bf4367; 12:30', 'sign.example.co.kr, 1.2.3']);
  });

  it('are parsed once per worker and shared by every document it renders, not parsed again per PDF', async () => {
    const pool = new PdfPool({ threads: 1, warmUpFile: PROBE.filename });
    try {
      const probe = (await pool.run(PROBE, { probe: true }))!;
      expect(probe.installed).toBe(true);
      expect(probe.shared).toBe(true);
      // Regular and bold at most, however many documents.
      expect(probe.parses).toBeLessThanOrEqual(2);
    } finally {
      await pool.close();
    }
  });

  it('shape a word once per worker: later documents reuse it and come out byte for byte the same', async () => {
    const pool = new PdfPool({ threads: 1, warmUpFile: PROBE.filename });
    try {
      const probe = (await pool.run(PROBE, { probe: true }))!;
      expect(probe.reusedWords).toBeGreaterThan(0);
      expect(probe.sameBytesColdAndWarm).toBe(true);
    } finally {
      await pool.close();
    }
  });

  describe('shaped-word cache', () => {
    /** A stand-in font that counts real shaping calls: one glyph per character. */
    function countingFont() {
      const shaped: string[] = [];
      const font = memoizeLayout({
        layout(text: unknown): GlyphRunLike {
          shaped.push(String(text));
          return { glyphs: [...String(text)].map((c) => ({ c })), positions: [...String(text)].map(() => ({ xAdvance: 500 })) };
        },
      });
      return { font, shaped };
    }

    it('hands out a copy: pdfkit scaling one run in place does not change the next', () => {
      const { font, shaped } = countingFont();
      const first = font.layout('계약') as GlyphRunLike & { positions: Array<{ xAdvance: number }> };
      first.positions[0].xAdvance *= 0.01;
      const second = font.layout('계약') as GlyphRunLike & { positions: Array<{ xAdvance: number }> };
      expect(second.positions[0].xAdvance).toBe(500);
      expect(shaped).toEqual(['계약']);
    });

    it('stays bounded: long words are not kept, and past its glyph budget it starts again', () => {
      const { font, shaped } = countingFont();
      const long = 'x'.repeat(LAYOUT_CACHE_MAX_WORD + 1);
      font.layout(long);
      font.layout(long);
      expect(shaped.filter((t) => t === long)).toHaveLength(2);
      // Distinct words of 40 glyphs until the budget is passed: the first one is shaped again.
      const words = Array.from({ length: Math.ceil(LAYOUT_CACHE_MAX_GLYPHS / 40) + 1 }, (_, i) => String(i).padStart(40, '0'));
      for (const w of words) font.layout(w);
      font.layout(words[0]);
      expect(shaped.filter((t) => t === words[0])).toHaveLength(2);
    });
  });
});
