import { createHash } from 'node:crypto';
import { PDFDict, PDFDocument } from 'pdf-lib';
import { readPdfSignatures } from '../../../verifier/src/pdf-signatures';
import { inflationProblem } from '../inflate-budget';
import { countPdfObjects, describeEncryption, MAX_PDF_OBJECTS } from '../inspect-pdf';
import { assertOffMainThread } from '../main-thread-guard';
import { bytes, type VerifiedPdf, type VerifyPdfInput } from './pdf-jobs';

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

/**
 * A PDF dropped on the public verify page: its SHA-256 and what its bytes say about its
 * signatures (libs/verifier's readPdfSignatures). Refused before any parse when it is not a PDF,
 * holds more objects than an upload may, or would inflate past the decompression budget; then
 * parsed once (pdf-lib, as an upload is) to refuse an encrypted or unreadable file. Nothing is
 * kept: the bytes die with the job.
 */
export default async function verifyPdfJob(input: VerifyPdfInput): Promise<VerifiedPdf> {
  assertOffMainThread('verifyPdf');
  const pdf = bytes(input.pdf);
  if (pdf.length < PDF_MAGIC.length || !pdf.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    return { ok: false, reason: 'not_pdf', message: 'File does not start with a PDF header (%PDF-).' };
  }
  const objects = countPdfObjects(pdf);
  if (objects > MAX_PDF_OBJECTS) return { ok: false, reason: 'too_complex', message: `The PDF holds ${objects.toLocaleString('en-US')} objects; at most ${MAX_PDF_OBJECTS.toLocaleString('en-US')} are accepted.` };
  const bomb = inflationProblem(pdf);
  if (bomb) return { ok: false, reason: 'too_complex', message: `The PDF is refused: ${bomb}.` };
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(pdf, { ignoreEncryption: true, updateMetadata: false });
  } catch (error) {
    return { ok: false, reason: 'not_pdf', message: `File is not a readable PDF: ${(error as Error).message}` };
  }
  if (doc.isEncrypted) {
    return { ok: false, reason: 'encrypted', message: `PDF is protected with ${describeEncryption(doc)}: Dojang never issues encrypted PDFs, and an encrypted file cannot be checked.` };
  }
  if (!(doc.context.lookup(doc.context.trailerInfo.Root) instanceof PDFDict)) {
    return { ok: false, reason: 'not_pdf', message: 'File is not a readable PDF: it has no document catalog (trailer /Root).' };
  }
  return { ok: true, sha256: createHash('sha256').update(pdf).digest('hex'), byte_size: pdf.length, ...readPdfSignatures(pdf, { trustAnchors: input.trust_anchors.map(bytes) }) };
}
