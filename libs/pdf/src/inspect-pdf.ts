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
  | { ok: false; reason: 'not_pdf' | 'encrypted' | 'too_complex'; message: string };

/**
 * Objects one uploaded PDF may hold. Every later step (stamping, signing, the certificate, the
 * bundle) parses and writes them all again: a 10.9 MB file of 200,000 objects made the signature
 * take 12.9 s and the certificate 9 s (issue 24, item 17). Contracts, scanned ones included, hold
 * a few thousand.
 */
export const MAX_PDF_OBJECTS = 50_000;

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');

const OBJ = Buffer.from('obj', 'latin1');
const OBJSTM = Buffer.from('/ObjStm', 'latin1');
const OBJECT_STREAM_COUNT = /\/N\s+(\d+)/;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0x00;

/**
 * The objects a file can make the parser build, counted from its bytes before parsing it: every
 * `n g obj` plus the count each object stream declares (pdf-lib reads exactly that many from it).
 * Parsing 60,000 objects takes longer than the read's time limit on a busy machine, so the budget
 * is judged before the parse (native byte searches: about 50 ms for 20 MB), and again after it.
 */
export function countPdfObjects(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(OBJ); at >= 0; at = bytes.indexOf(OBJ, at + 3)) {
    // "obj" preceded by white space and a generation number ("12 0 obj"), not "endobj".
    let i = at - 1;
    if (i < 0 || !isSpace(bytes[i])) continue;
    while (i >= 0 && isSpace(bytes[i])) i--;
    if (i >= 0 && isDigit(bytes[i])) count++;
  }
  for (let at = bytes.indexOf(OBJSTM); at >= 0; at = bytes.indexOf(OBJSTM, at + OBJSTM.length)) {
    // The stream's dictionary around /Type /ObjStm: from its "<<" to its ">>".
    const open = bytes.lastIndexOf('<<', at);
    const close = bytes.indexOf('>>', at);
    if (open < 0 || close < 0 || close - open > 4096) continue;
    count += Number(OBJECT_STREAM_COUNT.exec(bytes.toString('latin1', open, close))?.[1] ?? 0);
  }
  return count;
}

function tooComplex(objects: number): PdfInspection {
  return {
    ok: false,
    reason: 'too_complex',
    message: `The PDF holds ${objects} objects; at most ${MAX_PDF_OBJECTS} are accepted (a contract holds a few thousand). Print it to a new PDF or reduce it, then upload it again.`,
  };
}

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
  const declared = countPdfObjects(bytes);
  if (declared > MAX_PDF_OBJECTS) return tooComplex(declared);
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
  const objects = doc.context.enumerateIndirectObjects().length;
  if (objects > MAX_PDF_OBJECTS) return tooComplex(objects);
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
