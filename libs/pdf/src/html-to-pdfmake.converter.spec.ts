import { htmlToPdfmake, parseSanitizedHtml, textToPdfmake } from './html-to-pdfmake.converter';
import { sanitizeContentHtml } from './sanitize-content-html';

const convert = (html: string) => htmlToPdfmake(sanitizeContentHtml(html), { contentWidth: 480 });

describe('htmlToPdfmake', () => {
  it('turns paragraphs with inline formatting into text runs', () => {
    expect(convert('<p>갑과 <b>을</b>은 <i>다음</i>과 <u><s>같이</s></u><br>계약한다.</p>')).toEqual([
      {
        text: ['갑과 ', { text: '을', bold: true }, '은 ', { text: '다음', italics: true }, '과 ', { text: '같이', decoration: ['underline', 'lineThrough'] }, '\n', '계약한다.'],
        margin: [0, 0, 0, 6],
      },
    ]);
  });

  it('collapses source whitespace like a browser and ignores it between blocks', () => {
    expect(convert('\n  <p>\n   제1조   (목적)\n </p>\n\n<p>둘</p>\n')).toEqual([
      { text: '제1조 (목적)', margin: [0, 0, 0, 6] },
      { text: '둘', margin: [0, 0, 0, 6] },
    ]);
  });

  it('keeps an editor blank line (<p><br></p>) but drops empty paragraphs', () => {
    expect(convert('<p>a</p><p><br></p><p></p><p>b</p>')).toEqual([
      { text: 'a', margin: [0, 0, 0, 6] },
      { text: '\u00a0', margin: [0, 0, 0, 6] },
      { text: 'b', margin: [0, 0, 0, 6] },
    ]);
  });

  it('maps headings, alignment, lists and horizontal rules', () => {
    const out = convert('<h2 style="text-align:center">제목</h2><ol start="3"><li>하나</li><li>둘<ul><li>셋</li></ul></li></ol><hr>');
    expect(out[0]).toEqual({ text: '제목', style: 'h2', alignment: 'center' });
    expect(out[1]).toEqual({ ol: [{ text: '하나' }, { stack: [{ text: '둘' }, { ul: [{ text: '셋' }], margin: [0, 0, 0, 6] }] }], start: 3, margin: [0, 0, 0, 6] });
    expect(out[2]).toMatchObject({ canvas: [{ type: 'line', x2: 480 }] });
  });

  it('builds a rectangular table body with spans and header rows', () => {
    const [table] = convert(
      '<table><thead><tr><th>항목</th><th>내용</th></tr></thead><tbody><tr><td rowspan="2">임금</td><td>월 300만원</td></tr><tr><td>매월 25일</td></tr><tr><td colspan="2">합계</td></tr></tbody></table>',
    ) as Array<{ table: { headerRows: number; widths: string[]; body: unknown[][] } }>;
    expect(table.table.headerRows).toBe(1);
    expect(table.table.widths).toEqual(['*', '*']);
    expect(table.table.body).toEqual([
      [{ text: '항목', bold: true, fillColor: '#f0f0f0' }, { text: '내용', bold: true, fillColor: '#f0f0f0' }],
      [{ text: '임금', rowSpan: 2 }, { text: '월 300만원' }],
      [{}, { text: '매월 25일' }],
      [{ text: '합계', colSpan: 2 }, {}],
    ]);
  });

  it('embeds data-URL images scaled to the page and drops fake ones', () => {
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    expect(convert(`<p>서명<img src="${png}" width="200"></p>`)).toEqual([
      {
        stack: [{ text: '서명' }, { image: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/), maxWidth: 480, width: 150, margin: [0, 0, 0, 6] }],
        margin: [0, 0, 0, 6],
      },
    ]);
    // Valid data URL syntax, but the bytes are not a PNG: pdfkit would throw on it.
    expect(convert('<p>x<img src="data:image/png;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"></p>')).toEqual([{ text: 'x', margin: [0, 0, 0, 6] }]);
  });

  it('decodes entities exactly once', () => {
    expect(convert('<p>a &amp;lt; b &lt; c &quot;d&quot;</p>')).toEqual([{ text: 'a &lt; b < c "d"', margin: [0, 0, 0, 6] }]);
  });

  it('tolerates stray closing tags in its input', () => {
    expect(parseSanitizedHtml('<p>a</b></p>b')).toEqual([
      { kind: 'element', tag: 'p', attrs: {}, children: [{ kind: 'text', text: 'a' }] },
      { kind: 'text', text: 'b' },
    ]);
  });
});

describe('textToPdfmake', () => {
  it('splits paragraphs on blank lines and keeps single newlines and indentation', () => {
    expect(textToPdfmake('제1조 목적\r\n  갑과 을은\n\n제2조 <b>기간</b>\n')).toEqual([
      { text: '제1조 목적\n  갑과 을은', preserveLeadingSpaces: true, margin: [0, 0, 0, 6] },
      { text: '제2조 <b>기간</b>', preserveLeadingSpaces: true, margin: [0, 0, 0, 6] },
    ]);
  });

  it('keeps extra blank lines (zero-width or not) as vertical space', () => {
    expect(textToPdfmake('가\n\n\n\u200b\n나')).toEqual([
      { text: '가', preserveLeadingSpaces: true, margin: [0, 0, 0, 6] },
      { text: '\u00a0' },
      { text: '\u00a0' },
      { text: '나', preserveLeadingSpaces: true, margin: [0, 0, 0, 6] },
    ]);
  });
});

describe('invisible characters', () => {
  it('are removed from HTML text, and a paragraph of only a zero-width space stays an empty line', () => {
    expect(convert('<p>a</p><p>\u200b</p><p>b\u200bc\ufeff \u2060d</p><p> </p>')).toEqual([
      { text: 'a', margin: [0, 0, 0, 6] },
      { text: '\u00a0', margin: [0, 0, 0, 6] },
      { text: 'bc d', margin: [0, 0, 0, 6] },
    ]);
  });
});

describe('htmlToPdfmake tables from hostile input', () => {
  it('keeps the grid bounded whatever the spans claim', () => {
    const cells = '<td colspan="100000" rowspan="100000">x</td>'.repeat(5);
    const [table] = htmlToPdfmake(sanitizeContentHtml(`<table>${`<tr>${cells}</tr>`.repeat(3)}</table>`), { contentWidth: 480 }) as Array<{
      table: { body: unknown[][] };
    }>;
    expect(table.table.body).toHaveLength(3);
    for (const row of table.table.body) expect(row).toHaveLength(40);
  });
});

describe('entities that are not characters', () => {
  it('keeps &constructor; and other object built-in names as text', () => {
    expect(JSON.stringify(convert('<p>a &constructor; &toString; b</p>'))).toContain('a &constructor; &toString; b');
  });

  it('does not decode a surrogate code point into a lone surrogate', () => {
    const runs = JSON.stringify(convert('<p>x&#xD800;y</p>'));
    expect(JSON.parse(runs)[0].text).toMatch(/^x(\uFFFD|&#xD800;)y$/);
  });
});
