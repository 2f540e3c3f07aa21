import { readdirSync } from 'node:fs';
import { inspectPdf, normalizeRotation } from './inspect-pdf';
import { pdfFixture, pdfFixturesDir } from './testing/fixtures';

const A4 = { width: 594.96, height: 841.92 };
const LETTER = { width: 612, height: 792 };

describe('inspectPdf on the shared fixtures', () => {
  // pdf-lib narrates every broken object on console.warn; the verdicts are what we test.
  beforeEach(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('covers every fixture in the folder', () => {
    const files = readdirSync(pdfFixturesDir).filter((f) => f.endsWith('.pdf')).sort();
    expect(files).toEqual([
      'chromium-korean-contract-a4.pdf',
      'chromium-korean-contract-letter.pdf',
      'encrypted-needs-password.pdf',
      'encrypted-owner-only.pdf',
      'fake-header.pdf',
      'png-named.pdf',
      'rotated-page2-90.pdf',
      'truncated.pdf',
    ]);
  });

  it('accepts the A4 contract', async () => {
    expect(await inspectPdf(pdfFixture('chromium-korean-contract-a4.pdf'))).toEqual({
      ok: true,
      active_content: [],
      page_count: 3,
      pages: [0, 1, 2].map(() => ({ ...A4, rotation: 0 })),
    });
  });

  it('accepts the Letter contract with its own page size', async () => {
    expect(await inspectPdf(pdfFixture('chromium-korean-contract-letter.pdf'))).toEqual({
      ok: true,
      active_content: [],
      page_count: 3,
      pages: [0, 1, 2].map(() => ({ ...LETTER, rotation: 0 })),
    });
  });

  it('accepts the file with page 2 rotated and reports the rotation', async () => {
    expect(await inspectPdf(pdfFixture('rotated-page2-90.pdf'))).toEqual({
      ok: true,
      active_content: [],
      page_count: 3,
      pages: [
        { ...A4, rotation: 0 },
        { ...A4, rotation: 90 },
        { ...A4, rotation: 0 },
      ],
    });
  });

  it.each(['encrypted-owner-only.pdf', 'encrypted-needs-password.pdf'])('refuses %s and names the encryption', async (name) => {
    const result = await inspectPdf(pdfFixture(name));
    expect(result).toMatchObject({ ok: false, reason: 'encrypted' });
    if (result.ok) throw new Error('unreachable');
    expect(result.message).toMatch(/AES-256 encryption/);
    expect(result.message).toMatch(/encrypted or password-protected PDFs are not accepted/);
  });

  it.each([
    ['truncated.pdf', /not a readable PDF/],
    ['fake-header.pdf', /no document catalog/],
    ['png-named.pdf', /PDF header/],
  ])('refuses %s as not_pdf', async (name, message) => {
    const result = await inspectPdf(pdfFixture(name));
    expect(result).toMatchObject({ ok: false, reason: 'not_pdf' });
    if (result.ok) throw new Error('unreachable');
    expect(result.message).toMatch(message);
  });

  it('refuses empty input and non-PDF text', async () => {
    expect(await inspectPdf(Buffer.alloc(0))).toMatchObject({ ok: false, reason: 'not_pdf' });
    expect(await inspectPdf(Buffer.from('hello, this is not a pdf'))).toMatchObject({ ok: false, reason: 'not_pdf' });
  });
});

describe('normalizeRotation', () => {
  it('folds any multiple of 90 into 0..270', () => {
    expect([0, 90, 180, 270, 360, 450, -90, -180, -270].map(normalizeRotation)).toEqual([0, 90, 180, 270, 0, 90, 270, 180, 90]);
  });
});

describe('inspectPdf object budget (issue 24, item 17)', () => {
  it('refuses a PDF with more objects than MAX_PDF_OBJECTS, and reads one just under it', async () => {
    const { pdfLibManyObjects } = await import('./testing/fixtures');
    const { MAX_PDF_OBJECTS } = await import('./inspect-pdf');
    const over = await inspectPdf(await pdfLibManyObjects(MAX_PDF_OBJECTS + 10));
    expect(over).toMatchObject({ ok: false, reason: 'too_complex' });
    expect((over as { message: string }).message).toMatch(/holds 5\d{4} objects; at most 50000/);
    const under = await inspectPdf(await pdfLibManyObjects(MAX_PDF_OBJECTS - 2_000));
    expect(under).toMatchObject({ ok: true, page_count: 1 });
  }, 120_000);
});
