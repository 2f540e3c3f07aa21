import { createHash } from 'node:crypto';
import './native-deflate';
import { degrees, PDFDocument, PDFImage, PDFPage } from 'pdf-lib';
import { sanitizeImage, UnsafeImageError } from './image-type';
import { normalizeRotation, PageRotation, visibleBox } from './inspect-pdf';
import { assertOffMainThread } from './main-thread-guard';

export interface PdfStamp {
  /** 1-based page number. */
  page: number;
  /**
   * Percentages (0–100) of the page as the signer saw it: top-left origin,
   * after the page's /Rotate is applied — the same numbers as SPEC's Field.
   */
  x: number;
  y: number;
  width: number;
  height: number;
  /** PNG or JPEG bytes (signature drawing or seal). */
  image: Buffer;
}

interface Point {
  x: number;
  y: number;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Maps a point of the displayed page (points, top-left origin, y down) to PDF
 * user space. /Rotate turns the page clockwise for display, so we undo that
 * turn; `box` is the CropBox, whose lower-left corner need not be (0, 0).
 */
export function displayToUserSpace(p: Point, box: Box, rotation: PageRotation): Point {
  switch (rotation) {
    case 0:
      return { x: box.x + p.x, y: box.y + box.height - p.y };
    case 90:
      return { x: box.x + p.y, y: box.y + p.x };
    case 180:
      return { x: box.x + box.width - p.x, y: box.y + p.y };
    case 270:
      return { x: box.x + box.width - p.y, y: box.y + box.height - p.x };
  }
}

export function displaySize(box: Box, rotation: PageRotation): { width: number; height: number } {
  return rotation === 90 || rotation === 270 ? { width: box.height, height: box.width } : { width: box.width, height: box.height };
}

function assertStamp(stamp: PdfStamp, pageCount: number, index: number): void {
  const where = `stamps[${index}]`;
  if (!Number.isInteger(stamp.page) || stamp.page < 1 || stamp.page > pageCount) {
    throw new RangeError(`${where}.page ${stamp.page} is outside 1..${pageCount}`);
  }
  for (const key of ['x', 'y', 'width', 'height'] as const) {
    const v = stamp[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100) {
      throw new RangeError(`${where}.${key} must be a percentage between 0 and 100`);
    }
  }
  if (stamp.width === 0 || stamp.height === 0) throw new RangeError(`${where} has an empty area`);
  // A little slack: editors round percentages.
  if (stamp.x + stamp.width > 100.01 || stamp.y + stamp.height > 100.01) {
    throw new RangeError(`${where} reaches past the page edge`);
  }
}

function drawStamp(page: PDFPage, image: PDFImage, stamp: PdfStamp): void {
  const box = visibleBox(page);
  const rotation = normalizeRotation(page.getRotation().angle);
  const view = displaySize(box, rotation);
  const field = {
    x: (stamp.x / 100) * view.width,
    y: (stamp.y / 100) * view.height,
    width: (stamp.width / 100) * view.width,
    height: (stamp.height / 100) * view.height,
  };
  // Signatures must not be distorted: fit the image inside the field, centred.
  const scale = Math.min(field.width / image.width, field.height / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  const left = field.x + (field.width - width) / 2;
  const top = field.y + (field.height - height) / 2;
  // The image's own lower-left corner, as seen by the signer.
  const origin = displayToUserSpace({ x: left, y: top + height }, box, rotation);
  // Counter-rotate by the page's /Rotate so the image reads upright on screen.
  page.drawImage(image, { x: origin.x, y: origin.y, width, height, rotate: degrees(rotation) });
}

/**
 * Draws signature and seal images into their fields. Identical images are
 * embedded once, so one signer with many fields does not grow the file.
 */
export async function stampPdf(pdf: Buffer, stamps: PdfStamp[]): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  await stampDocument(doc, stamps);
  return Buffer.from(await doc.save());
}

/** stampPdf on a loaded document, so a caller that goes on to sign it parses and writes it once. */
export async function stampDocument(doc: PDFDocument, stamps: PdfStamp[]): Promise<void> {
  assertOffMainThread('stampDocument');
  const pages = doc.getPages();
  stamps.forEach((stamp, i) => assertStamp(stamp, pages.length, i));

  const embedded = new Map<string, PDFImage>();
  for (const [i, stamp] of stamps.entries()) {
    const key = createHash('sha256').update(stamp.image).digest('hex');
    let image = embedded.get(key);
    if (!image) {
      let safe: ReturnType<typeof sanitizeImage>;
      try {
        safe = sanitizeImage(stamp.image);
      } catch (error) {
        if (error instanceof UnsafeImageError) throw new TypeError(`stamps[${i}].${error.message}`);
        throw error;
      }
      image = safe.type === 'png' ? await doc.embedPng(safe.bytes) : await doc.embedJpg(safe.bytes);
      embedded.set(key, image);
    }
    drawStamp(pages[stamp.page - 1], image, stamp);
  }
}
