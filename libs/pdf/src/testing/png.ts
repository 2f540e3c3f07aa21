import { inflateSync } from 'node:zlib';
import { encodePngPixels } from '../png-encode';

/**
 * Just enough PNG for tests and benchmarks: encode RGBA pictures (signature
 * stand-ins) and decode poppler's 8-bit RGB/RGBA output to check pixels.
 */

export type Rgba = [number, number, number, number];

/** Encodes width×height pixels produced by `pixel(x, y)` as an RGBA PNG. */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => Rgba): Buffer {
  const pixels = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels.set(pixel(x, y), (y * width + x) * 4);
  }
  return encodePngPixels(width, height, 4, pixels);
}

export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  return encodePng(width, height, () => [rgb[0], rgb[1], rgb[2], 255]);
}

/** A handwriting-like stand-in: transparent background, dark wavy strokes. */
export function signatureLikePng(width = 600, height = 200, seed = 1): Buffer {
  return encodePng(width, height, (x, y) => {
    const mid = height / 2 + Math.sin((x / width) * Math.PI * (3 + seed)) * height * 0.3;
    const mid2 = height / 2 + Math.cos((x / width) * Math.PI * (5 + seed)) * height * 0.2;
    const ink = Math.abs(y - mid) < 3 || Math.abs(y - mid2) < 2;
    return ink ? [20, 30, 90, 255] : [255, 255, 255, 0];
  });
}

export interface DecodedImage {
  width: number;
  height: number;
  /** Returns [r, g, b] of a pixel. */
  rgb(x: number, y: number): [number, number, number];
}

/** Decodes 8-bit, non-interlaced RGB/RGBA/grey PNGs (what pdftoppm writes). */
export function decodePng(png: Buffer): DecodedImage {
  let offset = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('decodePng: only 8-bit non-interlaced PNGs');
      colorType = data[9];
    } else if (type === 'IDAT') {
      idat.push(data);
    }
    offset += 12 + length;
  }
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  if (!channels) throw new Error(`decodePng: colour type ${colorType} not supported`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[i - channels] : 0;
      const b = prev[i];
      const c = i >= channels ? prev[i - channels] : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[i] = (src[i] + predictor) & 0xff;
    }
  }
  return {
    width,
    height,
    rgb(x, y) {
      const i = y * stride + x * channels;
      return channels < 3 ? [pixels[i], pixels[i], pixels[i]] : [pixels[i], pixels[i + 1], pixels[i + 2]];
    },
  };
}
