import { decodePngStrict } from './png-decode';
import { encodeCompactPng, filterRows } from './png-encode';

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

/**
 * The adaptive filter as first written: all five filters scored in order for every row, the first
 * with the smallest sum of absolute values kept. `filterRows` must choose exactly as this does.
 */
function plainFilterRows(width: number, height: number, bpp: number, pixels: Uint8Array): Buffer {
  const stride = width * bpp;
  const out = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const at = (yy: number, i: number) => (yy < 0 || i < 0 ? 0 : pixels[yy * stride + i]);
    let best = 0;
    let bestSum = Infinity;
    let bestRow = new Uint8Array(0);
    for (let f = 0; f < 5; f++) {
      const row = new Uint8Array(stride);
      let sum = 0;
      for (let i = 0; i < stride; i++) {
        const x = at(y, i);
        const a = at(y, i - bpp);
        const b = at(y - 1, i);
        const c = at(y - 1, i - bpp);
        const p = a + b - c;
        const pred = [0, a, b, (a + b) >> 1, Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c][f];
        row[i] = (x - pred) & 0xff;
        sum += row[i] < 128 ? row[i] : 256 - row[i];
      }
      if (sum < bestSum) {
        bestSum = sum;
        best = f;
        bestRow = row;
      }
    }
    out[y * (stride + 1)] = best;
    out.set(bestRow, y * (stride + 1) + 1);
  }
  return out;
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('filterRows (the PNG rows of page images)', () => {
  it('chooses every row\'s filter exactly as scoring all five in order does: page-like, noisy and tied rows', () => {
    const next = random(35);
    const images: Array<[number, number, number, Uint8Array]> = [];
    for (const colours of ['grey', 'few', 'many'] as const) images.push([60, 45, 3, page(60, 45, colours)]);
    const grey = page(60, 45, 'grey');
    images.push([60, 45, 1, grey.filter((_, i) => i % 3 === 0)]);
    for (let k = 0; k < 40; k++) {
      const bpp = k % 2 ? 3 : 1;
      const width = 1 + Math.floor(next() * 30);
      const height = 1 + Math.floor(next() * 12);
      // Mostly paper with a few marks, or noise, or a handful of values: rows whose filter sums tie often.
      const kind = k % 4;
      const px = new Uint8Array(width * height * bpp).map(() => (kind === 0 ? (next() < 0.9 ? 255 : Math.floor(next() * 256)) : kind === 1 ? Math.floor(next() * 256) : kind === 2 ? [0, 1, 255][Math.floor(next() * 3)] : 0));
      images.push([width, height, bpp, px]);
    }
    for (const [width, height, bpp, px] of images) expect(filterRows(width, height, bpp, px).equals(plainFilterRows(width, height, bpp, px))).toBe(true);
  });
});

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

  it('takes the renderer\'s RGBA as it is (alpha ignored): the same bytes as from RGB, call after call of different sizes', () => {
    const rgba = (rgb: Uint8Array) => {
      const out = new Uint8Array((rgb.length / 3) * 4).fill(255);
      for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) out.set(rgb.subarray(i, i + 3), j);
      return out;
    };
    // Large then small then large again: the encoder's working buffers are reused, never leaked into an image.
    for (const [w, h] of [
      [200, 150],
      [31, 7],
      [120, 90],
      [1, 1],
    ]) {
      for (const colours of ['grey', 'few', 'many'] as const) {
        const rgb = page(w, h, colours);
        const png = encodeCompactPng(w, h, rgba(rgb), 4);
        expect(png.equals(encodeCompactPng(w, h, rgb))).toBe(true);
        expect(Buffer.from(decodedRgb(png)).equals(Buffer.from(rgb))).toBe(true);
      }
    }
  });

  it('refuses a buffer that does not match the size', () => {
    expect(() => encodeCompactPng(2, 2, new Uint8Array(11))).toThrow(RangeError);
  });
});
