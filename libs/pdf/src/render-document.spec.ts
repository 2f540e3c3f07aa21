import { PDFDocument } from 'pdf-lib';
import { buildDocDefinition, renderDocDefinition, renderDocumentPdf } from './render-document';
import { encodePng } from './testing/png';
import { pdffonts, pdfinfo, pdftotext, renderPage } from './testing/poppler';

const TITLE = '근로계약서';
const BODY = '갑과 을은 다음과 같이 계약한다.';

describe('renderDocumentPdf', () => {
  let htmlPdf: Buffer;

  beforeAll(async () => {
    htmlPdf = await renderDocumentPdf({
      title: TITLE,
      format: 'html',
      content: `<h2>제1조 (목적)</h2><p>${BODY}</p><p><b>제2조</b> 근로 장소는 <u>서울특별시</u>로 한다.</p><script>document.write("악성")</script>`,
      created_at: '2026-03-01T09:00:00+09:00',
    });
  });

  it('writes the Korean title and body as extractable text', () => {
    const text = pdftotext(htmlPdf);
    expect(text).toContain(TITLE);
    expect(text).toContain(BODY);
    expect(text).toContain('제2조 근로 장소는 서울특별시로 한다.');
    expect(text).not.toContain('악성');
  });

  it('embeds Noto Sans KR as a subset (emb yes, sub yes)', () => {
    const fonts = pdffonts(htmlPdf);
    const lines = fonts.split('\n').filter((l) => /NotoSansKR/.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) {
      expect(line).toMatch(/^[A-Z]{6}\+NotoSansKR-(Regular|Bold)\s/);
      expect(line).toMatch(/\byes\s+yes\s+yes\b/);
    }
    expect(fonts).toMatch(/NotoSansKR-Bold/);
    // Only used glyphs travel: the 6 MB font becomes a few dozen KB.
    expect(htmlPdf.length).toBeLessThan(120_000);
  });

  it('is A4 and carries the title in the document info', () => {
    const info = pdfinfo(htmlPdf);
    expect(info).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
    expect(info).toMatch(/Title:\s+근로계약서/);
  });

  it('renders the same bytes for the same document and created_at', async () => {
    const again = await renderDocumentPdf({
      title: TITLE,
      format: 'html',
      content: `<h2>제1조 (목적)</h2><p>${BODY}</p><p><b>제2조</b> 근로 장소는 <u>서울특별시</u>로 한다.</p><script>document.write("악성")</script>`,
      created_at: '2026-03-01T09:00:00+09:00',
    });
    expect(again.equals(htmlPdf)).toBe(true);
  });

  it('renders text bodies literally, paragraph by paragraph', async () => {
    const pdf = await renderDocumentPdf({
      title: TITLE,
      format: 'text',
      content: `${BODY}\n둘째 줄\n\n<b>태그가 아닌 글자</b>`,
    });
    const text = pdftotext(pdf);
    expect(text).toContain(`${BODY}\n둘째 줄\n`);
    expect(text).toContain('<b>태그가 아닌 글자</b>');
  });

  it('draws no missing-glyph boxes for zero-width characters', async () => {
    const inkBelowTitle = (pdf: Buffer) => {
      const page = renderPage(pdf, 1, 50);
      let ink = 0;
      for (let y = Math.round(page.height * 0.15); y < page.height * 0.9; y++) {
        for (let x = 0; x < page.width; x++) if (page.rgb(x, y)[0] < 128) ink++;
      }
      return ink;
    };
    const zeroWidth = '\u200b\ufeff\u2060\u200d';
    const html = await renderDocumentPdf({ title: `근로\u200b계약서`, format: 'html', content: `<p>${zeroWidth}</p><p>\u200b</p>` });
    const text = await renderDocumentPdf({ title: '근로계약서', format: 'text', content: `${zeroWidth}\n\u200b\n` });
    expect(inkBelowTitle(html)).toBe(0);
    expect(inkBelowTitle(text)).toBe(0);
    expect(pdftotext(html)).toContain('근로계약서');
  });

  it('numbers pages "n / N" in the footer', async () => {
    const paragraphs = Array.from({ length: 90 }, (_, i) => `<p>제${i + 1}조 ${BODY} 이 조항은 쪽 번호 확인을 위한 긴 본문입니다.</p>`).join('');
    const pdf = await renderDocumentPdf({ title: TITLE, format: 'html', content: paragraphs });
    const doc = await PDFDocument.load(pdf);
    const pageCount = doc.getPageCount();
    expect(pageCount).toBeGreaterThanOrEqual(3);
    const pages = pdftotext(pdf).split('\f').filter((p) => p.trim());
    expect(pages).toHaveLength(pageCount);
    pages.forEach((page, i) => expect(page).toMatch(new RegExp(`\\b${i + 1}\\s*/\\s*${pageCount}\\s*$`)));
  });

  it('draws data-URL images from the body', async () => {
    const blue = encodePng(40, 20, () => [0, 0, 255, 255]).toString('base64');
    const pdf = await renderDocumentPdf({
      title: TITLE,
      format: 'html',
      content: `<p>도장</p><img src="data:image/png;base64,${blue}" width="400">`,
    });
    const page = renderPage(pdf, 1, 30);
    let bluePixels = 0;
    for (let y = 0; y < page.height; y++) {
      for (let x = 0; x < page.width; x++) {
        const [r, g, b] = page.rgb(x, y);
        if (b > 200 && r < 60 && g < 60) bluePixels++;
      }
    }
    // 300 × 150 pt at 30 dpi ≈ 125 × 62 px.
    expect(bluePixels).toBeGreaterThan(6000);
  });

  it('exposes the pdfmake definition for raw rendering', async () => {
    const def = buildDocDefinition({ title: TITLE, format: 'text', content: BODY });
    expect(def.pageSize).toBe('A4');
    expect(typeof def.footer).toBe('function');
    const pdf = await renderDocDefinition(def);
    expect(pdftotext(pdf)).toContain(BODY);
  });
});
