import { inspectPdf } from './inspect-pdf';
import { inspectPdfIsolated } from './isolated-inspect';
import { manyObjectsPdf, pdfFixture } from './testing/fixtures';
import { closeSharedPdfPools } from './pool/pdf-pool';

describe('inspectPdfIsolated', () => {
  afterAll(() => closeSharedPdfPools());

  it('answers exactly what inspectPdf answers, for good, encrypted and broken files', async () => {
    for (const name of ['chromium-korean-contract-a4.pdf', 'rotated-page2-90.pdf', 'encrypted-needs-password.pdf', 'truncated.pdf', 'fake-header.pdf']) {
      const bytes = pdfFixture(name);
      expect({ name, result: await inspectPdfIsolated(bytes) }).toEqual({ name, result: await inspectPdf(bytes) });
    }
  });

  it('reads several files at once', async () => {
    const names = ['chromium-korean-contract-a4.pdf', 'chromium-korean-contract-letter.pdf', 'rotated-page2-90.pdf', 'png-named.pdf'];
    const results = await Promise.all(names.map((n) => inspectPdfIsolated(pdfFixture(n))));
    expect(results).toEqual(await Promise.all(names.map((n) => inspectPdf(pdfFixture(n)))));
  });

  it('refuses a file that takes longer than the time limit to read, and reads it given the time', async () => {
    // Under the 50,000-object budget (file_too_complex), still slow to read.
    const slow = manyObjectsPdf(45_000);
    // A warm worker, so the limit measures reading, not starting up.
    await inspectPdfIsolated(pdfFixture('chromium-korean-contract-a4.pdf'));
    const refused = await inspectPdfIsolated(slow, { timeoutMs: 200 });
    expect(refused).toEqual({ ok: false, reason: 'not_pdf', message: 'File is not a readable PDF: it took longer than 0.2 s to read.' });
    expect(await inspectPdfIsolated(slow, { timeoutMs: 30_000 })).toMatchObject({ ok: true, page_count: 1 });
    // The pool goes on after a terminated worker.
    expect(await inspectPdfIsolated(pdfFixture('chromium-korean-contract-letter.pdf'))).toMatchObject({ ok: true });
  });
});
