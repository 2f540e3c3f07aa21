import * as fs from 'fs';
import * as path from 'path';

// Both are plain JavaScript without type declarations: the build script and fontkit (pdfkit's).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require('../../scripts/build-signing-font') as {
  OUTPUT_DIR: string;
  PEN_CSS: string;
  pageCharacters(): string;
  readSlices(css?: string): Array<{ file: string; codePoints: number[] }>;
  SYLLABLES: [number, number];
  JAMO_RANGES: Array<[number, number]>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fontkit = require('fontkit') as { openSync(file: string): { hasGlyphForCodePoint(codePoint: number): boolean } };

/**
 * The committed Noto Sans KR slices (scripts/build-signing-font.js): every modern Hangul syllable
 * and jamo is claimed by exactly one slice whose file really has its glyph, and every character
 * the page writes itself is in the first slice. Change a string of the page without running the
 * build script and this fails, naming the characters a device without Korean fonts would miss.
 */
describe('signing page font slices', () => {
  const slices = build.readSlices();
  const owner = new Map<number, string>();
  for (const s of slices) for (const cp of s.codePoints) owner.set(cp, owner.has(cp) ? 'duplicate' : s.file);

  it('are about a hundred small files listed in fonts.css, and nothing else', () => {
    expect(slices.length).toBeGreaterThanOrEqual(90);
    expect(slices.length).toBeLessThanOrEqual(130);
    const onDisk = fs.readdirSync(build.OUTPUT_DIR).filter((f) => f.endsWith('.woff2') && !f.startsWith('pen-')).sort();
    expect(onDisk).toEqual(slices.map((s) => s.file).sort());
    const sizes = onDisk.map((f) => fs.statSync(path.join(build.OUTPUT_DIR, f)).size);
    // The whole set is committed: keep it reasonable, and each slice small.
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(1_500_000);
    expect(Math.max(...sizes)).toBeLessThan(110_000);
  });

  it('claim each character once: all 11,172 syllables, the jamo and the page characters', () => {
    expect([...owner.values()].filter((f) => f === 'duplicate')).toEqual([]);
    const missing: string[] = [];
    for (let cp = build.SYLLABLES[0]; cp <= build.SYLLABLES[1]; cp++) if (!owner.has(cp)) missing.push(String.fromCodePoint(cp));
    expect(missing.join('')).toBe('');
    expect(build.SYLLABLES[1] - build.SYLLABLES[0] + 1).toBe(11_172);
    for (const ch of 'ㄱㅎㅏㅣ각') expect({ ch, slice: owner.has(ch.codePointAt(0)!) }).toEqual({ ch, slice: true });
    for (const ch of '㈜①₩·…「」') expect({ ch, slice: owner.has(ch.codePointAt(0)!) }).toEqual({ ch, slice: true });
    const base = slices[0].file;
    const notInBase = [...build.pageCharacters()].filter((ch) => owner.get(ch.codePointAt(0)!) !== base);
    expect(notInBase.join('')).toBe('');
  });

  it('each file has a glyph for every character its unicode-range claims', () => {
    const wrong: string[] = [];
    for (const s of slices) {
      const font = fontkit.openSync(path.join(build.OUTPUT_DIR, s.file));
      for (const cp of s.codePoints) if (!font.hasGlyphForCodePoint(cp)) wrong.push(`${s.file}: U+${cp.toString(16)}`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });

  it('the typed signature\'s handwriting font (pen.css) covers every syllable, and only what its files hold', () => {
    const pen = build.readSlices(fs.readFileSync(build.PEN_CSS, 'utf8'));
    const penOnDisk = fs.readdirSync(build.OUTPUT_DIR).filter((f) => f.startsWith('pen-')).sort();
    expect(penOnDisk).toEqual(pen.map((s) => s.file).sort());
    const claimed = new Set(pen.flatMap((s) => s.codePoints));
    let missing = 0;
    for (let cp = build.SYLLABLES[0]; cp <= build.SYLLABLES[1]; cp++) if (!claimed.has(cp)) missing++;
    expect(missing).toBe(0);
    // Spot checks of the glyphs (all 11,172 are checked by the build's hasGlyph filter).
    for (const s of [pen[0], pen[1], pen[pen.length - 1]]) {
      const font = fontkit.openSync(path.join(build.OUTPUT_DIR, s.file));
      expect(s.codePoints.filter((cp) => !font.hasGlyphForCodePoint(cp))).toEqual([]);
    }
    expect(Math.max(...penOnDisk.map((f) => fs.statSync(path.join(build.OUTPUT_DIR, f)).size))).toBeLessThan(60_000);
  });
});
