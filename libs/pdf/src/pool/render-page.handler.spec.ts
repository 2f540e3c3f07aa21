import { createHash } from 'crypto';
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
});
