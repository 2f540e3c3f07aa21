import { execFileSync } from 'child_process';
import { joinPdfs } from './join-pdfs';
import { pdfFixture } from './testing/fixtures';
import { pdfinfo, pdftotext } from './testing/poppler';
import { renderDocumentPdf } from './render-document';

describe('joining the parts of a document', () => {
  it('keeps every page of every part in order, and says how many each had', async () => {
    const body = await renderDocumentPdf({ title: '개인정보 수집·이용 동의서', content: '<p>수집 항목: 성명, 주소</p>', format: 'html', created_at: '2026-01-01T00:00:00Z' });
    const { pdf, page_counts } = await joinPdfs([body, pdfFixture('chromium-korean-contract-a4.pdf')], '근로계약서 묶음');
    expect(page_counts).toEqual([1, 3]);
    const out = Buffer.from(pdf);
    expect(pdfinfo(out)).toMatch(/Pages:\s+4\b/);
    expect(pdfinfo(out)).toContain('근로계약서 묶음');
    const pages = pdftotext(out).split('\f');
    expect(pages[0]).toContain('수집 항목');
    expect(pages[1]).toContain('표준 근로계약서');
  });

  it('is deterministic: the same parts join to the same bytes (the joined original is hashed at send)', async () => {
    const parts = [pdfFixture('chromium-korean-contract-letter.pdf'), pdfFixture('rotated-page2-90.pdf')];
    const a = await joinPdfs(parts);
    const b = await joinPdfs(parts);
    expect(Buffer.compare(Buffer.from(a.pdf), Buffer.from(b.pdf))).toBe(0);
    expect(a.page_counts).toEqual([3, 3]);
    // Each page keeps its own size and turn: a Letter part, then the A4 part with page 2 rotated.
    const info = execFileSync('pdfinfo', ['-f', '1', '-l', '6', '-'], { input: Buffer.from(a.pdf), encoding: 'utf8' });
    expect(info).toMatch(/Page\s+1 size:\s+612 x 792/);
    expect(info).toMatch(/Page\s+4 size:\s+594.96 x 841.92/);
    expect(info).toMatch(/Page\s+5 rot:\s+90/);
  });
});
