// Both are plain JavaScript without type declarations: the build script and fontkit (pdfkit's).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { OUTPUT, pageCharacters } = require('../../scripts/build-signing-font') as { OUTPUT: string; pageCharacters(): string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fontkit = require('fontkit') as { openSync(file: string): { hasGlyphForCodePoint(codePoint: number): boolean } };

/**
 * The committed subset font must hold every character the signing page writes: change a string
 * in index.html or app.js without running `node scripts/build-signing-font.js` and this fails,
 * naming the characters a device without Korean fonts would show as boxes.
 */
describe('signing page subset font', () => {
  it('has a glyph for every character of the page', () => {
    const font = fontkit.openSync(OUTPUT);
    const missing = [...pageCharacters()].filter((ch) => !font.hasGlyphForCodePoint(ch.codePointAt(0)!));
    expect(missing.join('')).toBe('');
    // Hangul is really in there (not only ASCII): the page's own brand line.
    expect(font.hasGlyphForCodePoint('서'.codePointAt(0)!)).toBe(true);
  });
});
