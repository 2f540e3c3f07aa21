import { generateSealPng, inspectSealImage, SEAL_IMAGE_MAX_BYTES, SealInputError } from '@dojang/seals';
import { buildMinimalJpeg } from './testing/images';

// 3x2 JPEG written by libjpeg-turbo's cjpeg (quality 50, optimised Huffman tables).
const REAL_JPEG_3X2 =
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAACAAMDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAP/xAAcEAABBQADAAAAAAAAAAAAAAABAAIDBBEScYH/xAAVAQEBAAAAAAAAAAAAAAAAAAADBf/EABsRAAIBBQAAAAAAAAAAAAAAAAABAgMxM3Gx/9oADAMBAAIRAxEAPwCUlaB9q1ygjdlmZo1gOASOAHQAA8REVihijpcDdz//2Q==';

// Smallest GIF89a (1x1 transparent).
const GIF_1X1 = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

const dataUrl = (bytes: Buffer, mime = 'image/png') => `data:${mime};base64,${bytes.toString('base64')}`;

function errorOf(fn: () => unknown): SealInputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SealInputError) return e;
    throw e;
  }
  throw new Error('expected a SealInputError');
}

describe('inspectSealImage', () => {
  const png = generateSealPng('도장', { size: 120 });

  it('accepts a PNG and reports its size', () => {
    const out = inspectSealImage(dataUrl(png));
    expect(out.mime).toBe('image/png');
    expect([out.width, out.height]).toEqual([120, 120]);
    expect(out.bytes.equals(png)).toBe(true);
  });

  it('accepts a real JPEG', () => {
    const out = inspectSealImage(`data:image/jpeg;base64,${REAL_JPEG_3X2}`);
    expect(out).toMatchObject({ mime: 'image/jpeg', width: 3, height: 2 });
  });

  it('accepts a hand-built JPEG with a two-byte size', () => {
    const out = inspectSealImage(dataUrl(buildMinimalJpeg(600, 257), 'image/jpeg'));
    expect(out).toMatchObject({ mime: 'image/jpeg', width: 600, height: 257 });
  });

  it('judges by the bytes, not the declared type', () => {
    expect(inspectSealImage(dataUrl(png, 'image/jpeg')).mime).toBe('image/png');
    expect(inspectSealImage(`data:application/octet-stream;base64,${REAL_JPEG_3X2}`).mime).toBe('image/jpeg');
    expect(inspectSealImage(`data:;base64,${REAL_JPEG_3X2}`).mime).toBe('image/jpeg');
  });

  it('tolerates line-wrapped base64 and parameters in the header', () => {
    const wrapped = png.toString('base64').replace(/.{76}/g, '$&\r\n');
    expect(inspectSealImage(`data:image/png;name=seal.png;base64,${wrapped}`).width).toBe(120);
  });

  it('refuses a GIF and random bytes as unsupported_file_type', () => {
    for (const url of [
      `data:image/gif;base64,${GIF_1X1}`,
      `data:image/png;base64,${GIF_1X1}`,
      dataUrl(Buffer.from('this is not an image at all')),
      dataUrl(Buffer.from('%PDF-1.7\n'), 'application/pdf'),
    ]) {
      expect(errorOf(() => inspectSealImage(url))).toMatchObject({ code: 'unsupported_file_type', param: 'image' });
    }
  });

  it('refuses images over 1 MB as file_too_large', () => {
    const big = Buffer.concat([png, Buffer.alloc(SEAL_IMAGE_MAX_BYTES + 1 - png.length)]);
    expect(errorOf(() => inspectSealImage(dataUrl(big)))).toMatchObject({ code: 'file_too_large', param: 'image' });
    const huge = 'data:image/png;base64,' + 'A'.repeat(4 * 1024 * 1024);
    expect(errorOf(() => inspectSealImage(huge)).code).toBe('file_too_large');
  });

  it('accepts exactly 1 MB', () => {
    // PNG readers ignore bytes after IEND; this keeps the test on the size rule alone.
    const padded = Buffer.concat([png, Buffer.alloc(SEAL_IMAGE_MAX_BYTES - png.length)]);
    expect(inspectSealImage(dataUrl(padded)).bytes.length).toBe(SEAL_IMAGE_MAX_BYTES);
  });

  it.each([
    ['not a data URL', 'https://example.com/seal.png'],
    ['no base64 marker', 'data:image/png,abcd'],
    ['non-base64 characters', 'data:image/png;base64,iVBOR*w0KGgo='],
    ['bad padding', 'data:image/png;base64,iVBOR='],
    ['empty payload', 'data:image/png;base64,'],
    ['non-string', 42 as unknown as string],
  ])('refuses a malformed data URL (%s) as invalid_parameter', (_label, url) => {
    expect(errorOf(() => inspectSealImage(url))).toMatchObject({ code: 'invalid_parameter', param: 'image' });
  });

  it('refuses damaged PNG and JPEG headers as invalid_parameter', () => {
    const badCrc = Buffer.from(png);
    badCrc[17] ^= 0xff; // width changed without fixing the IHDR CRC
    const truncated = png.subarray(0, png.length - 20);
    const jpegNoFrame = Buffer.from([0xff, 0xd8, 0xff, 0xd9]);
    const jpegZeroWidth = buildMinimalJpeg(0, 8);
    for (const bytes of [badCrc, truncated, png.subarray(0, 20), jpegNoFrame, jpegZeroWidth]) {
      expect(errorOf(() => inspectSealImage(dataUrl(bytes)))).toMatchObject({ code: 'invalid_parameter' });
    }
  });

  it('refuses absurd dimensions', () => {
    expect(errorOf(() => inspectSealImage(dataUrl(buildMinimalJpeg(9000, 8), 'image/jpeg'))).code).toBe(
      'invalid_parameter',
    );
  });
});
