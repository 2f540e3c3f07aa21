import { inflateSync } from 'node:zlib';
import { assertOffMainThread } from './main-thread-guard';

/**
 * A strict, bounded PNG decoder for untrusted images (contract bodies,
 * signatures, seals). We do not hand such bytes to the PDF libraries as they
 * are: pdfkit's png-js throws from a zlib callback on corrupt data (process
 * crash) and pdf-lib's UPNG loops forever on a corrupt IDAT (hung request).
 * Here every length is checked, zlib is Node's own (synchronous, with an
 * output cap), and the result is plain RGBA that we re-encode ourselves.
 */

export class PngDecodeError extends Error {
  constructor(message: string) {
    super(`PNG: ${message}`);
    this.name = 'PngDecodeError';
  }
}

export interface DecodedPng {
  width: number;
  height: number;
  /** 8-bit RGBA, row-major. */
  rgba: Uint8Array;
  /** Whether any pixel is not fully opaque. */
  hasAlpha: boolean;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const BIT_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

/** Adam7 passes: x0, y0, dx, dy. */
const ADAM7: Array<[number, number, number, number]> = [
  [0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2],
];

interface Header {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

function readChunks(png: Buffer): { header: Header; idat: Buffer; palette?: Buffer; transparency?: Buffer } {
  if (png.length < 8 || !png.subarray(0, 8).equals(SIGNATURE)) throw new PngDecodeError('bad signature');
  let header: Header | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const idat: Buffer[] = [];
  let pos = 8;
  for (;;) {
    if (pos + 12 > png.length) throw new PngDecodeError('truncated (no IEND)');
    const length = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    if (length > png.length - pos - 12) throw new PngDecodeError(`chunk ${type} runs past the end`);
    const data = png.subarray(pos + 8, pos + 8 + length);
    pos += 12 + length;
    if (type === 'IHDR') {
      if (length !== 13) throw new PngDecodeError('bad IHDR');
      header = { width: data.readUInt32BE(0), height: data.readUInt32BE(4), bitDepth: data[8], colorType: data[9], interlace: data[12] };
      if (data[10] !== 0 || data[11] !== 0) throw new PngDecodeError('unknown compression or filter method');
    } else if (type === 'PLTE') {
      palette = data;
    } else if (type === 'tRNS') {
      transparency = data;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
  }
  if (!header) throw new PngDecodeError('missing IHDR');
  if (idat.length === 0) throw new PngDecodeError('missing IDAT');
  return { header, idat: Buffer.concat(idat), palette, transparency };
}

function passSizes(h: Header): Array<{ x0: number; y0: number; dx: number; dy: number; width: number; height: number }> {
  const passes = h.interlace === 1 ? ADAM7 : [[0, 0, 1, 1] as [number, number, number, number]];
  return passes
    .map(([x0, y0, dx, dy]) => ({ x0, y0, dx, dy, width: Math.ceil((h.width - x0) / dx), height: Math.ceil((h.height - y0) / dy) }))
    .filter((p) => p.width > 0 && p.height > 0);
}

function unfilter(data: Buffer, offset: number, rows: number, stride: number, bpp: number): { bytes: Buffer; next: number } {
  const out = Buffer.alloc(rows * stride);
  for (let y = 0; y < rows; y++) {
    const filter = data[offset];
    const src = offset + 1;
    const row = y * stride;
    const prev = row - stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[row + i - bpp] : 0;
      const b = y > 0 ? out[prev + i] : 0;
      const c = y > 0 && i >= bpp ? out[prev + i - bpp] : 0;
      let p: number;
      switch (filter) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: {
          const pa = Math.abs(b - c);
          const pb = Math.abs(a - c);
          const pc = Math.abs(a + b - 2 * c);
          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          throw new PngDecodeError(`invalid filter type ${filter}`);
      }
      out[row + i] = (data[src + i] + p) & 0xff;
    }
    offset += stride + 1;
  }
  return { bytes: out, next: offset };
}

/** Decodes any standard PNG into RGBA; throws PngDecodeError on anything malformed or larger than maxPixels. */
export function decodePngStrict(png: Buffer, maxPixels: number): DecodedPng {
  assertOffMainThread('decodePngStrict');
  const { header: h, idat, palette, transparency } = readChunks(png);
  const channels = CHANNELS[h.colorType];
  if (!channels || !BIT_DEPTHS[h.colorType].includes(h.bitDepth)) throw new PngDecodeError(`unsupported colour type ${h.colorType} / depth ${h.bitDepth}`);
  if (h.interlace > 1) throw new PngDecodeError('unknown interlace method');
  if (h.width === 0 || h.height === 0 || h.width * h.height > maxPixels) throw new PngDecodeError(`${h.width}×${h.height} is out of bounds`);
  if (h.colorType === 3 && (!palette || palette.length % 3 !== 0 || palette.length === 0)) throw new PngDecodeError('indexed image without a palette');

  const bitsPerPixel = channels * h.bitDepth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const passes = passSizes(h).map((p) => ({ ...p, stride: Math.ceil((p.width * bitsPerPixel) / 8) }));
  const expected = passes.reduce((n, p) => n + p.height * (p.stride + 1), 0);
  let data: Buffer;
  try {
    data = inflateSync(idat, { maxOutputLength: expected + 1024 });
  } catch (error) {
    throw new PngDecodeError(`image data does not inflate: ${(error as Error).message}`);
  }
  if (data.length < expected) throw new PngDecodeError('image data is truncated');

  const rgba = new Uint8Array(h.width * h.height * 4);
  const maxSample = (1 << Math.min(h.bitDepth, 8)) - 1;
  const trnsGrey = h.colorType === 0 && transparency && transparency.length >= 2 ? transparency.readUInt16BE(0) : undefined;
  const trnsRgb =
    h.colorType === 2 && transparency && transparency.length >= 6
      ? [transparency.readUInt16BE(0), transparency.readUInt16BE(2), transparency.readUInt16BE(4)]
      : undefined;
  let hasAlpha = false;
  let offset = 0;
  for (const pass of passes) {
    const { bytes, next } = unfilter(data, offset, pass.height, pass.stride, bpp);
    offset = next;
    // Reads sample `index` of a row: packed MSB-first below 8 bits, full value at 16.
    const sample = (row: number, index: number): number => {
      if (h.bitDepth === 8) return bytes[row + index];
      if (h.bitDepth === 16) return bytes.readUInt16BE(row + index * 2);
      const bit = index * h.bitDepth;
      return (bytes[row + (bit >> 3)] >> (8 - h.bitDepth - (bit & 7))) & maxSample;
    };
    const to8 = (v: number) => (h.bitDepth === 16 ? v >> 8 : h.bitDepth === 8 ? v : Math.round((v * 255) / maxSample));
    for (let y = 0; y < pass.height; y++) {
      const row = y * pass.stride;
      for (let x = 0; x < pass.width; x++) {
        const out = ((pass.y0 + y * pass.dy) * h.width + pass.x0 + x * pass.dx) * 4;
        let r: number, g: number, b: number, a = 255;
        const s = x * channels;
        switch (h.colorType) {
          case 0: {
            const v = sample(row, s);
            r = g = b = to8(v);
            if (v === trnsGrey) a = 0;
            break;
          }
          case 2: {
            const rv = sample(row, s), gv = sample(row, s + 1), bv = sample(row, s + 2);
            [r, g, b] = [to8(rv), to8(gv), to8(bv)];
            if (trnsRgb && rv === trnsRgb[0] && gv === trnsRgb[1] && bv === trnsRgb[2]) a = 0;
            break;
          }
          case 3: {
            const index = sample(row, s);
            if (index * 3 + 2 >= palette!.length) throw new PngDecodeError('palette index out of range');
            [r, g, b] = [palette![index * 3], palette![index * 3 + 1], palette![index * 3 + 2]];
            if (transparency && index < transparency.length) a = transparency[index];
            break;
          }
          case 4:
            r = g = b = to8(sample(row, s));
            a = to8(sample(row, s + 1));
            break;
          default:
            [r, g, b, a] = [to8(sample(row, s)), to8(sample(row, s + 1)), to8(sample(row, s + 2)), to8(sample(row, s + 3))];
        }
        rgba[out] = r;
        rgba[out + 1] = g;
        rgba[out + 2] = b;
        rgba[out + 3] = a;
        if (a !== 255) hasAlpha = true;
      }
    }
  }
  return { width: h.width, height: h.height, rgba, hasAlpha };
}
