import { buildSealSvg, generateSealPng, SealInputError } from '@dojang/seals';
import { decodeRgbaPng, RgbaImage } from './testing/images';

const isRed = ([r, g, b, a]: number[]) => a > 200 && r > 150 && g < 110 && b < 110;

function countRed(img: RgbaImage, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (isRed(img.pixel(x, y))) n++;
  return n;
}

describe('generateSealPng', () => {
  it('renders a square PNG of the default size with a red ring and transparent corners', () => {
    const png = generateSealPng('도장');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('latin1', 12, 16)).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(300);
    expect(png.readUInt32BE(20)).toBe(300);

    const img = decodeRgbaPng(png);
    expect(img.width).toBe(300);
    // Outer ring is centred on radius 46.5 of 100 units, i.e. 139.5 px at 300 px.
    for (const [x, y] of [[150, 11], [150, 289], [11, 150], [289, 150]]) {
      expect(isRed(img.pixel(x, y))).toBe(true);
    }
    for (const [x, y] of [[0, 0], [299, 0], [0, 299], [299, 299], [20, 20], [280, 280]]) {
      expect(img.pixel(x, y)[3]).toBe(0);
    }
  });

  it('honours the size option', () => {
    const img = decodeRgbaPng(generateSealPng('도장', { size: 128 }));
    expect([img.width, img.height]).toEqual([128, 128]);
  });

  it('draws the glyphs of a short Korean name in the centre', () => {
    const img = decodeRgbaPng(generateSealPng('김철수'));
    expect(countRed(img, 90, 90, 210, 210)).toBeGreaterThan(2000);
  });

  it('draws a long name around the ring with 직인 in the middle', () => {
    const img = decodeRgbaPng(generateSealPng('주식회사 도장'));
    // Centre (직인) and the top of the text band (the name) both carry ink.
    expect(countRed(img, 120, 100, 180, 200)).toBeGreaterThan(800);
    expect(countRed(img, 100, 30, 200, 65)).toBeGreaterThan(300);
    const svg = buildSealSvg('주식회사 도장');
    for (const ch of ['주', '식', '회', '사', '도', '장', '직', '인']) expect(svg).toContain(`>${ch}</text>`);
  });

  it('gives different images for different names', () => {
    const a = decodeRgbaPng(generateSealPng('주식회사 도장'));
    const b = decodeRgbaPng(generateSealPng('주식회사 인감'));
    let differing = 0;
    for (let i = 0; i < a.data.length; i += 4) if (a.data[i + 3] !== b.data[i + 3]) differing++;
    expect(differing).toBeGreaterThan(200);
  });

  it('is deterministic', () => {
    expect(generateSealPng('도장').equals(generateSealPng('도장'))).toBe(true);
  });

  it.each([
    ['one character', '도', ['도', '인']],
    ['four Hangul', '주식회사', ['주', '식', '회', '사']],
    ['Latin in rows', 'ACME', ['A', 'C', 'M', 'E']],
  ])('lays out %s', (_label, name, glyphs) => {
    const svg = buildSealSvg(name);
    const found = [...svg.matchAll(/>([^<]+)<\/text>/g)].map((m) => m[1]);
    expect(found).toEqual(glyphs);
  });

  it('escapes XML in the name and still renders', () => {
    const name = `A&B <C> "D" 'E'`;
    const svg = buildSealSvg(name);
    expect(svg).toContain('&amp;');
    expect(svg).toContain('&lt;');
    expect(svg).toContain('&gt;');
    expect(svg).toContain('&quot;');
    expect(svg).toContain('&apos;');
    expect(svg).not.toMatch(/<C>/);
    expect(decodeRgbaPng(generateSealPng(name)).width).toBe(300);
  });

  it('accepts 30 characters, counting Hangul syllables and ignoring outer spaces', () => {
    const name = '가'.repeat(30);
    expect(() => generateSealPng(`  ${name}  `)).not.toThrow();
    // Decomposed jamo normalise to 30 syllables rather than 90 code points.
    expect(() => generateSealPng(name.normalize('NFD'))).not.toThrow();
  });

  it.each([
    ['empty', ''],
    ['blank', '   \t'],
    ['31 characters', '가'.repeat(31)],
    ['control characters', '도장\u0000'],
    ['a lone surrogate', '도장\uD800'],
  ])('rejects a %s name', (_label, name) => {
    expect.assertions(3);
    try {
      generateSealPng(name);
    } catch (e) {
      expect(e).toBeInstanceOf(SealInputError);
      expect(e.param).toBe('company_name');
      expect(e.code).toBe('invalid_parameter');
    }
  });

  it('rejects a non-string name and a bad size', () => {
    expect(() => generateSealPng(42 as unknown as string)).toThrow(SealInputError);
    for (const size of [0, 10, 5000, 100.5, NaN]) {
      expect(() => generateSealPng('도장', { size })).toThrow(expect.objectContaining({ param: 'size' }));
    }
  });
});
