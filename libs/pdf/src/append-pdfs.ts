import { PDFDocument, PDFObject, PDFRawStream, PDFRef } from 'pdf-lib';
import './native-deflate';
import { assertOffMainThread } from './main-thread-guard';

function serialize(object: PDFObject): Buffer {
  const bytes = Buffer.alloc(object.sizeInBytes());
  object.copyBytesInto(bytes, 0);
  return bytes;
}

/** Offset of the newest cross-reference section, if it is a classic `xref` table. */
function classicXrefOffset(pdf: Buffer): number | undefined {
  const at = pdf.lastIndexOf('startxref', undefined, 'latin1');
  if (at < 0) return undefined;
  const match = /^startxref\s+(\d+)/.exec(pdf.toString('latin1', at, at + 40));
  if (!match) return undefined;
  const offset = Number(match[1]);
  return pdf.toString('latin1', offset, offset + 4) === 'xref' ? offset : undefined;
}

/**
 * What an object looked like before the change: its bytes, or for a stream read from the file its
 * dictionary's bytes and its contents by identity. Copying every font and image stream twice just
 * to find them unchanged was most of an incremental update; a change to a stream's data replaces
 * its contents (pdf-lib streams are not edited in place), so identity tells.
 */
type Fingerprint = Buffer | { dict: Buffer; contents: Uint8Array };

function fingerprint(object: PDFObject): Fingerprint {
  return object instanceof PDFRawStream ? { dict: serialize(object.dict), contents: object.contents } : serialize(object);
}

function unchanged(before: Fingerprint | undefined, object: PDFObject): boolean {
  if (!before) return false;
  if (Buffer.isBuffer(before)) return !(object instanceof PDFRawStream) && before.equals(serialize(object));
  return object instanceof PDFRawStream && object.contents === before.contents && before.dict.equals(serialize(object.dict));
}

function snapshot(doc: PDFDocument): Map<number, Fingerprint> {
  const objects = new Map<number, Fingerprint>();
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) objects.set(ref.objectNumber, fingerprint(object));
  return objects;
}

/**
 * Writes the objects that differ from `before` as an incremental update
 * after `base`, so every byte of `base` — and any signature over it —
 * stays as it was.
 */
function incrementalUpdate(base: Buffer, doc: PDFDocument, before: Map<number, Fingerprint>, prevXref: number): Buffer {
  const changed: Array<[PDFRef, Buffer]> = [];
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (!unchanged(before.get(ref.objectNumber), object)) changed.push([ref, serialize(object)]);
  }
  changed.sort(([a], [b]) => a.objectNumber - b.objectNumber);

  const parts: Buffer[] = [base, Buffer.from('\n', 'latin1')];
  let length = base.length + 1;
  const offsets = new Map<number, { offset: number; generation: number }>();
  for (const [ref, bytes] of changed) {
    offsets.set(ref.objectNumber, { offset: length, generation: ref.generationNumber });
    const chunk = Buffer.concat([Buffer.from(`${ref.objectNumber} ${ref.generationNumber} obj\n`, 'latin1'), bytes, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    length += chunk.length;
  }

  // Cross-reference subsections cover runs of consecutive object numbers.
  const numbers = [...offsets.keys()];
  let xref = 'xref\n';
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    xref += `${numbers[i]} ${j - i + 1}\n`;
    for (let k = i; k <= j; k++) {
      const { offset, generation } = offsets.get(numbers[k])!;
      xref += `${String(offset).padStart(10, '0')} ${String(generation).padStart(5, '0')} n\r\n`;
    }
    i = j + 1;
  }
  const { Root, Info, ID } = doc.context.trailerInfo;
  if (!Root) throw new Error('appendPdfs: base has no /Root');
  const trailer = [
    `/Size ${doc.context.largestObjectNumber + 1}`,
    `/Root ${Root.toString()}`,
    ...(Info ? [`/Info ${Info.toString()}`] : []),
    ...(ID ? [`/ID ${ID.toString()}`] : []),
    `/Prev ${prevXref}`,
  ].join('\n');
  parts.push(Buffer.from(`${xref}trailer\n<<\n${trailer}\n>>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * Applies `change` to `base` as an incremental update: every byte of `base` — and any signature
 * over it — stays as it was, and the changed objects follow it. Undefined when `base` does not end
 * in a classic cross-reference table (pdf-lib cannot append to a cross-reference stream).
 */
export async function updateIncrementally(base: Buffer, change: (doc: PDFDocument) => void | Promise<void>): Promise<Buffer | undefined> {
  assertOffMainThread('updateIncrementally');
  const prevXref = classicXrefOffset(base);
  if (prevXref === undefined) return undefined;
  const doc = await PDFDocument.load(base, { updateMetadata: false });
  const before = snapshot(doc);
  await change(doc);
  return incrementalUpdate(base, doc, before, prevXref);
}

/**
 * Appends every page of `extra` after `base` (contract + audit certificate).
 *
 * When `base` ends in a classic cross-reference table — as every PDF from
 * signPdf does — the pages are added as an incremental update: the signed
 * revision stays byte for byte at the start of the file, its signature still
 * verifies (for that revision), and its SHA-256 can be recomputed from the
 * bundle. Other inputs are rewritten, which is fine for unsigned files.
 */
export async function appendPdfs(base: Buffer, extra: Buffer): Promise<Buffer> {
  const other = await PDFDocument.load(extra, { updateMetadata: false });
  const addPages = async (doc: PDFDocument) => {
    const pages = await doc.copyPages(other, other.getPageIndices());
    for (const page of pages) doc.addPage(page);
  };
  const updated = await updateIncrementally(base, addPages);
  if (updated) return updated;
  const doc = await PDFDocument.load(base, { updateMetadata: false });
  await addPages(doc);
  return Buffer.from(await doc.save());
}
