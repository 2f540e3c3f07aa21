import { degrees, PDFDocument } from 'pdf-lib';
import { displayToUserSpace, PdfStamp, stampPdf } from './stamp-pdf';
import { pdfFixture } from './testing/fixtures';
import { encodePng } from './testing/png';
import { pdftotext, renderPage } from './testing/poppler';

type Field = Omit<PdfStamp, 'image'>;

const DPI = 30;
const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];

const isRed = ([r, g, b]: [number, number, number]) => r > 200 && g < 70 && b < 70;
const isBlue = ([r, g, b]: [number, number, number]) => b > 200 && r < 70 && g < 70;

/**
 * A stamp whose top half is red and bottom half blue, shaped like the field
 * as the signer sees it, so it fills the field exactly and shows which way is up.
 */
function twoToneStamp(field: Field, displayWidth: number, displayHeight: number): Buffer {
  const widthPt = (field.width / 100) * displayWidth;
  const heightPt = (field.height / 100) * displayHeight;
  const w = 300;
  const h = Math.round((w * heightPt) / widthPt);
  return encodePng(w, h, (_x, y) => (y < h / 2 ? [...RED, 255] : [...BLUE, 255]));
}

/** Checks the rendered page: the field is red over blue, and just outside it is neither. */
function expectStampAt(pdf: Buffer, field: Field, expectedPixelSize: { width: number; height: number }) {
  const page = renderPage(pdf, field.page, DPI);
  expect(page.width).toBeCloseTo(expectedPixelSize.width, -1);
  expect(page.height).toBeCloseTo(expectedPixelSize.height, -1);
  const x0 = (field.x / 100) * page.width;
  const y0 = (field.y / 100) * page.height;
  const x1 = ((field.x + field.width) / 100) * page.width;
  const y1 = ((field.y + field.height) / 100) * page.height;
  const mid = (y0 + y1) / 2;
  const inset = 2;

  const wrong: string[] = [];
  for (let y = Math.ceil(y0 + inset); y <= Math.floor(y1 - inset); y++) {
    if (Math.abs(y - mid) < 1.5) continue; // the red/blue seam may blend
    for (let x = Math.ceil(x0 + inset); x <= Math.floor(x1 - inset); x++) {
      const colour = page.rgb(x, y);
      if (y < mid ? !isRed(colour) : !isBlue(colour)) wrong.push(`inside ${x},${y} = ${colour}`);
    }
  }
  const outside: Array<[number, number]> = [];
  for (let x = Math.ceil(x0); x <= Math.floor(x1); x++) outside.push([x, Math.floor(y0 - 3)], [x, Math.ceil(y1 + 3)]);
  for (let y = Math.ceil(y0); y <= Math.floor(y1); y++) outside.push([Math.floor(x0 - 3), y], [Math.ceil(x1 + 3), y]);
  for (const [x, y] of outside) {
    if (x < 0 || y < 0 || x >= page.width || y >= page.height) continue;
    const colour = page.rgb(x, y);
    if (isRed(colour) || isBlue(colour)) wrong.push(`outside ${x},${y} = ${colour}`);
  }
  expect(wrong.slice(0, 10)).toEqual([]);
}

const A4 = { width: 594.96, height: 841.92 };
const LETTER = { width: 612, height: 792 };
const px = (pt: number) => (pt * DPI) / 72;

describe('stampPdf', () => {
  it('puts a field on the A4 contract where the field says, keeping the text', async () => {
    const field: Field = { page: 1, x: 55, y: 78, width: 35, height: 9 };
    const original = pdfFixture('chromium-korean-contract-a4.pdf');
    const out = await stampPdf(original, [{ ...field, image: twoToneStamp(field, A4.width, A4.height) }]);
    expectStampAt(out, field, { width: px(A4.width), height: px(A4.height) });
    expect(pdftotext(out)).toBe(pdftotext(original));
  });

  it('follows the Letter page size', async () => {
    const field: Field = { page: 3, x: 8, y: 6, width: 30, height: 10 };
    const out = await stampPdf(pdfFixture('chromium-korean-contract-letter.pdf'), [
      { ...field, image: twoToneStamp(field, LETTER.width, LETTER.height) },
    ]);
    expectStampAt(out, field, { width: px(LETTER.width), height: px(LETTER.height) });
  });

  it('lands on a /Rotate 90 page where the signer saw it, upright', async () => {
    // Page 2 displays landscape: 841.92 wide, 594.96 high.
    const field: Field = { page: 2, x: 62, y: 70, width: 28, height: 16 };
    const out = await stampPdf(pdfFixture('rotated-page2-90.pdf'), [
      { ...field, image: twoToneStamp(field, A4.height, A4.width) },
    ]);
    expectStampAt(out, field, { width: px(A4.height), height: px(A4.width) });
    // The unrotated pages are untouched.
    const first = renderPage(out, 1, DPI);
    expect(isRed(first.rgb(Math.round(0.7 * first.width), Math.round(0.75 * first.height)))).toBe(false);
  });

  it.each([180, 270])('handles /Rotate %i and a CropBox that does not start at 0,0', async (rotation) => {
    const doc = await PDFDocument.load(pdfFixture('chromium-korean-contract-a4.pdf'));
    const page = doc.getPage(0);
    page.setRotation(degrees(rotation));
    page.setCropBox(40, 60, 500, 700);
    const source = Buffer.from(await doc.save());
    const display = rotation === 270 ? { width: 700, height: 500 } : { width: 500, height: 700 };
    const field: Field = { page: 1, x: 10, y: 15, width: 40, height: 12 };
    const out = await stampPdf(source, [{ ...field, image: twoToneStamp(field, display.width, display.height) }]);
    expectStampAt(out, field, { width: px(display.width), height: px(display.height) });
  });

  it('fits a differently shaped image inside the field without distortion', async () => {
    const field: Field = { page: 1, x: 10, y: 10, width: 40, height: 10 };
    const square = encodePng(50, 50, () => [255, 0, 0, 255]);
    const out = await stampPdf(pdfFixture('chromium-korean-contract-a4.pdf'), [{ ...field, image: square }]);
    const page = renderPage(out, 1, DPI);
    const cy = Math.round(0.15 * page.height);
    // Field is 238 × 84 pt: the square is 84 pt wide, centred.
    expect(isRed(page.rgb(Math.round(0.3 * page.width), cy))).toBe(true);
    expect(isRed(page.rgb(Math.round(0.12 * page.width), cy))).toBe(false);
    expect(isRed(page.rgb(Math.round(0.48 * page.width), cy))).toBe(false);
  });

  it('embeds one image once however many fields use it', async () => {
    const image = encodePng(60, 20, () => [255, 0, 0, 255]);
    const fields = [1, 2, 3].map((page) => ({ page, x: 10, y: 80, width: 20, height: 6, image }));
    const once = await stampPdf(pdfFixture('chromium-korean-contract-a4.pdf'), fields.slice(0, 1));
    const thrice = await stampPdf(pdfFixture('chromium-korean-contract-a4.pdf'), fields);
    expect(thrice.length - once.length).toBeLessThan(1000);
  });

  it('refuses bad fields and non-images', async () => {
    const pdf = pdfFixture('chromium-korean-contract-a4.pdf');
    const image = encodePng(2, 2, () => [0, 0, 0, 255]);
    await expect(stampPdf(pdf, [{ page: 4, x: 0, y: 0, width: 10, height: 10, image }])).rejects.toThrow(/page 4 is outside 1..3/);
    await expect(stampPdf(pdf, [{ page: 1, x: 95, y: 0, width: 10, height: 10, image }])).rejects.toThrow(/past the page edge/);
    await expect(stampPdf(pdf, [{ page: 1, x: 0.5, y: 0, width: 0.1, height: 0.1, image }])).resolves.toBeInstanceOf(Buffer);
    await expect(stampPdf(pdf, [{ page: 1, x: -1, y: 0, width: 10, height: 10, image }])).rejects.toThrow(/percentage/);
    await expect(stampPdf(pdf, [{ page: 1, x: 0, y: 0, width: 10, height: 10, image: Buffer.from('GIF89a....') }])).rejects.toThrow(/neither PNG nor JPEG/);
  });
});

describe('displayToUserSpace', () => {
  const box = { x: 10, y: 20, width: 100, height: 200 };
  it('maps the displayed top-left corner for each rotation', () => {
    expect(displayToUserSpace({ x: 0, y: 0 }, box, 0)).toEqual({ x: 10, y: 220 });
    expect(displayToUserSpace({ x: 0, y: 0 }, box, 90)).toEqual({ x: 10, y: 20 });
    expect(displayToUserSpace({ x: 0, y: 0 }, box, 180)).toEqual({ x: 110, y: 20 });
    expect(displayToUserSpace({ x: 0, y: 0 }, box, 270)).toEqual({ x: 110, y: 220 });
  });
});
