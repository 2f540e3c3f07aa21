import { PDFDocument, PDFTextField, StandardFonts } from 'pdf-lib';
import { drawValues, fitText, flattenForm, PdfValue, wrapLines } from './draw-values';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pdffonts, pdftotext, renderPage } from './testing/poppler';

/** What poppler complains about while reading the file (stderr), e.g. "Invalid XRef entry". */
function pdfinfoErrors(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-values-'));
  try {
    writeFileSync(join(dir, 'f.pdf'), pdf);
    return execFileSync('sh', ['-c', 'pdftotext f.pdf - 2>&1 >/dev/null'], { cwd: dir, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const A4: [number, number] = [595.28, 841.89];

async function blank(pages = 1, rotate = 0): Promise<PDFDocument> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage(A4);
    if (rotate) page.setRotation({ type: 'degrees', angle: rotate } as never);
  }
  return doc;
}

const save = async (doc: PDFDocument) => Buffer.from(await doc.save());
const text = (o: Partial<PdfValue>): PdfValue => ({ page: 1, x: 10, y: 10, width: 40, height: 4, kind: 'text', font_size: null, multiline: false, ...o });

/** Dark pixels inside a field's box (percent coordinates) of a page rendered at `dpi`. */
function inkIn(pdf: Buffer, box: { x: number; y: number; width: number; height: number }, dpi = 40): number {
  const page = renderPage(pdf, 1, dpi);
  let dark = 0;
  for (let y = Math.floor((box.y / 100) * page.height); y < ((box.y + box.height) / 100) * page.height; y++) {
    for (let x = Math.floor((box.x / 100) * page.width); x < ((box.x + box.width) / 100) * page.width; x++) {
      const [r, g, b] = page.rgb(x, y);
      if (r + g + b < 300) dark++;
    }
  }
  return dark;
}

describe('drawValues: field values in the final PDF', () => {
  it('draws Korean text in the embedded subset of Noto Sans KR, readable by an independent reader', async () => {
    const doc = await blank();
    await drawValues(doc, [text({ text: '서울특별시 중구 세종대로 110' }), text({ y: 20, text: '2027년 1월 2일' })]);
    const pdf = await save(doc);
    const out = pdftotext(pdf);
    expect(out).toContain('서울특별시 중구 세종대로 110');
    expect(out).toContain('2027년 1월 2일');
    expect(pdffonts(pdf)).toMatch(/NotoSansKR.*CID TrueType.*yes/);
    // A subset: a few KB, not the 6 MB font.
    expect(pdf.length).toBeLessThan(60_000);
  });

  it('wraps a multi-line value inside its box, and shrinks a long single line to fit', async () => {
    const long = '근로자는 회사의 취업규칙과 복무규정을 준수하며 성실히 근무한다. '.repeat(3).trim();
    const lines = fitText(long, { width: 200, height: 60 }, null, true, (s, size) => s.length * size * 0.9);
    expect(lines.lines.length).toBeGreaterThan(1);
    expect(lines.lines.length * lines.size * 1.25).toBeLessThanOrEqual(60);
    const one = fitText('아주 긴 한 줄의 값', { width: 120, height: 20 }, null, false, (s, size) => s.length * size * 0.9);
    expect(one.lines).toHaveLength(1);
    expect(one.size).toBeLessThan(12);
    expect(one.size).toBeGreaterThanOrEqual(7);
    const doc = await blank();
    await drawValues(doc, [text({ text: long, multiline: true, height: 10 })]);
    expect(pdftotext(await save(doc)).replace(/\s+/g, '')).toContain(long.replace(/\s+/g, ''));
  });

  it('never goes below 7 pt: a value that does not fit wraps (a one-line field too) and its box grows downward, up to the page\'s bottom', () => {
    const width = (s: string, size: number) => s.length * size * 0.9;
    const address = '서울특별시 중구 세종대로 110 '.repeat(8).trim();
    const fitted = fitText(address, { width: 60, height: 10 }, null, false, width);
    expect(fitted.size).toBe(7);
    expect(fitted.lines.length).toBeGreaterThan(1);
    expect(fitted.lines.join('').replace(/\s+/g, '')).toBe(address.replace(/\s+/g, ''));
    expect(fitted.height).toBeCloseTo(fitted.lines.length * 7 * 1.25 + 3, 5);
    // A size the sender set below the floor is raised to it.
    expect(fitText('2027-01-04', { width: 200, height: 10 }, 3, false, width).size).toBe(7);
    // The box grows no further than the page's bottom.
    expect(fitText(address, { width: 60, height: 10 }, null, false, width, 30).height).toBe(30);
    // What fits stays in its box.
    expect(fitText('홍길동', { width: 60, height: 12 }, null, false, width).height).toBe(12);
  });

  it('a 120-character address, an e-mail and a file\'s name and hash in narrow boxes: every value whole in the text, no Tf below 7 pt', async () => {
    const address = '서울특별시 강남구 테헤란로 152 강남파이낸스센터 21층 2101호 (역삼동, 주식회사 도장 본사 계약관리팀 곽뙇희 앞) 우편번호 06236, 대한민국 서울특별시 강남구 테헤란로 일대 업무시설 건물 동쪽 1번 출입구 안내데스크';
    expect(address.length).toBeGreaterThanOrEqual(120);
    const values = [
      text({ text: address, width: 30, height: 3 }),
      text({ y: 40, text: 'gwak.ddoenghui+contracts@example-company.co.kr', width: 12, height: 2 }),
      text({ y: 50, text: '신분증_앞면_스캔본.png · sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', width: 20, height: 2.5 }),
      text({ y: 60, text: '2027-01-04', width: 20, height: 3, font_size: 3 }),
    ];
    const doc = await blank();
    await drawValues(doc, values);
    const pdf = await save(doc);
    const flat = pdftotext(pdf).replace(/\s+/g, '');
    for (const v of values) expect(flat).toContain((v.text as string).replace(/\s+/g, ''));
    // Every text size set in the page's content streams, read with qpdf in QDF form (uncompressed).
    const dir = mkdtempSync(join(tmpdir(), 'dojang-values-'));
    try {
      writeFileSync(join(dir, 'f.pdf'), pdf);
      execFileSync('qpdf', ['--qdf', '--object-streams=disable', 'f.pdf', 'q.pdf'], { cwd: dir });
      const content = execFileSync('sh', ['-c', 'cat q.pdf'], { cwd: dir, encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 });
      const sizes = [...content.matchAll(/\/\S+ ([\d.]+) Tf/g)].map((m) => Number(m[1]));
      expect(sizes.length).toBeGreaterThanOrEqual(values.length);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(7);
      // Text is never scaled down by a matrix either: every Tm is a pure rotation and translation.
      for (const m of content.matchAll(/([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) [-\d.]+ [-\d.]+ Tm/g)) {
        expect(Math.hypot(Number(m[1]), Number(m[2]))).toBeCloseTo(1, 5);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the "입력값 부록" annex: a value its box cannot hold and an attachment are listed whole after the last page, read by pdftotext as a reader would', async () => {
    // A long 특약 written into a one-line box near the page's bottom: growing to the bottom is not enough.
    const clause = Array.from({ length: 12 }, (_, i) => `제${i + 1}조 근로자는 회사의 취업규칙과 복무규정을 준수하며, 곽뙇희 대리의 지시에 따라 성실히 근무한다.`).join(' ');
    const hash = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    const values = [
      text({ y: 20, text: '홍길동', label: '성명' }),
      text({ page: 2, y: 92, height: 3, text: clause, label: '특약 사항' }),
      text({ y: 50, width: 15, height: 2.5, text: `신분증_앞면_스캔본.png (SHA-256 ${hash})`, label: '신분증 사본', attachment: { filename: '신분증_앞면_스캔본.png', sha256: hash, byte_size: 248_113 } }),
    ];
    const doc = await blank(2);
    await drawValues(doc, values);
    const pdf = await save(doc);
    const pages = pdftotext(pdf).split('\f');
    // Two pages of the document, then the annex.
    expect(doc.getPageCount()).toBe(3);
    const flat = pages.map((p) => p.replace(/\s+/g, ''));
    // The value that fits stays in its box and is not on the annex.
    expect(flat[0]).toContain('홍길동');
    expect(flat[2]).not.toContain('홍길동');
    // Numbered in reading order: page 1's attachment is 1, page 2's clause is 2. Each box names its entry.
    expect(flat[0]).toContain('신분증_앞면_스캔본.png(입력값부록1)');
    expect(flat[0]).not.toContain(hash);
    expect(flat[1]).toContain('(입력값부록2)');
    expect(flat[1]).not.toContain(clause.replace(/\s+/g, ''));
    // The annex: its title, each entry with its label and page, the clause whole, the file by name, size and hash.
    expect(pages[2]).toContain('입력값 부록');
    expect(pages[2]).toMatch(/1\. 신분증 사본 — 1쪽/);
    expect(pages[2]).toContain('첨부 파일: 신분증_앞면_스캔본.png');
    expect(pages[2]).toContain('크기: 248,113 bytes');
    expect(pages[2]).toContain(`SHA-256: ${hash}`);
    expect(pages[2]).toMatch(/2\. 특약 사항 — 2쪽/);
    expect(flat[2]).toContain(clause.replace(/\s+/g, ''));
  });

  it('adds no annex when every value fits its box', async () => {
    const doc = await blank();
    await drawValues(doc, [text({ text: '서울특별시 중구 세종대로 110', label: '주소' })]);
    expect(doc.getPageCount()).toBe(1);
    expect(pdftotext(await save(doc))).not.toContain('입력값 부록');
  });

  it('an annex longer than a page continues on the next, every line whole', async () => {
    const long = Array.from({ length: 120 }, (_, i) => `${i + 1}번째 줄: 회사는 근로자에게 매월 25일 급여를 지급한다.`).join('\n');
    const doc = await blank();
    await drawValues(doc, [text({ y: 95, height: 3, text: long, multiline: true, label: '세부 조건' })]);
    expect(doc.getPageCount()).toBeGreaterThan(2);
    const annex = pdftotext(await save(doc)).split('\f').slice(1).join('\n');
    for (const line of long.split('\n')) expect(annex).toContain(line);
  });

  it('breaks a word wider than the box between characters', () => {
    expect(wrapLines('가나다라마바', 3, (s) => s.length)).toEqual(['가나다', '라마바']);
    expect(wrapLines('ab cd\nef', 5, (s) => s.length)).toEqual(['ab cd', 'ef']);
  });

  it('draws a ticked box for a checked checkbox and a filled dot for the chosen radio button, empty ones otherwise', async () => {
    const checked = { page: 1, x: 10, y: 10, width: 4, height: 3, kind: 'checkbox' as const, checked: true, font_size: null, multiline: false };
    const unchecked = { ...checked, x: 20, checked: false };
    const chosen = { ...checked, x: 30, kind: 'radio' as const };
    const other = { ...chosen, x: 40, checked: false };
    const doc = await blank();
    await drawValues(doc, [checked, unchecked, chosen, other]);
    const pdf = await save(doc);
    const ink = [checked, unchecked, chosen, other].map((b) => inkIn(pdf, b));
    expect(ink.every((n) => n > 0)).toBe(true);
    expect(ink[0]).toBeGreaterThan(ink[1] * 1.3);
    expect(ink[2]).toBeGreaterThan(ink[3] * 1.3);
    // Nothing outside the boxes.
    expect(inkIn(pdf, { x: 50, y: 10, width: 40, height: 10 })).toBe(0);
  });

  it('refuses a value on a page the document does not have', async () => {
    await expect(drawValues(await blank(), [text({ page: 2, text: 'x' })])).rejects.toThrow(/outside 1\.\.1/);
  });

  it('flattens the form of an original: no live field remains, its value stays on the page', async () => {
    const doc = await blank();
    const form = doc.getForm();
    const field: PDFTextField = form.createTextField('address');
    field.setText('Seoul');
    field.addToPage(doc.getPage(0), { x: 50, y: 700, width: 200, height: 20, font: await doc.embedFont(StandardFonts.Helvetica) });
    flattenForm(doc);
    // Written as the signer writes the final PDF: no object streams, so the xref table must have no holes.
    const written = Buffer.from(await doc.save({ useObjectStreams: false }));
    expect(pdfinfoErrors(written)).toBe('');
    const reloaded = await PDFDocument.load(written);
    expect(reloaded.getForm().getFields()).toHaveLength(0);
    expect(pdftotext(written)).toContain('Seoul');
  });
});
