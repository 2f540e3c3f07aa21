import { decompressionBombPdf } from '../testing/bomb-pdf';
import { manyObjectsPdf, pdfFixture } from '../testing/fixtures';
import { MAX_PDF_OBJECTS } from '../inspect-pdf';
import verifyPdfJob from './verify-pdf.handler';

/** The public verify job's refusals: each is decided before the parser could be made to work hard. */
describe('verify-pdf job', () => {
  it('reads a PDF: its hash and (no) signatures', async () => {
    const out = await verifyPdfJob({ pdf: pdfFixture('chromium-korean-contract-a4.pdf'), trust_anchors: [] });
    expect(out).toMatchObject({ ok: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), signatures: [], chain_head: null });
  });

  it.each([
    ['not a PDF', Buffer.from('<html>hello</html>'), 'not_pdf'],
    ['a PDF header on something else', pdfFixture('fake-header.pdf'), 'not_pdf'],
    ['encrypted (needs a password)', pdfFixture('encrypted-needs-password.pdf'), 'encrypted'],
    ['encrypted (owner password only)', pdfFixture('encrypted-owner-only.pdf'), 'encrypted'],
    ['more objects than accepted', manyObjectsPdf(MAX_PDF_OBJECTS + 10), 'too_complex'],
  ])('refuses %s', async (_what, pdf, reason) => {
    expect(await verifyPdfJob({ pdf, trust_anchors: [] })).toMatchObject({ ok: false, reason });
  });

  it('refuses a decompression bomb without inflating it past the budget', async () => {
    const bomb = decompressionBombPdf(1024);
    const before = process.memoryUsage().arrayBuffers;
    const out = await verifyPdfJob({ pdf: bomb, trust_anchors: [] });
    expect(out).toMatchObject({ ok: false, reason: 'too_complex', message: expect.stringMatching(/decompression bomb/) });
    // A gigabyte inflated would show here; the cap stops at 16 MB.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(256 * 1024 * 1024);
  });
});
