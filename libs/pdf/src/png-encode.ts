import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/**
 * Encodes 8-bit RGB (3 channels) or RGBA (4) pixels as the plainest PNG
 * there is: non-interlaced, filter 0, one IDAT. Used to hand pdfkit only
 * images whose every byte we produced ourselves.
 */
export function encodePngPixels(width: number, height: number, channels: 3 | 4, pixels: Uint8Array): Buffer {
  const stride = width * channels;
  if (pixels.length !== stride * height) throw new RangeError('encodePngPixels: pixel buffer does not match the size');
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0;
    raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = channels === 4 ? 6 : 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * PNG filter bytes chosen row by row by the usual heuristic (the filter whose output has the
 * smallest sum of absolute values, as libpng does; on a tie the lower filter number): on rendered
 * pages (flat paper, text edges) Up and Paeth turn most of a row into zeros, which deflate then all
 * but removes.
 *
 * This was the page image's largest cost (a third of a render-page job, paid three times per sent
 * document by the page images made at send), so each filter has its own loop, Up is scored first
 * (on a page it usually wins, often with 0, and then only None and Sub, which win a tie, are
 * scored, each stopping at its first non-zero byte), a filter stops scoring once it cannot win, and only the winner is written.
 * The choice, and so every byte, is the same as scoring all five in order (png-encode.spec.ts
 * compares with that plain version).
 */
export function filterRows(width: number, height: number, bpp: number, pixels: Uint8Array, out: Buffer = Buffer.alloc((width * bpp + 1) * height)): Buffer {
  const stride = width * bpp;
  // The row above the first is zeros (the PNG spec's rule).
  const zero = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const r = y * stride;
    const above = y > 0 ? pixels : zero;
    const u = y > 0 ? r - stride : 0;
    // Up (2).
    let best = 2;
    let bestSum = 0;
    for (let i = 0; i < stride; i++) {
      const v = (pixels[r + i] - above[u + i]) & 0xff;
      bestSum += v < 128 ? v : 256 - v;
    }
    // None (0) and Sub (1) come before Up: they win a tie (even at 0: a row of zeros is None's), so
    // they stop only once over the best.
    {
      let sum = 0;
      for (let i = 0; i < stride && sum <= bestSum; i++) {
        const v = pixels[r + i];
        sum += v < 128 ? v : 256 - v;
      }
      if (sum <= bestSum) {
        bestSum = sum;
        best = 0;
      }
    }
    // Sub must beat None strictly, and may tie Up.
    const limit = best === 0 ? bestSum - 1 : bestSum;
    if (limit >= 0) {
      let sum = 0;
      for (let i = 0; i < stride && sum <= limit; i++) {
        const v = (pixels[r + i] - (i >= bpp ? pixels[r + i - bpp] : 0)) & 0xff;
        sum += v < 128 ? v : 256 - v;
      }
      if (sum <= limit) {
        bestSum = sum;
        best = 1;
      }
    }
    // Average (3) and Paeth (4) come after every filter scored so far: they must beat it strictly,
    // which nothing does once the best is 0.
    if (bestSum > 0) {
      let sum = 0;
      for (let i = 0; i < stride && sum < bestSum; i++) {
        const a = i >= bpp ? pixels[r + i - bpp] : 0;
        const v = (pixels[r + i] - ((a + above[u + i]) >> 1)) & 0xff;
        sum += v < 128 ? v : 256 - v;
      }
      if (sum < bestSum) {
        bestSum = sum;
        best = 3;
      }
    }
    if (bestSum > 0) {
      let sum = 0;
      for (let i = 0; i < stride && sum < bestSum; i++) {
        const v = (pixels[r + i] - paeth(i >= bpp ? pixels[r + i - bpp] : 0, above[u + i], i >= bpp ? above[u + i - bpp] : 0)) & 0xff;
        sum += v < 128 ? v : 256 - v;
      }
      if (sum < bestSum) best = 4;
    }
    const o = y * (stride + 1);
    out[o] = best;
    for (let i = 0; i < stride; i++) {
      const x = pixels[r + i];
      const a = i >= bpp ? pixels[r + i - bpp] : 0;
      const b = above[u + i];
      const v = best === 0 ? x : best === 1 ? x - a : best === 2 ? x - b : best === 3 ? x - ((a + b) >> 1) : x - paeth(a, b, i >= bpp ? above[u + i - bpp] : 0);
      out[o + 1 + i] = v & 0xff;
    }
  }
  return out;
}

/** The Paeth predictor: of left, above and upper left, the one nearest left + above - upper left. */
function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function png(width: number, height: number, bitDepth: number, colorType: number, idat: Buffer, plte?: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = colorType;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...(plte ? [chunk('PLTE', plte)] : []),
    chunk('IDAT', deflateSync(idat, { level: 9, memLevel: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Working buffers of the page-image encoder, kept between calls. A 960 px page is megabytes of
 * grey, filtered and packed rows; allocated afresh for each of the three widths of every sent
 * document they made the worker's garbage collector (on V8's helper threads) cost about half as
 * much again as the encoding. Only used within one synchronous call, so nothing else can see them;
 * one larger than SCRATCH_KEPT_BYTES (a very tall page) is not kept.
 */
const SCRATCH_KEPT_BYTES = 16 * 1024 * 1024;
const scratchBuffers: Array<Buffer | null> = [null, null, null];
function scratch(slot: number, size: number): Buffer {
  const kept = scratchBuffers[slot];
  if (kept && kept.length >= size) return kept.subarray(0, size);
  const fresh = Buffer.allocUnsafe(size);
  if (size <= SCRATCH_KEPT_BYTES) scratchBuffers[slot] = fresh;
  return fresh;
}
const GREY = 0;
const FILTERED = 1;
const PACKED = 2;

/**
 * An opaque image (a rendered page: RGB, or RGBA whose alpha is ignored, `channels` bytes a pixel)
 * as the smallest PNG this encoder can make without losing a pixel: 8-bit grey when every pixel is
 * grey (most contracts: a third of the bytes), an indexed palette when it has at most 256 colours,
 * else RGB; rows filtered adaptively. The page image is the signer's first wait on a slow phone
 * link, so its bytes are worth the worker's milliseconds. RGBA straight from the renderer spares
 * a packed copy of every grey or few-coloured page.
 */
export function encodeCompactPng(width: number, height: number, pixels: Uint8Array, channels: 3 | 4 = 3): Buffer {
  const n = width * height;
  if (pixels.length !== n * channels) throw new RangeError('encodeCompactPng: pixel buffer does not match the size');
  let grey = true;
  for (let i = 0; i < pixels.length; i += channels) {
    if (pixels[i] !== pixels[i + 1] || pixels[i] !== pixels[i + 2]) {
      grey = false;
      break;
    }
  }
  if (grey) {
    const g = scratch(GREY, n);
    for (let i = 0, j = 0; i < n; i++, j += channels) g[i] = pixels[j];
    return png(width, height, 8, 0, filterRows(width, height, 1, g, scratch(FILTERED, (width + 1) * height)));
  }
  const rgbRows = () => {
    if (channels === 3) return filterRows(width, height, 3, pixels, scratch(FILTERED, (width * 3 + 1) * height));
    const rgb = scratch(PACKED, n * 3);
    for (let i = 0, j = 0; i < pixels.length; i += 4, j += 3) {
      rgb[j] = pixels[i];
      rgb[j + 1] = pixels[i + 1];
      rgb[j + 2] = pixels[i + 2];
    }
    return filterRows(width, height, 3, rgb, scratch(FILTERED, (width * 3 + 1) * height));
  };
  const index = new Map<number, number>();
  // Palette indices are not magnitudes: filter 0 (the PNG spec's advice for indexed images), each
  // row's filter byte 0 before its indices.
  const raw = scratch(GREY, (width + 1) * height);
  for (let i = 0, j = 0; i < n; i++, j += channels) {
    const key = (pixels[j] << 16) | (pixels[j + 1] << 8) | pixels[j + 2];
    let k = index.get(key);
    if (k === undefined) {
      if (index.size === 256) return png(width, height, 8, 2, rgbRows());
      k = index.size;
      index.set(key, k);
    }
    const x = i % width;
    if (x === 0) raw[i + i / width] = 0;
    raw[i + (i - x) / width + 1] = k;
  }
  const plte = Buffer.alloc(index.size * 3);
  for (const [key, k] of index) {
    plte[k * 3] = key >> 16;
    plte[k * 3 + 1] = (key >> 8) & 0xff;
    plte[k * 3 + 2] = key & 0xff;
  }
  return png(width, height, 8, 3, raw, plte);
}
