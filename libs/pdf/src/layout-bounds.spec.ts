import { boundInlines, boundLayoutWork, cutLongWord, MAX_UNBROKEN_CHARS, MAX_UNITS_PER_TEXT } from './layout-bounds';
import { buildDocDefinition, renderDocumentPdf } from './render-document';

/** Every text of a content tree, in order. */
const flatText = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(flatText).join('');
  if (content && typeof content === 'object') {
    const node = content as Record<string, unknown>;
    return 'text' in node ? flatText(node.text) : flatText(node.stack ?? node.ul ?? node.ol ?? []);
  }
  return '';
};

describe('layout bounds (issue 24, item 16)', () => {
  it('cuts a long word into pieces that add up to it, never before a combining character', () => {
    const word = 'a'.repeat(100);
    expect(cutLongWord(word)).toEqual(['a'.repeat(40), 'a'.repeat(40), 'a'.repeat(20)]);
    // A decomposed Hangul syllable (leading, vowel, trailing jamo) and an accent stay with their base.
    const jamo = '\u1100\u1161\u11a8'.repeat(30);
    const pieces = cutLongWord(jamo);
    expect(pieces.join('')).toBe(jamo);
    for (const piece of pieces.slice(1)) expect(piece[0]).toBe('\u1100');
    const accents = 'e\u0301'.repeat(50);
    expect(cutLongWord(accents).every((p) => p[0] === 'e')).toBe(true);
    // Astral characters are not split into halves.
    expect(cutLongWord('😀'.repeat(50)).every((p) => !/^[\udc00-\udfff]/.test(p))).toBe(true);
  });

  it('leaves ordinary paragraphs untouched (their PDFs stay byte for byte the same)', () => {
    const content = [{ text: 'title', style: 'title' }, { text: ['갑과 을은 ', { text: '다음과', bold: true }, ' 같이 계약한다.'] }, { ul: ['하나', '둘'] }];
    expect(boundLayoutWork(content as never)).toEqual(content);
    expect(boundInlines(['a normal sentence'])).toBeNull();
  });

  it('hands a long word over in pieces of its own, keeping styles and the text', () => {
    const parts = boundInlines(['before ', { text: `x${'b'.repeat(120)} after`, bold: true }]);
    expect(parts).toHaveLength(1);
    const inlines = parts![0];
    expect(inlines[0]).toBe('before ');
    expect(inlines.slice(1).every((i) => typeof i === 'object' && i.bold === true)).toBe(true);
    expect(inlines.map((i) => (typeof i === 'string' ? i : i.text)).join('')).toBe(`before x${'b'.repeat(120)} after`);
    expect(Math.max(...inlines.map((i) => (typeof i === 'string' ? i : i.text).trimEnd().length))).toBeLessThanOrEqual(MAX_UNBROKEN_CHARS);
  });

  it('splits a paragraph of very many words into consecutive blocks, in lists and tables too', () => {
    const many = '가 '.repeat(MAX_UNITS_PER_TEXT * 2 + 5);
    const [block] = boundLayoutWork([{ text: many, margin: [0, 0, 0, 6] }] as never) as Array<{ stack: Array<{ text: unknown }>; margin: number[] }>;
    expect(block.stack).toHaveLength(3);
    expect(block.margin).toEqual([0, 0, 0, 6]);
    expect(flatText(block)).toBe(many);
    const [table] = boundLayoutWork([{ table: { body: [[{ text: 'z'.repeat(100) }]] } }] as never) as Array<{ table: { body: Array<Array<{ text: unknown[] }>> } }>;
    expect(table.table.body[0][0].text).toHaveLength(3);
  });

  it('bounds what a body gives pdfmake: <pre> and plain text, Latin and Korean', () => {
    for (const [content, format] of [
      [`<pre>${'b'.repeat(5_000)}</pre>`, 'html'],
      // Every Hangul syllable is a place to break: no piece needed, but blocks of at most 1,000.
      ['한'.repeat(5_000), 'text'],
      [`<p>${'word '.repeat(5_000)}</p>`, 'html'],
    ] as const) {
      const def = buildDocDefinition({ title: 't', content, format });
      type Block = { text?: unknown; stack?: Block[] };
      const blocks: Block[] = (def.content as Block[]).flatMap((node) => node.stack ?? [node]);
      for (const block of blocks) {
        const inlines: string[] = (Array.isArray(block.text) ? (block.text as unknown[]) : [block.text]).map((i) => (typeof i === 'string' ? i : (i as { text: string }).text));
        // No inline holds a word longer than the bound, and no block more words than its bound.
        // (Hangul needs no pieces: pdfmake may break after every syllable.)
        if (format === 'html') for (const inline of inlines) expect(Math.max(...inline.split(/\s+/).map((w: string) => Array.from(w).length))).toBeLessThanOrEqual(MAX_UNBROKEN_CHARS);
        const units = inlines.join('').match(/[\uac00-\ud7af]|[^\s\uac00-\ud7af]+/g) ?? [];
        expect(units.length).toBeLessThanOrEqual(MAX_UNITS_PER_TEXT + 1);
      }
    }
  });

  it('renders a 12,000-character word in seconds, not minutes (it took 100 s)', async () => {
    const started = Date.now();
    const pdf = await renderDocumentPdf({ title: '긴 단어', content: `<p>${'a'.repeat(12_000)}</p>`, format: 'html' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 120_000);

  it('renders 50,000 characters of <pre> and 12,000 unspaced Korean characters in seconds', async () => {
    const started = Date.now();
    await renderDocumentPdf({ title: 'pre', content: `<pre>${'b'.repeat(50_000)}</pre>`, format: 'html' });
    await renderDocumentPdf({ title: '한글', content: '한'.repeat(12_000), format: 'text' });
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 300_000);
});
