import { inspectPdf } from './inspect-pdf';
import { isSafeLinkUri, sanitizePdf } from './sanitize-pdf';
import { ACTIVE_KEYS, ACTIVE_VALUES, activeContentPdf, qpdfNames, qpdfStrings, unsafeLinksPdf } from './testing/active-content';
import { pdfFixture } from './testing/fixtures';
import { pdftotext } from './testing/poppler';

describe('sanitizePdf', () => {
  let fixture: Buffer;
  beforeAll(async () => {
    fixture = await activeContentPdf();
  });

  it('the fixture carries every kind of active content, as qpdf reads it', () => {
    const { keys, values } = qpdfNames(fixture);
    for (const key of ACTIVE_KEYS) expect(keys).toContain(key);
    for (const value of ACTIVE_VALUES) expect(values).toContain(value);
    expect(keys).toContain('/URI');
  });

  it('removes scripts, launch, open and additional actions and embedded files, and keeps the plain link', async () => {
    const result = await sanitizePdf(fixture);
    expect(result?.removed).toEqual(['additional_actions', 'embedded_files', 'javascript', 'launch', 'open_action']);
    const { keys, values } = qpdfNames(result!.bytes);
    for (const key of ACTIVE_KEYS) expect(keys).not.toContain(key);
    for (const value of ACTIVE_VALUES) expect(values).not.toContain(value);
    expect(keys).toContain('/URI');
    expect(result!.bytes.includes('secret payload')).toBe(false);
    expect(pdftotext(result!.bytes)).toContain('Active content fixture');
  });

  it('leaves a clean file alone', async () => {
    expect(await sanitizePdf(pdfFixture('chromium-korean-contract-a4.pdf'))).toBeNull();
  });

  it('is part of the upload inspection: the sanitized bytes come with the page count', async () => {
    const inspection = await inspectPdf(fixture);
    if (!inspection.ok) throw new Error(inspection.message);
    expect(inspection.page_count).toBe(1);
    expect(inspection.active_content).toContain('javascript');
    expect(qpdfNames(Buffer.from(inspection.sanitized!)).values).not.toContain('/JavaScript');
  });
});

describe('link annotations (issue 24, item 19)', () => {
  it('keeps only http, https and mailto link targets, read as a viewer reads them', () => {
    for (const safe of ['https://example.com', 'HTTP://example.com', 'mailto:a@example.com', ' https://x']) expect(isSafeLinkUri(safe)).toBe(true);
    for (const bad of ['javascript:alert(1)', '\tJaVaScRiPt:alert(1)', 'file:///etc/passwd', 'data:text/html,x', '../x.pdf', 'vbscript:x', 'https:/x', '']) expect(isSafeLinkUri(bad)).toBe(false);
  });

  it('removes javascript:, file:, data: and relative /URI actions, inline ones too, and keeps the others', async () => {
    const fixture = await unsafeLinksPdf();
    // The fixture carries them, as qpdf reads it.
    expect(qpdfStrings(fixture).filter((s) => /javascript:/i.test(s))).toHaveLength(2);
    const result = await sanitizePdf(fixture);
    expect(result?.removed).toEqual(['unsafe_link']);
    const strings = qpdfStrings(result!.bytes);
    expect(strings.filter((s) => /javascript:|file:|data:|secret\.pdf/i.test(s))).toEqual([]);
    expect(strings).toEqual(expect.arrayContaining(['https://example.com/terms', 'http://example.com/privacy', 'mailto:legal@example.com']));
    // Read at upload, the stored file is the sanitized one.
    const inspection = await inspectPdf(fixture);
    expect(inspection).toMatchObject({ ok: true, active_content: ['unsafe_link'] });
  });
});

