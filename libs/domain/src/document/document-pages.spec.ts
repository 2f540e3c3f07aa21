import { DomainError } from '../shared/domain-error';
import { absolutePage, layParts, pageWithinPart } from './document-parts';

/** One numbering (issue 32 item 5): pages count across the whole document, every part once. */
describe('document pages across parts', () => {
  // A 2-page body, an uploaded PDF of 3 pages, a 1-page body: pages 1–2, 3–5 and 6.
  const layout = layParts([2, 3, 1]);

  it('maps a document page to its part and the page within it, and back', () => {
    expect(pageWithinPart(layout, 1, undefined, 'fields[0].page')).toEqual({ part: 0, page: 1 });
    expect(pageWithinPart(layout, 5, undefined, 'fields[0].page')).toEqual({ part: 1, page: 3 });
    expect(pageWithinPart(layout, 6, 2, 'fields[0].page')).toEqual({ part: 2, page: 1 });
    for (let page = 1; page <= 6; page++) {
      const within = pageWithinPart(layout, page, undefined, 'p');
      expect(absolutePage({ part_pages: null }, within, layout)).toBe(page);
      expect(absolutePage({ part_pages: layout }, within)).toBe(page);
    }
  });

  it('refuses a page past the last, or outside the part the field names, naming the field', () => {
    const refusal = (page: number, part?: number) => {
      try {
        pageWithinPart(layout, page, part, 'fields[3].page');
      } catch (error) {
        return error as DomainError;
      }
      throw new Error('not refused');
    };
    expect(refusal(7)).toMatchObject({ code: 'field_page_out_of_range', param: 'fields[3].page' });
    expect(refusal(7).message).toContain('the document has 6 pages');
    expect(refusal(2, 1)).toMatchObject({ code: 'field_page_out_of_range', param: 'fields[3].page' });
    expect(refusal(2, 1).message).toContain('part 1 is pages 3 to 5');
  });

  it('counts a draft without a layout within its part, as recorded', () => {
    expect(absolutePage({ part_pages: null }, { part: 1, page: 2 })).toBe(2);
  });
});
