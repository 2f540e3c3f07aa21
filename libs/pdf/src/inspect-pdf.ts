import { PDFDict, PDFDocument, PDFName, PDFNumber, PDFPage } from 'pdf-lib';
import { ActiveContentKind, removeActiveContent } from './sanitize-pdf';
import { assertOffMainThread } from './main-thread-guard';

export type PageRotation = 0 | 90 | 180 | 270;

export interface PdfPageInfo {
  /** Visible page box (CropBox, else MediaBox) in points, before /Rotate is applied. */
  width: number;
  height: number;
  /** Clockwise display rotation, normalised to 0/90/180/270. */
  rotation: PageRotation;
}

export type PdfInspection =
  | {
      ok: true;
      page_count: number;
      pages: PdfPageInfo[];
      /** Active content found (and removed from `sanitized`); empty for a clean file. */
      active_content: ActiveContentKind[];
      /** The file without its active content: what to store instead of the upload. Absent when clean. */
      sanitized?: Uint8Array;
    }
  | { ok: false; reason: 'not_pdf' | 'encrypted'; message: string };

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

export function normalizeRotation(angle: number): PageRotation {
  const quarterTurns = Math.round(angle / 90);
  return ((((quarterTurns % 4) + 4) % 4) * 90) as PageRotation;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function visibleBox(page: PDFPage): { x: number; y: number; width: number; height: number } {
  // CropBox is what viewers show and what a signer places fields on.
  const box = page.getCropBox();
  if (!(box.width > 0 && box.height > 0)) throw new Error('page has an empty page box');
  return box;
}

function numberIn(dict: PDFDict | undefined, key: string): number | undefined {
  const value = dict?.lookup(PDFName.of(key));
  return value instanceof PDFNumber ? value.asNumber() : undefined;
}

/** Names the encryption the way a person fixing their upload would need it. */
export function describeEncryption(doc: PDFDocument): string {
  const encrypt = doc.context.lookup(doc.context.trailerInfo.Encrypt);
  if (!(encrypt instanceof PDFDict)) return 'encrypted';
  const filter = encrypt.lookup(PDFName.of('Filter'));
  const filterName = filter instanceof PDFName ? filter.decodeText() : 'unknown';
  if (filterName !== 'Standard') return `${filterName} (certificate-based) encryption`;
  const v = numberIn(encrypt, 'V') ?? 0;
  const r = numberIn(encrypt, 'R');
  const length = numberIn(encrypt, 'Length');
  let algorithm: string;
  if (v >= 5) {
    algorithm = 'AES-256';
  } else if (v === 4) {
    const cf = encrypt.lookup(PDFName.of('CF'));
    const stdCf = cf instanceof PDFDict ? cf.lookup(PDFName.of('StdCF')) : undefined;
    const cfm = stdCf instanceof PDFDict ? stdCf.lookup(PDFName.of('CFM')) : undefined;
    algorithm = cfm instanceof PDFName && cfm.decodeText() === 'AESV2' ? 'AES-128' : 'RC4-128';
  } else if (v === 1) {
    algorithm = 'RC4-40';
  } else {
    algorithm = `RC4-${length ?? 40}`;
  }
  return `${algorithm} encryption (standard security handler${r !== undefined ? `, revision ${r}` : ''})`;
}

/**
 * Decides from the bytes alone whether an upload is a PDF we can work with, and strips what a
 * signer must never be served (see sanitize-pdf.ts).
 * Encrypted files are refused up front: we could neither stamp nor sign them
 * without breaking them later, which is worse than a clear "no" now.
 */
export async function inspectPdf(bytes: Buffer): Promise<PdfInspection> {
  assertOffMainThread('inspectPdf');
  if (bytes.length < PDF_MAGIC.length || !bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    return { ok: false, reason: 'not_pdf', message: 'File does not start with a PDF header (%PDF-).' };
  }
  let doc: PDFDocument;
  try {
    // ignoreEncryption only lets us read the /Encrypt dictionary to name it;
    // pdf-lib's own decision (trailer /Encrypt) is what refuses the file.
    doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
  } catch (error) {
    return { ok: false, reason: 'not_pdf', message: `File is not a readable PDF: ${(error as Error).message}` };
  }
  if (doc.isEncrypted) {
    return {
      ok: false,
      reason: 'encrypted',
      message: `PDF is protected with ${describeEncryption(doc)}; encrypted or password-protected PDFs are not accepted. Remove the password and permissions, then upload it again.`,
    };
  }
  if (!(doc.context.lookup(doc.context.trailerInfo.Root) instanceof PDFDict)) {
    return { ok: false, reason: 'not_pdf', message: 'File is not a readable PDF: it has no document catalog (trailer /Root).' };
  }
  try {
    const pages = doc.getPages().map((page) => {
      const box = visibleBox(page);
      return { width: round2(box.width), height: round2(box.height), rotation: normalizeRotation(page.getRotation().angle) };
    });
    if (pages.length === 0) return { ok: false, reason: 'not_pdf', message: 'File is not a readable PDF: it has no pages.' };
    // Done here, under the reader's time limit, because finding it means reading every object.
    const active_content = removeActiveContent(doc);
    if (active_content.length === 0) return { ok: true, page_count: pages.length, pages, active_content };
    const sanitized = await doc.save({ useObjectStreams: false });
    return { ok: true, page_count: pages.length, pages, active_content, sanitized };
  } catch (error) {
    return { ok: false, reason: 'not_pdf', message: `File is not a readable PDF: its page tree is broken (${(error as Error).message}).` };
  }
}
