import { PDFDocument } from 'pdf-lib';
import './native-deflate';
import { assertOffMainThread } from './main-thread-guard';

/**
 * The parts of a document as one PDF, in order (document-parts.ts in the domain): every page of
 * each part copied with pdf-lib, nothing else (no outlines, forms or metadata of the parts; the
 * final PDF's form fields are flattened anyway). Deterministic: no dates are written, so the same
 * parts join to the same bytes and the joined original's hash can be recorded at send.
 */
export async function joinPdfs(pdfs: Uint8Array[], title?: string): Promise<{ pdf: Uint8Array; page_counts: number[] }> {
  assertOffMainThread('joinPdfs');
  const out = await PDFDocument.create({ updateMetadata: false });
  const pageCounts: number[] = [];
  for (const bytes of pdfs) {
    const part = await PDFDocument.load(bytes, { updateMetadata: false });
    const pages = await out.copyPages(part, part.getPageIndices());
    for (const page of pages) out.addPage(page);
    pageCounts.push(pages.length);
  }
  if (title) {
    out.setTitle(title, { showInWindowTitleBar: true });
    out.setLanguage('ko-KR');
  }
  return { pdf: await out.save({ useObjectStreams: false }), page_counts: pageCounts };
}
