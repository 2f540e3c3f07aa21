import { deflateSync } from 'node:zlib';
import { readImageInfo, sanitizeImage, sniffImageType, UnsafeImageError } from './image-type';
import { decodePngStrict } from './png-decode';
import { stampPdf } from './stamp-pdf';
import { pdfFixture } from './testing/fixtures';
import { renderDocumentPdf } from './render-document';
import { decodePng, encodePng } from './testing/png';
import { pdftotext, renderPage } from './testing/poppler';

/** Hand-built PNGs for the variants our own encoder never writes. */
function rawPng(opts: { width: number; height: number; bitDepth: number; colorType: number; interlace?: number; data: Buffer; plte?: Buffer; trns?: Buffer }): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    let c = 0xffffffff;
    for (const b of body) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE((c ^ 0xffffffff) >>> 0, 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(opts.width, 0);
  ihdr.writeUInt32BE(opts.height, 4);
  ihdr[8] = opts.bitDepth;
  ihdr[9] = opts.colorType;
  ihdr[12] = opts.interlace ?? 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...(opts.plte ? [chunk('PLTE', opts.plte)] : []),
    ...(opts.trns ? [chunk('tRNS', opts.trns)] : []),
    chunk('IDAT', deflateSync(opts.data)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const red = encodePng(20, 10, () => [255, 0, 0, 255]);
const translucent = encodePng(20, 10, (x) => [0, 0, 255, x < 10 ? 255 : 0]);

function corruptIdat(png: Buffer): Buffer {
  const b = Buffer.from(png);
  const idat = b.indexOf('IDAT', 0, 'latin1');
  for (let i = idat + 6; i < idat + 4 + b.readUInt32BE(idat - 4); i++) b[i] = 0x55;
  return b;
}

describe('readImageInfo / sniffImageType', () => {
  it('reads PNG and JPEG sizes from their headers', () => {
    expect(readImageInfo(red)).toEqual({ type: 'png', width: 20, height: 10 });
    // SOI, APP0 (length 16), SOF0 with height 300 and width 400.
    const jpeg = Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.alloc(14),
      Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90, 0x03]), Buffer.alloc(9),
    ]);
    expect(readImageInfo(jpeg)).toEqual({ type: 'jpeg', width: 400, height: 300 });
    expect(sniffImageType(Buffer.from('GIF89a'))).toBeNull();
  });

  it('rejects JPEG-looking bytes without a frame header', () => {
    expect(readImageInfo(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x50, 1, 2, 3]))).toBeNull();
    expect(readImageInfo(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0xff, 0xd9]))).toBeNull();
  });
});

const reencoded = (png: Buffer) => sanitizeImage(png).bytes;

describe('sanitizeImage', () => {
  it('re-encodes PNGs, keeping pixels, and keeps transparency only where there is some', () => {
    const opaque = reencoded(red);
    expect(opaque[25]).toBe(2); // colour type RGB
    expect(decodePng(opaque).rgb(5, 5)).toEqual([255, 0, 0]);
    expect(reencoded(translucent)[25]).toBe(6); // colour type RGBA
  });

  it('accepts palette + tRNS, low bit depths, 16-bit and interlaced PNGs', () => {
    const palette = rawPng({ width: 2, height: 1, bitDepth: 8, colorType: 3, data: Buffer.from([0, 0, 1]), plte: Buffer.from([255, 0, 0, 0, 255, 0]), trns: Buffer.from([255, 0]) });
    expect(Array.from(decodePngStrict(palette, 100).rgba)).toEqual([255, 0, 0, 255, 0, 255, 0, 0]);
    // 2-bit palette, 4 pixels packed in one byte: indices 0,1,2,3.
    const packed = rawPng({ width: 4, height: 1, bitDepth: 2, colorType: 3, data: Buffer.from([0, 0b00011011]), plte: Buffer.from([0, 0, 0, 85, 85, 85, 170, 170, 170, 255, 255, 255]) });
    expect(Array.from(decodePngStrict(packed, 100).rgba).filter((_, i) => i % 4 === 0)).toEqual([0, 85, 170, 255]);
    const grey16 = rawPng({ width: 2, height: 1, bitDepth: 16, colorType: 0, data: Buffer.from([0, 0x80, 0x00, 0x12, 0x34]), trns: Buffer.from([0x12, 0x34]) });
    expect(Array.from(decodePngStrict(grey16, 100).rgba)).toEqual([128, 128, 128, 255, 0x12, 0x12, 0x12, 0]);
    for (const png of [palette, packed, grey16]) expect(reencoded(png)).toBeInstanceOf(Buffer);
  });

  it('places Adam7-interlaced pixels where they belong', () => {
    // 3×3 grey image whose pixel (x, y) has value 10·(3y + x + 1), sent pass by pass.
    const v = (x: number, y: number) => 10 * (3 * y + x + 1);
    // Passes 2 and 3 are empty for 3×3; then pass 1 (0,0), 4 (2,0), 5 (0,2)(2,2),
    // 6 (1,0) and (1,2) on two rows, 7 the middle row.
    const data = Buffer.from([
      0, v(0, 0),
      0, v(2, 0),
      0, v(0, 2), v(2, 2),
      0, v(1, 0), 0, v(1, 2),
      0, v(0, 1), v(1, 1), v(2, 1),
    ]);
    const png = rawPng({ width: 3, height: 3, bitDepth: 8, colorType: 0, interlace: 1, data });
    const decoded = decodePngStrict(png, 100);
    const greys = Array.from(decoded.rgba).filter((_, i) => i % 4 === 0);
    expect(greys).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90]);
  });

  it('refuses corrupt, truncated, fake and oversized PNGs quickly', () => {
    const started = Date.now();
    const bad = [
      corruptIdat(translucent),
      red.subarray(0, red.length - 20),
      Buffer.concat([red.subarray(0, 8), Buffer.alloc(40, 7)]),
      rawPng({ width: 2, height: 2, bitDepth: 8, colorType: 2, data: Buffer.from([9, 1, 2, 3, 4, 5, 6, 9, 1, 2, 3, 4, 5, 6]) }),
      rawPng({ width: 1, height: 1, bitDepth: 8, colorType: 3, data: Buffer.from([0, 5]), plte: Buffer.from([1, 2, 3]) }),
      rawPng({ width: 1, height: 1, bitDepth: 3, colorType: 0, data: Buffer.from([0, 0]) }),
    ];
    for (const png of bad) expect(() => sanitizeImage(png)).toThrow(UnsafeImageError);
    const huge = Buffer.from(red);
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    expect(() => sanitizeImage(huge)).toThrow(/100000×100000 pixels; at most 10000000/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('lets stamping refuse a corrupt signature image instead of hanging', async () => {
    await expect(
      stampPdf(pdfFixture('chromium-korean-contract-a4.pdf'), [{ page: 1, x: 10, y: 10, width: 20, height: 10, image: corruptIdat(translucent) }]),
    ).rejects.toThrow(/stamps\[0\]\.image is not a valid PNG/);
  });
});

describe('contract images that would crash pdfkit', () => {
  it('are dropped and the contract still renders', async () => {
    const broken = corruptIdat(translucent).toString('base64');
    const pdf = await renderDocumentPdf({
      title: '근로계약서',
      format: 'html',
      content: `<p>앞</p><img src="data:image/png;base64,${broken}"><p>뒤</p><img src="data:image/png;base64,${translucent.toString('base64')}" width="200">`,
    });
    expect(pdftotext(pdf)).toMatch(/앞\s+뒤/);
    const page = renderPage(pdf, 1, 30);
    let blue = 0;
    for (let y = 0; y < page.height; y++) for (let x = 0; x < page.width; x++) if (page.rgb(x, y)[2] > 200 && page.rgb(x, y)[0] < 60) blue++;
    expect(blue).toBeGreaterThan(300);
  });
});
