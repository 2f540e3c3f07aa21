import { inspectPdf, type PdfInspection } from '../inspect-pdf';
import { bytes, type Bytes } from './pdf-jobs';

/** Reads an uploaded (or rendered) PDF: page count, sizes, rotation, or why it is unreadable. */
export default async function inspectPdfJob(input: Bytes): Promise<PdfInspection> {
  try {
    return await inspectPdf(bytes(input));
  } catch (err) {
    return { ok: false, reason: 'not_pdf', message: `File is not a readable PDF: ${String((err as Error)?.message ?? err)}` };
  }
}
