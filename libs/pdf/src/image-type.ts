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
