import { DomainError } from '../shared/domain-error';
import { FieldAnchor, anchorNotFound, isPlaceholderAnchor, placeAtAnchor } from './field-anchor';

const anchor = (over: Partial<FieldAnchor> = {}): FieldAnchor => ({ text: '(인)', occurrence: 1, offset_x: 0, offset_y: 0, width: null, height: null, ...over });
const found = { page: 3, x: 30, y: 9.5, width: 3.1, height: 1.3 };

describe('placing a field at its anchor', () => {
  it('puts the field at the found text, sized as the text when no size is given', () => {
    expect(placeAtAnchor(anchor(), found, 'fields[0].anchor')).toEqual({ page: 3, x: 30, y: 9.5, width: 3.1, height: 1.3 });
  });

  it('moves it by the offset and sizes it as asked (a seal box centred over "(인)")', () => {
    expect(placeAtAnchor(anchor({ offset_x: -2, offset_y: -3, width: 8, height: 6 }), found, 'fields[0].anchor')).toEqual({ page: 3, x: 28, y: 6.5, width: 8, height: 6 });
  });

  it('never makes a box smaller than 1 percent from a tiny text', () => {
    expect(placeAtAnchor(anchor(), { ...found, width: 0.4, height: 0.6 }, 'fields[0].anchor')).toMatchObject({ width: 1, height: 1 });
  });

  it('refuses a box that would leave the page, naming the anchor', () => {
    const attempt = () => placeAtAnchor(anchor({ offset_x: 70, width: 5 }), found, 'fields[2].anchor');
    expect(attempt).toThrow(DomainError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'anchor_out_of_page', param: 'fields[2].anchor' }));
    expect(() => placeAtAnchor(anchor({ offset_y: -10 }), found, 'fields[0].anchor')).toThrow(expect.objectContaining({ code: 'anchor_out_of_page' }));
  });
});

describe('an anchor that is not there', () => {
  it('says it does not appear, or how many times it does', () => {
    expect(anchorNotFound(anchor(), 0, 'fields[1].anchor', 'the uploaded PDF')).toMatchObject({
      code: 'anchor_not_found',
      param: 'fields[1].anchor',
      message: expect.stringContaining('"(인)" does not appear in the uploaded PDF'),
    });
    expect(anchorNotFound(anchor({ occurrence: 3 }), 2, 'fields[1].anchor', 'the uploaded PDF').message).toContain('appears 2 times, so occurrence 3 does not exist');
  });

  it('tells placeholders from plain text', () => {
    expect(isPlaceholderAnchor('{{signature:employee}}')).toBe(true);
    expect(isPlaceholderAnchor('{{seal:갑}}')).toBe(true);
    expect(isPlaceholderAnchor('{{employee}}')).toBe(false);
    expect(isPlaceholderAnchor('x {{signature:a}}')).toBe(false);
    expect(anchorNotFound(anchor({ text: '{{signature:a}}' }), 0, 'fields[0].anchor', 'the rendered content').message).toContain('Placeholders are written in HTML content');
  });
});
