import { Resvg } from '@resvg/resvg-js';
import { buildPersonalSealSvg, personalSealRenderInput, personalSealText, SealInputError } from '@dojang/seals';
import { decodeRgbaPng } from './testing/images';

/** A personal seal made from a name: what text it takes, and that every character is drawn. */
function render(text: string, shape: 'round' | 'square') {
  const input = personalSealRenderInput(text, shape);
  return new Resvg(input.svg, { font: { fontFiles: input.font_files, loadSystemFonts: false, defaultFontFamily: input.default_font_family } }).render().asPng();
}
const isRed = ([r, g, b, a]: number[]) => a > 200 && r > 150 && g < 110 && b < 110;

function refusal(text: unknown): SealInputError {
  try {
    personalSealText(text);
  } catch (err) {
    if (err instanceof SealInputError) return err;
    throw err;
  }
  throw new Error(`${String(text)} was accepted`);
}

describe('personal seals (made from a name)', () => {
  it('takes a Korean, Hanja or Latin name of 1 to 10 characters, trimmed', () => {
    expect(personalSealText('  곽뙇희 ')).toEqual(['곽', '뙇', '희']);
    expect(personalSealText('洪吉童')).toHaveLength(3);
    expect(personalSealText('Kim  Minji')).toEqual([...'Kim Minji']);
    expect(personalSealText('김수한무거북이와두루')).toHaveLength(10);
  });

  it.each([
    ['a 60-character name', '가'.repeat(60)],
    ['11 characters', '김수한무거북이와두루미'],
    ['nothing but blanks', '   '],
    ['an emoji', '김😀'],
    ['a symbol', '김★'],
    ['a control character', '김\u0007'],
    ['a direction override', '김\u202E민'],
    ['a zero-width joiner', '김\u200D민'],
    ['a very long string', 'x'.repeat(100_000)],
  ])('refuses %s with seal_text_invalid on text, saying what is allowed', (_what, text) => {
    const err = refusal(text);
    expect(err).toMatchObject({ code: 'seal_text_invalid', param: 'text' });
    expect(err.message).toMatch(/Hangul, Hanja, Latin letters, digits/);
  });

  it('reads Korean in columns right to left (a 2-character name gets 인), Latin in rows', () => {
    const svg = buildPersonalSealSvg('김민', 'square');
    const texts = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]+)<\/text>/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]), c: m[3] }));
    expect(texts.map((t) => t.c)).toEqual(['김', '민', '인']);
    expect(new Set(texts.map((t) => t.x)).size).toBe(1);
    expect(texts[0].y).toBeLessThan(texts[1].y);
    const four = [...buildPersonalSealSvg('남궁민수', 'round').matchAll(/<text x="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(four[0]).toBeGreaterThan(four[2]); // 남궁 on the right, 민수 on the left
    expect(buildPersonalSealSvg('Kim Minji', 'round')).toMatch(/>Kim<\/text>.*>Minji<\/text>/);
  });

  it('draws every glyph of 곽뙇희 in red inside the frame, the same bytes each time', () => {
    const png = render('곽뙇희', 'round');
    expect(render('곽뙇희', 'round').equals(png)).toBe(true);
    expect(render('곽뙇희', 'square').equals(png)).toBe(false);
    const img = decodeRgbaPng(png);
    // One column of three cells around the centre: each holds red strokes (no missing glyph).
    const cell = img.height * 0.62 / 3 / 100 * 100;
    for (let i = 0; i < 3; i++) {
      const y0 = Math.round(img.height * 0.19 + i * cell);
      let red = 0;
      for (let y = y0; y < y0 + cell; y++) for (let x = Math.round(img.width * 0.4); x < img.width * 0.6; x++) if (isRed(img.pixel(x, y))) red++;
      expect(red).toBeGreaterThan(200);
    }
    expect(img.pixel(0, 0)[3]).toBe(0);
  });
});
