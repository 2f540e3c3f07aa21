import { buildMinimalJpeg } from '../../../seals/src/testing/images';
import { decodePng, encodePng, solidPng } from '../testing/png';
import checkLogoJob from './check-logo.handler';

const MAX = 2048;
const check = (image: Buffer) => checkLogoJob({ image, max_side: MAX });

/** A PNG chunk with its CRC (the strict decoder checks them). */
function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  let c = 0xffffffff;
  for (const b of body) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0, 8 + data.length);
  return out;
}

describe('image.logo (check-logo handler)', () => {
  it('re-encodes a PNG: same pixels, and chunks it carried (a comment) are not kept', () => {
    const original = encodePng(40, 20, (x) => [x * 6, 0x56, 0xdb, 255]);
    const withText = Buffer.concat([original.subarray(0, 33), pngChunk('tEXt', Buffer.from('Comment\0tracking-id-1234', 'latin1')), original.subarray(33)]);
    const out = check(withText);
    expect(out).toMatchObject({ ok: true, type: 'png', width: 40, height: 20 });
    if (!out.ok) return;
    const stored = Buffer.from(out.bytes);
    expect(stored.includes(Buffer.from('tracking-id-1234'))).toBe(false);
    const decoded = decodePng(stored);
    expect([decoded.width, decoded.height]).toEqual([40, 20]);
    expect(decoded.rgb(10, 5)).toEqual([60, 0x56, 0xdb]);
  });

  it('takes a JPEG that decodes, as it is', () => {
    const jpeg = buildMinimalJpeg(64, 32);
    const out = check(jpeg);
    expect(out).toMatchObject({ ok: true, type: 'jpeg', width: 64, height: 32 });
    if (out.ok) expect(Buffer.from(out.bytes).equals(jpeg)).toBe(true);
  });

  it('refuses a JPEG whose data is cut off or corrupt, though its header reads', () => {
    const jpeg = buildMinimalJpeg(64, 32);
    const sos = jpeg.indexOf(Buffer.from([0xff, 0xda]));
    const truncated = jpeg.subarray(0, sos + 4);
    expect(check(truncated)).toMatchObject({ ok: false, reason: 'invalid_image' });
  });

  it('refuses an SVG, saying why, and anything else that is neither PNG nor JPEG', () => {
    const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const out = check(svg);
    expect(out).toMatchObject({ ok: false, reason: 'unsupported_type' });
    if (!out.ok) expect(out.message).toMatch(/SVG/);
    expect(check(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'))).toMatchObject({ ok: false, reason: 'unsupported_type' });
  });

  it('refuses a PNG whose pixel data does not decode, and one too large across', () => {
    const png = solidPng(16, 16, [10, 20, 30]);
    const broken = Buffer.from(png);
    const idat = broken.indexOf(Buffer.from('IDAT', 'latin1'));
    broken.fill(0x41, idat + 4, idat + 20);
    expect(check(broken)).toMatchObject({ ok: false, reason: 'invalid_image' });
    const wide = checkLogoJob({ image: solidPng(300, 10, [0, 0, 0]), max_side: 256 });
    expect(wide).toMatchObject({ ok: false, reason: 'invalid_image' });
    if (!wide.ok) expect(wide.message).toContain('300×10');
  });
});
