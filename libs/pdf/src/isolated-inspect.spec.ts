import { inspectPdf } from './inspect-pdf';
import { inspectPdfIsolated } from './isolated-inspect';
import { pdfFixture } from './testing/fixtures';

/**
 * A well-formed PDF with `objects` small objects: nothing wrong with it, but pdf-lib needs about
 * a second per 50,000 objects to read it (a 20 MB upload of this kind held the event loop ~10 s).
 */
function manyObjectsPdf(objects: number): Buffer {
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

describe('inspectPdfIsolated', () => {
  jest.setTimeout(60_000);

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
    const slow = manyObjectsPdf(60_000);
    // A warm worker, so the limit measures reading, not starting up.
    await inspectPdfIsolated(pdfFixture('chromium-korean-contract-a4.pdf'));
    const refused = await inspectPdfIsolated(slow, { timeoutMs: 200 });
    expect(refused).toEqual({ ok: false, reason: 'not_pdf', message: 'File is not a readable PDF: it took longer than 0.2 s to read.' });
    expect(await inspectPdfIsolated(slow, { timeoutMs: 30_000 })).toMatchObject({ ok: true, page_count: 1 });
    // The pool goes on after a terminated worker.
    expect(await inspectPdfIsolated(pdfFixture('chromium-korean-contract-letter.pdf'))).toMatchObject({ ok: true });
  });
});
