import { decodePngStrict, PngDecodeError } from './png-decode';
import { encodePngPixels } from './png-encode';
import { assertOffMainThread } from './main-thread-guard';

export type StampImageType = 'png' | 'jpeg';

/**
 * Trust the bytes, not a file name or a MIME type someone typed: PDF writers
 * need the real format, and anything else must be refused before embedding.
 */
export function sniffImageType(bytes: Uint8Array): StampImageType | null {
  if (
    bytes.length >= 24 &&
    bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47 &&
    bytes[4] === 0x0d && bytes[5] === 0x0a && bytes[6] === 0x1a && bytes[7] === 0x0a
  ) {
    return 'png';
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

/** Enough for an A4 scan at 300 dpi; decoded as RGBA that is 40 MB, the most we let one image cost. */
export const MAX_IMAGE_PIXELS = 10_000_000;

export interface ImageInfo {
  type: StampImageType;
  width: number;
  height: number;
}

/** JPEG start-of-frame markers (baseline, progressive, lossless…), which carry the size. */
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  let pos = 2;
  while (pos + 4 <= bytes.length) {
    if (bytes[pos] !== 0xff) return null;
    const marker = bytes[pos + 1];
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      pos += 2;
      continue;
    }
    const length = bytes.readUInt16BE(pos + 2);
    if (length < 2 || pos + 2 + length > bytes.length) return null;
    if (JPEG_SOF.has(marker)) {
      if (length < 7) return null;
      return { height: bytes.readUInt16BE(pos + 5), width: bytes.readUInt16BE(pos + 7) };
    }
    if (marker === 0xda || marker === 0xd9) return null; // scan data before any frame header
    pos += 2 + length;
  }
  return null;
}

/** Size and format from the headers alone, with every read bounds-checked. */
export function readImageInfo(bytes: Buffer): ImageInfo | null {
  const type = sniffImageType(bytes);
  if (type === 'png') {
    if (bytes.toString('latin1', 12, 16) !== 'IHDR') return null;
    return { type, width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (type === 'jpeg') {
    const size = jpegSize(bytes);
    return size ? { type, ...size } : null;
  }
  return null;
}

function acceptableSize(info: ImageInfo): boolean {
  return info.width > 0 && info.height > 0 && info.width * info.height <= MAX_IMAGE_PIXELS;
}

export class UnsafeImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeImageError';
  }
}

/**
 * Returns image bytes that are safe to give the PDF libraries, or throws
 * UnsafeImageError.
 *
 * PNGs are decoded by our strict decoder and re-encoded in the plainest form
 * (see png-decode.ts for why the libraries must never see a user's PNG).
 * JPEGs are embedded as they are — both libraries only read their headers,
 * synchronously — so a well-formed frame header is all we check.
 */
export function sanitizeImage(bytes: Buffer): { type: StampImageType; bytes: Buffer } {
  assertOffMainThread('sanitizeImage');
  const info = readImageInfo(bytes);
  if (!info) throw new UnsafeImageError('image is neither PNG nor JPEG');
  if (!acceptableSize(info)) {
    throw new UnsafeImageError(`image is ${info.width}×${info.height} pixels; at most ${MAX_IMAGE_PIXELS} pixels are accepted`);
  }
  if (info.type === 'jpeg') return { type: 'jpeg', bytes };
  try {
    const png = decodePngStrict(bytes, MAX_IMAGE_PIXELS);
    if (png.hasAlpha) return { type: 'png', bytes: encodePngPixels(png.width, png.height, 4, png.rgba) };
    const rgb = new Uint8Array(png.width * png.height * 3);
    for (let i = 0, j = 0; i < png.rgba.length; i += 4) {
      rgb[j++] = png.rgba[i];
      rgb[j++] = png.rgba[i + 1];
      rgb[j++] = png.rgba[i + 2];
    }
    return { type: 'png', bytes: encodePngPixels(png.width, png.height, 3, rgb) };
  } catch (error) {
    if (error instanceof PngDecodeError) throw new UnsafeImageError(`image is not a valid PNG (${error.message})`);
    throw error;
  }
}
