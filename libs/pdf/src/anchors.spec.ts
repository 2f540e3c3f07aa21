import { PDFDocument, StandardFonts } from 'pdf-lib';
import { findTextAnchors, findTextLines, markPlaceholders } from './anchors';
import { renderDocumentPdf, renderDocumentWithAnchors } from './render-document';
import { pdfFixture } from './testing/fixtures';
import { pdftotext } from './testing/poppler';

describe('anchors: placeholders in HTML content', () => {
  const content =
    '<p>제1조 근로계약기간</p><table><tr><td>근로자</td><td>홍길동 {{signature:employee}}</td></tr></table>' +
    '<p>사업주: <b>{{seal:employer}}</b> (인)</p><p>{{text:address}} 끝</p>';

  it('renders each placeholder as blank room and reports its box in percent of the page', async () => {
    const { pdf, anchors } = await renderDocumentWithAnchors({ title: '근로계약서', content, format: 'html', created_at: '2026-01-01T00:00:00Z' });
    expect(anchors.map((a) => a.text)).toEqual(['{{signature:employee}}', '{{seal:employer}}', '{{text:address}}']);
    for (const a of anchors) {
      expect(a.page).toBe(1);
      expect(a.width).toBeGreaterThan(1);
      expect(a.height).toBeGreaterThan(1);
      expect(a.x + a.width).toBeLessThanOrEqual(100);
    }
    const [employee, employer, address] = anchors;
    // In the order the body has them: the table row above the seal line, the address below it.
    expect(employee.y).toBeLessThan(employer.y);
    expect(employer.y).toBeLessThan(address.y);
    // The signature cell is the table's right column; the seal follows "사업주:" at the left margin.
    expect(employee.x).toBeGreaterThan(40);
    expect(employer.x).toBeLessThan(30);
    // Nothing of the placeholders reaches the PDF: no text, no leftover link.
    const text = pdftotext(Buffer.from(pdf));
    expect(text).toContain('홍길동');
    expect(text).not.toContain('{{');
    expect(Buffer.from(pdf).toString('latin1')).not.toContain('dojang-anchor');
  });

  it('the box lines up with the word before it on the same line', async () => {
    const { pdf, anchors } = await renderDocumentWithAnchors({ title: 't', content: '<p>서명란 {{signature:a}}</p>', format: 'html', created_at: '2026-01-01T00:00:00Z', show_title: false });
    const words = await findTextAnchors(pdf, [{ text: '서명란', occurrence: 1 }]);
    const word = words[0].box!;
    expect(Math.abs(anchors[0].y - word.y)).toBeLessThan(1.5);
    expect(anchors[0].x).toBeGreaterThan(word.x + word.width - 0.5);
  });

  it('a placeholder that starts a paragraph sits at the text\'s left edge, its words after it (not in the margin)', async () => {
    const content = '<p>{{checkbox:agree}} 개인정보 수집에 동의합니다.</p><p>본문은 여기서 시작한다.</p><p><b>{{checkbox:marketing}}</b> 마케팅</p>';
    const { pdf, anchors } = await renderDocumentWithAnchors({ title: 't', content, format: 'html', created_at: '2026-01-01T00:00:00Z', show_title: false });
    const [margin, after] = await findTextAnchors(pdf, [{ text: '본문은', occurrence: 1 }, { text: '개인정보', occurrence: 1 }]);
    for (const a of anchors) expect(Math.abs(a.x - margin.box!.x)).toBeLessThan(0.5);
    // The room is kept: the words of the paragraph follow the box, they do not run under it.
    expect(after.box!.x).toBeGreaterThan(anchors[0].x + anchors[0].width - 0.5);
  });

  it('leaves content without placeholders untouched (the same objects, the same PDF bytes)', async () => {
    const body = [{ text: 'plain' }, 'also plain {{name}}'];
    const marked = markPlaceholders(body);
    expect(marked.placeholders).toEqual([]);
    expect(marked.content).toBe(body);
    const input = { title: '계약', content: '<p>본문 {{not a placeholder}}</p>', format: 'html' as const, created_at: '2026-01-01T00:00:00Z' };
    const a = await renderDocumentPdf(input);
    const b = await renderDocumentWithAnchors(input);
    expect(b.anchors).toEqual([]);
    expect(Buffer.compare(a, b.pdf)).toBe(0);
  });

  it('plain text content has no placeholders (its braces are printed as written)', async () => {
    const { pdf, anchors } = await renderDocumentWithAnchors({ title: 't', content: '서명 {{signature:a}}', format: 'text', created_at: '2026-01-01T00:00:00Z' });
    expect(anchors).toEqual([]);
    expect(pdftotext(Buffer.from(pdf))).toContain('{{signature:a}}');
  });
});

describe('anchors: text in an uploaded PDF', () => {
  const a4 = pdfFixture('chromium-korean-contract-a4.pdf');

  it('finds "(인)" on page 3 where poppler sees it', async () => {
    const [found] = await findTextAnchors(a4, [{ text: '(인)', occurrence: 1 }]);
    expect(found.count).toBe(1);
    // pdftotext -bbox: xMin 179.39, yMin 78.86 on a 594.96 × 841.92 page (glyph boxes are a little tighter).
    expect(found.box).toMatchObject({ page: 3 });
    expect(found.box!.x).toBeCloseTo((179.39 / 594.96) * 100, 0);
    expect(found.box!.y).toBeCloseTo((78.86 / 841.92) * 100, 0);
    expect(found.box!.width).toBeGreaterThan(2);
    expect(found.box!.height).toBeGreaterThan(1);
  });

  it('counts occurrences, ignores white space and reports what is missing', async () => {
    const [article, spaced, second, missing] = await findTextAnchors(a4, [
      { text: '제2조', occurrence: 1 },
      { text: '제 2 조', occurrence: 1 },
      { text: '(인)', occurrence: 2 },
      { text: '존재하지 않는 문구', occurrence: 1 },
    ]);
    expect(article.box?.page).toBe(1);
    expect(spaced.box).toEqual(article.box);
    expect(second).toEqual({ box: null, count: 1 });
    expect(missing).toEqual({ box: null, count: 0 });
  });

  it('follows the page size (US Letter) in percent', async () => {
    const [letter] = await findTextAnchors(pdfFixture('chromium-korean-contract-letter.pdf'), [{ text: '(인)', occurrence: 1 }]);
    const [onA4] = await findTextAnchors(a4, [{ text: '(인)', occurrence: 1 }]);
    expect(letter.box?.page).toBe(3);
    // The same text at the same distance in points is a different percentage of a wider, shorter page.
    expect(letter.box!.y).not.toBeCloseTo(onA4.box!.y, 1);
  });

  it('on a page turned by /Rotate, reports the box as the page is displayed', async () => {
    const rotated = pdfFixture('rotated-page2-90.pdf');
    const text = pdftotext(rotated).split('\f')[1] ?? '';
    const word = text.split(/\s+/).find((w) => w.length >= 3 && /[가-힣]/.test(w)) as string;
    const [upright] = await findTextAnchors(a4, [{ text: word, occurrence: 1 }]);
    const [turned] = await findTextAnchors(rotated, [{ text: word, occurrence: 1 }]);
    expect(upright.box?.page).toBe(2);
    expect(turned.box?.page).toBe(2);
    // Landscape display: the text's width runs down the page, so the box is taller than wide.
    expect(upright.box!.width).toBeGreaterThan(upright.box!.height * 0.8);
    expect(turned.box!.height).toBeGreaterThan(turned.box!.width);
    for (const b of [turned.box!]) {
      expect(b.x + b.width).toBeLessThanOrEqual(100);
      expect(b.y + b.height).toBeLessThanOrEqual(100);
    }
  });
});

describe('anchors: the element form of a placeholder', () => {
  it('<span data-field="signature:employee"> places like {{signature:employee}}, whatever the span held', async () => {
    const { pdf, anchors } = await renderDocumentWithAnchors({
      title: 't',
      content: '<p>근로자 서명: <span data-field="signature:employee">여기에 서명</span></p><p>무시: <span data-field="not a field">그대로</span></p>',
      format: 'html',
      created_at: '2026-01-01T00:00:00Z',
    });
    expect(anchors.map((a) => a.text)).toEqual(['{{signature:employee}}']);
    const text = pdftotext(Buffer.from(pdf));
    expect(text).not.toContain('여기에 서명');
    expect(text).toContain('그대로');
  });
});

describe('text lines: where the editor snaps fields (issue 34)', () => {
  it('gives each page\'s baselines in percent from the top, one per line whatever its glyphs, none on a blank page', async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    const page = pdf.addPage([595, 842]);
    // Descenders (g, y, p) and a different size on one line do not make it two.
    page.drawText('Agreed by the parties', { x: 60, y: 700, size: 11, font });
    page.drawText('signature', { x: 300, y: 700, size: 16, font });
    page.drawText('Clause 2', { x: 60, y: 672, size: 11, font });
    pdf.addPage([595, 842]);
    const lines = await findTextLines(await pdf.save());
    expect(lines).toEqual([[Math.round(((842 - 700) / 842) * 10000) / 100, Math.round(((842 - 672) / 842) * 10000) / 100], []]);
  });

  it('finds none on a page turned by /Rotate, whose text runs down the displayed page', async () => {
    const rotated = pdfFixture('rotated-page2-90.pdf');
    const [upright, turned] = await findTextLines(rotated);
    expect(upright.length).toBeGreaterThan(3);
    expect(turned).toEqual([]);
  });
});
