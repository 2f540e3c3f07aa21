import { PDFDocument } from 'pdf-lib';

/**
 * Appends every page of `extra` after `base` (document + audit certificate).
 *
 * This rewrites the file, so a signature already in `base` would no longer
 * cover it: bundle first and sign the bundle, or serve a signed document
 * and its certificate as they are.
 */
export async function appendPdfs(base: Buffer, extra: Buffer): Promise<Buffer> {
  const doc = await PDFDocument.load(base, { updateMetadata: false });
  const other = await PDFDocument.load(extra, { updateMetadata: false });
  const pages = await doc.copyPages(other, other.getPageIndices());
  for (const page of pages) doc.addPage(page);
  return Buffer.from(await doc.save());
}
