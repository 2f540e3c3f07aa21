import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Carried in the repository (see its README), so a clone runs its tests with nothing beside it. */
export const pdfFixturesDir = resolve(__dirname, 'pdf-fixtures');

export function pdfFixture(name: string): Buffer {
  return readFileSync(resolve(pdfFixturesDir, name));
}

/**
 * A well-formed one-page PDF with `objects` small objects: nothing wrong with it, but pdf-lib
 * needs about a second per 50,000 objects to read it (what the upload time limit is for).
 */
export function manyObjectsPdf(objects: number): Buffer {
  const parts = [
    '%PDF-1.7\n',
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n',
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\n',
  ];
  for (let i = 4; i < objects; i++) parts.push(`${i} 0 obj\n<< /K [${i} 1 2 3 4 5 6 7] /V (x) >>\nendobj\n`);
  parts.push(`trailer\n<< /Root 1 0 R /Size ${objects} >>\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}

/**
 * A valid one-page PDF made by pdf-lib holding `objects` extra small objects, packed in object
 * streams as real producers do (so a count of `obj` keywords in the bytes would miss them).
 */
export async function pdfLibManyObjects(objects: number): Promise<Buffer> {
  const { PDFDocument, PDFNumber } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]);
  for (let i = 0; i < objects; i++) doc.context.register(doc.context.obj({ N: PDFNumber.of(i) }));
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}
