import { SealInputError } from './errors';

/** Largest decoded seal image accepted: a stamp needs no more, and it bounds memory per request. */
export const SEAL_IMAGE_MAX_BYTES = 1024 * 1024;
/**
 * Largest width or height accepted. A 1 MB file can still declare a huge canvas that would blow
 * up whoever decodes it later (PDF renderer, thumbnailer), so the header is capped too.
 */
export const SEAL_IMAGE_MAX_DIMENSION = 8192;

export interface InspectedSealImage {
  /** Type judged from the bytes; the data URL's declared type is ignored. */
  mime: 'image/png' | 'image/jpeg';
  bytes: Buffer;
  width: number;
  height: number;
}

const PARAM = 'image';

/**
 * Decodes and checks an uploaded seal image given as a base64 `data:` URL.
 *
 * The declared media type is only checked for syntax: browsers and tools often label files
 * wrongly, and what matters downstream is what the bytes are.
 *
 * @throws SealInputError with `param: 'image'` and code
 *   `invalid_parameter` (not a base64 data URL, empty, or a damaged PNG/JPEG header),
 *   `file_too_large` (over 1 MB decoded), or
 *   `unsupported_file_type` (the bytes are neither PNG nor JPEG).
 */
export function inspectSealImage(dataUrl: string): InspectedSealImage {
  const bytes = decodeDataUrl(dataUrl);
  if (isPng(bytes)) return { mime: 'image/png', bytes, ...pngSize(bytes) };
  if (isJpeg(bytes)) return { mime: 'image/jpeg', bytes, ...jpegSize(bytes) };
  throw new SealInputError('unsupported_file_type', PARAM, 'image must be a PNG or JPEG');
}

function invalid(message: string): SealInputError {
  return new SealInputError('invalid_parameter', PARAM, message);
}

// RFC 2397: data:[<mediatype>][;param=value]*;base64,<data>. Only the base64 form is accepted,
// since a percent-encoded binary image is not something any client actually sends.
const DATA_URL = /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[^;,]*)*);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeDataUrl(dataUrl: unknown): Buffer {
  if (typeof dataUrl !== 'string') throw invalid('image must be a base64 data URL string');
  // Base64 is 4/3 of the decoded size; twice that leaves room for any sane line wrapping and
  // spares running regexes over an absurdly long string.
  if (dataUrl.length > (SEAL_IMAGE_MAX_BYTES * 8) / 3 + 1024) throw tooLarge();
  const text = dataUrl.trim();
  const head = DATA_URL.exec(text.slice(0, 512));
  if (!head) throw invalid('image must be a data URL of the form data:<type>;base64,<data>');

  // Line-wrapped base64 (MIME style, 76 columns) is common when pasted, so whitespace is dropped.
  const payload = text.slice(head[0].length).replace(/\s+/g, '');
  // Checked before decoding so an oversized upload costs no allocation of its decoded form.
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  if (Math.floor((payload.length * 3) / 4) - padding > SEAL_IMAGE_MAX_BYTES) throw tooLarge();
  // Node's decoder silently skips junk characters, so validity has to be checked up front.
  // Unpadded base64 is tolerated; a padded one must come in whole 4-character groups.
  const badLength = payload.length % 4 === 1 || (padding > 0 && payload.length % 4 !== 0);
  if (!BASE64.test(payload) || badLength) throw invalid('image data is not valid base64');
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length === 0) throw invalid('image data is empty');
  return bytes;
}

function tooLarge(): SealInputError {
  return new SealInputError(
    'file_too_large',
    PARAM,
    `image must be at most ${SEAL_IMAGE_MAX_BYTES} bytes (1 MB) decoded`,
  );
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isPng(b: Buffer): boolean {
  return b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE);
}

function isJpeg(b: Buffer): boolean {
  return b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
}

function checkDimensions(kind: string, width: number, height: number): { width: number; height: number } {
  if (width < 1 || height < 1) throw invalid(`${kind} image has zero width or height`);
  if (width > SEAL_IMAGE_MAX_DIMENSION || height > SEAL_IMAGE_MAX_DIMENSION) {
    throw invalid(`image must be at most ${SEAL_IMAGE_MAX_DIMENSION} pixels wide and high`);
  }
  return { width, height };
}

// Allowed bit depths per PNG colour type (PNG spec, table 11.1).
const PNG_BIT_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/**
 * Reads the size from IHDR and walks the chunk list, so a truncated upload (cut off mid-transfer)
 * is refused here instead of producing a broken stamp on a signed contract later.
 */
function pngSize(b: Buffer): { width: number; height: number } {
  const damaged = (why: string) => invalid(`image is a damaged PNG: ${why}`);
  if (b.length < 33 || b.readUInt32BE(8) !== 13 || b.toString('latin1', 12, 16) !== 'IHDR') {
    throw damaged('missing IHDR header');
  }
  if (crc32(b.subarray(12, 29)) !== b.readUInt32BE(29)) throw damaged('IHDR checksum mismatch');
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  const bitDepth = b[24];
  const colorType = b[25];
  if (!PNG_BIT_DEPTHS[colorType]?.includes(bitDepth) || b[26] !== 0 || b[27] !== 0 || b[28] > 1) {
    throw damaged('invalid IHDR fields');
  }

  let pos = 33;
  let sawIdat = false;
  for (;;) {
    if (pos + 12 > b.length) throw damaged('truncated (no IEND chunk)');
    const length = b.readUInt32BE(pos);
    const type = b.toString('latin1', pos + 4, pos + 8);
    if (length > 0x7fffffff || pos + 12 + length > b.length) throw damaged(`truncated ${type} chunk`);
    if (!/^[A-Za-z]{4}$/.test(type)) throw damaged('invalid chunk type');
    if (type === 'IDAT') sawIdat = true;
    pos += 12 + length;
    if (type === 'IEND') break;
  }
  if (!sawIdat) throw damaged('no image data');
  return checkDimensions('PNG', width, height);
}

/**
 * Walks JPEG marker segments up to the first SOFn frame header, which carries the size.
 * Scan data is not decoded: the header is what a renderer trusts for layout.
 */
function jpegSize(b: Buffer): { width: number; height: number } {
  const damaged = (why: string) => invalid(`image is a damaged JPEG: ${why}`);
  let pos = 2; // after SOI
  for (;;) {
    if (pos >= b.length || b[pos] !== 0xff) throw damaged('no frame header');
    while (pos < b.length && b[pos] === 0xff) pos++; // fill bytes may pad before a marker
    if (pos >= b.length) throw damaged('no frame header');
    const marker = b[pos++];
    // Markers without a length field: TEM and RSTn. SOI again or a stuffed 0 is malformed.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue;
    if (marker === 0xd8 || marker === 0x00) throw damaged('unexpected marker');
    if (marker === 0xd9 || marker === 0xda) throw damaged('no frame header before image data');
    if (pos + 2 > b.length) throw damaged('truncated segment');
    const length = b.readUInt16BE(pos);
    if (length < 2 || pos + length > b.length) throw damaged('truncated segment');
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC) which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (length < 8) throw damaged('short frame header');
      const height = b.readUInt16BE(pos + 3);
      const width = b.readUInt16BE(pos + 5);
      const components = b[pos + 7];
      if (components < 1 || components > 4 || length !== 8 + 3 * components) {
        throw damaged('invalid frame header');
      }
      // Height 0 (size given later in a DNL segment) is legal JPEG but almost never written;
      // treating it as unknown size would only push the problem downstream.
      return checkDimensions('JPEG', width, height);
    }
    pos += length;
  }
}

let crcTable: Uint32Array | undefined;

/** CRC-32 as PNG uses it; zlib.crc32 only exists from Node 20.15 / 22.2. */
function crc32(data: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
