import { createHash } from 'crypto';
import sharp from 'sharp';
import renderPageJob, * as handler from './render-page.handler';
import { pdfFixture } from '../testing/fixtures';

describe('the render-page job (run in place of a pool worker)', () => {
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it('parses a PDF once for page after page of it, and again only once it was evicted by two others', async () => {
    const a = pdfFixture('chromium-korean-contract-a4.pdf');
    const before = handler.documentsLoaded;
    const first = await renderPageJob({ pdf: a, pdf_sha256: sha(a), page: 1, width: 480 });
    const second = await renderPageJob({ pdf: a, pdf_sha256: sha(a), page: 2, width: 480 });
    expect(first.png).not.toBeNull();
    expect(second.png).not.toBeNull();
    expect(second.page_count).toBe(first.page_count);
    expect(handler.documentsLoaded - before).toBe(1);

    // The same page rendered from the open document is the same image as from a fresh parse.
    const fresh = await renderPageJob({ pdf: a, page: 2, width: 480 });
    expect(Buffer.from(fresh.png!).equals(Buffer.from(second.png!))).toBe(true);
    expect(handler.documentsLoaded - before).toBe(2);

    // Two other documents open: the first is closed, and parsed again when asked for.
    for (const other of ['chromium-korean-contract-letter.pdf', 'rotated-page2-90.pdf']) {
      const pdf = pdfFixture(other);
      await renderPageJob({ pdf, pdf_sha256: sha(pdf), page: 1, width: 480 });
    }
    await renderPageJob({ pdf: a, pdf_sha256: sha(a), page: 1, width: 480 });
    expect(handler.documentsLoaded - before).toBe(5);
  });

  it('encodes the same render as lossless WebP when asked: the very pixels of the PNG, in fewer bytes', async () => {
    const pdf = pdfFixture('chromium-korean-contract-a4.pdf');
    const out = await renderPageJob({ pdf, page: 1, width: 960, webp: true });
    const png = Buffer.from(out.png!);
    const webp = Buffer.from(out.webp!);
    expect(await sharp(webp).metadata()).toMatchObject({ format: 'webp', hasAlpha: false });
    const pixels = (b: Buffer) => sharp(b).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    const [a, b] = await Promise.all([pixels(webp), pixels(png)]);
    expect(a.info).toMatchObject({ width: 960, height: out.height, channels: 3 });
    expect(a.data.equals(b.data)).toBe(true);
    expect(webp.length).toBeLessThan(png.length);
    // Not asked: no WebP is made. A page the document lacks: none either.
    expect((await renderPageJob({ pdf, page: 1, width: 480 })).webp).toBeUndefined();
    expect((await renderPageJob({ pdf, page: 99, width: 480, webp: true })).webp).toBeNull();
  });

  it('renders into one bitmap kept between renders, and each image is still its own page: in turn, and two at once', async () => {
    const a = pdfFixture('chromium-korean-contract-a4.pdf');
    const b = pdfFixture('rotated-page2-90.pdf');
    const job = (pdf: Buffer, page: number, width: number) => renderPageJob({ pdf, pdf_sha256: sha(pdf), page, width, webp: true });
    const bytes = (out: { png?: Uint8Array | null; webp?: Uint8Array | null }) => [Buffer.from(out.png!), Buffer.from(out.webp!)];
    // Alone, each from a fresh parse: what every image must be.
    const fresh = async (pdf: Buffer, page: number, width: number) => bytes(await renderPageJob({ pdf, page, width, webp: true }));
    const expected = [await fresh(a, 1, 960), await fresh(b, 2, 480), await fresh(a, 2, 720)];
    // One after another (the later ones reuse the first's bitmap, smaller and of another shape)...
    const reused = handler.bitmapsReused;
    const inTurn = [bytes(await job(a, 1, 960)), bytes(await job(b, 2, 480)), bytes(await job(a, 2, 720)), bytes(await job(a, 1, 960))];
    expect(inTurn).toEqual([...expected, expected[0]]);
    expect(handler.bitmapsReused - reused).toBe(4);
    // ...and started together: one renders into its own bitmap while the other's is being encoded.
    const before = handler.bitmapsReused;
    const together = await Promise.all([job(a, 1, 960), job(b, 2, 480), job(a, 2, 720)]);
    expect(together.map(bytes)).toEqual(expected);
    // The first took the kept bitmap; the other two rendered while it was being encoded.
    expect(handler.bitmapsReused - before).toBe(1);
  });

  it('makes the WebP alone when the PNG is not asked for (what the send renders): the same WebP', async () => {
    const pdf = pdfFixture('chromium-korean-contract-a4.pdf');
    const both = await renderPageJob({ pdf, page: 1, width: 720, webp: true });
    const alone = await renderPageJob({ pdf, page: 1, width: 720, png: false, webp: true });
    expect(alone.png).toBeUndefined();
    expect(Buffer.from(alone.webp!).equals(Buffer.from(both.webp!))).toBe(true);
    expect(alone).toMatchObject({ page_count: both.page_count, width: 720, height: both.height });
    const missing = await renderPageJob({ pdf, page: 99, width: 720, png: false, webp: true });
    expect(missing.png).toBeUndefined();
    expect(missing.webp).toBeNull();
  });
});
