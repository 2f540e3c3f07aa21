import { inflateSync } from 'zlib';

export interface RgbaImage {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel, rows top to bottom. */
  data: Buffer;
  pixel(x: number, y: number): [number, number, number, number];
}

/**
 * Just enough PNG decoding for the tests: 8-bit RGBA, non-interlaced, which is what resvg
 * writes. Anything else throws, so a change in resvg's output fails loudly instead of
 * being misread.
 */
export function decodeRgbaPng(png: Buffer): RgbaImage {
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    throw new Error('not a PNG');
  }
  let pos = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const length = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const body = png.subarray(pos + 8, pos + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || colour !== 6 || interlace !== 0) {
        throw new Error(`unsupported PNG: depth ${depth} colour ${colour} interlace ${interlace}`);
      }
    } else if (type === 'IDAT') {
      idat.push(body);
    } else if (type === 'IEND') {
      break;
    }
    pos += 12 + length;
  }

  const raw = inflateSync(Buffer.concat(idat));
  const bpp = 4;
  const stride = width * bpp;
  const data = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    const prev = y * stride - stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? data[out + i - bpp] : 0;
      const b = y > 0 ? data[prev + i] : 0;
      const c = y > 0 && i >= bpp ? data[prev + i - bpp] : 0;
      let v: number;
      switch (filter) {
        case 0: v = line[i]; break;
        case 1: v = line[i] + a; break;
        case 2: v = line[i] + b; break;
        case 3: v = line[i] + ((a + b) >> 1); break;
        case 4: v = line[i] + paeth(a, b, c); break;
        default: throw new Error(`bad filter ${filter} on row ${y}`);
      }
      data[out + i] = v & 0xff;
    }
  }
  return {
    width,
    height,
    data,
    pixel(x, y) {
      const o = (y * width + x) * 4;
      return [data[o], data[o + 1], data[o + 2], data[o + 3]];
    },
  };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/**
 * A small but real baseline JPEG (grey, every block flat): one DC and one AC Huffman code of
 * length 1, so each 8x8 block is the two bits "DC diff 0, EOB". Lets tests pick any size.
 */
export function buildMinimalJpeg(width: number, height: number): Buffer {
  const seg = (marker: number, body: number[]) => {
    const length = body.length + 2;
    return [0xff, marker, length >> 8, length & 0xff, ...body];
  };
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const bits = '00'.repeat(blocks);
  const scan: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    const byte = parseInt(bits.slice(i, i + 8).padEnd(8, '1'), 2);
    scan.push(byte);
    if (byte === 0xff) scan.push(0x00); // byte stuffing; cannot happen with zero bits, kept for safety
  }
  const counts = (n: number) => [n, ...new Array(15).fill(0)];
  return Buffer.from([
    0xff, 0xd8,
    ...seg(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]), // JFIF 1.1
    ...seg(0xdb, [0x00, ...new Array(64).fill(1)]),
    ...seg(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]),
    ...seg(0xc4, [0x00, ...counts(1), 0x00]), // DC table 0: one code, category 0
    ...seg(0xc4, [0x10, ...counts(1), 0x00]), // AC table 0: one code, EOB
    ...seg(0xda, [1, 1, 0x00, 0, 63, 0]),
    ...scan,
    0xff, 0xd9,
  ]);
}
