import { decodePngStrict } from './png-decode';
import { encodeCompactPng } from './png-encode';

/** A page-like image: white paper, grey "text" rows, optionally a coloured stamp (few or many colours). */
function page(width: number, height: number, colours: 'grey' | 'few' | 'many'): Uint8Array {
  const rgb = new Uint8Array(width * height * 3).fill(255);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (y % 12 < 7 && x % 9 < 6) rgb.fill(colours === 'few' ? ((x * 37 + y * 11) % 16) * 16 : (x * 37 + y * 11) % 256, i, i + 3);
      if (colours !== 'grey' && x > width / 2 && y > height / 2) {
        rgb[i] = colours === 'few' ? 200 : (x * 7) % 256;
        rgb[i + 1] = colours === 'few' ? 30 : (y * 5) % 256;
        rgb[i + 2] = colours === 'few' ? 40 : (x + y) % 256;
      }
    }
  }
  return rgb;
}

function decodedRgb(png: Buffer): Uint8Array {
  const d = decodePngStrict(png, 1e7);
  const rgb = new Uint8Array(d.width * d.height * 3);
  for (let i = 0, j = 0; i < d.rgba.length; i += 4, j += 3) rgb.set(d.rgba.subarray(i, i + 3), j);
  return rgb;
}

describe('encodeCompactPng (page images)', () => {
  it.each([
    ['grey', 0],
    ['few', 3],
    ['many', 2],
  ] as const)('a %s page comes back pixel for pixel, as colour type %i', (colours, colourType) => {
    const rgb = page(120, 90, colours);
    const png = encodeCompactPng(120, 90, rgb);
    expect(png[25]).toBe(colourType);
    expect(Buffer.from(decodedRgb(png)).equals(Buffer.from(rgb))).toBe(true);
  });

  it('refuses a buffer that does not match the size', () => {
    expect(() => encodeCompactPng(2, 2, new Uint8Array(11))).toThrow(RangeError);
  });
});
