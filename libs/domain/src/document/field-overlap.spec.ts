import { DomainError } from '../shared/domain-error';
import { fieldOverlap, firstFieldOverlap, validateFieldOverlaps } from './field-overlap';

const box = (x: number, y: number, width = 20, height = 8, page = 1, part?: number) => ({ page, x, y, width, height, ...(part === undefined ? {} : { part }) });

describe('field overlap', () => {
  it('measures the share of the smaller box the two have in common', () => {
    expect(fieldOverlap(box(10, 10), box(10, 10))).toBe(1);
    expect(fieldOverlap(box(10, 10), box(20, 10))).toBe(0.5);
    // A checkbox inside a large text box: all of the checkbox is covered.
    expect(fieldOverlap(box(10, 10, 60, 20), box(30, 15, 3, 2))).toBe(1);
  });

  it('lets touching, adjacent and small overlaps pass', () => {
    // Touching edges share no area.
    expect(fieldOverlap(box(10, 10), box(30, 10))).toBe(0);
    expect(fieldOverlap(box(10, 10), box(10, 18))).toBe(0);
    // A seal stamped a quarter over the name next to it.
    expect(firstFieldOverlap([box(10, 10, 20, 8), box(25, 10, 20, 8)])).toBeNull();
    // Exactly half passes; the rule refuses more than half.
    expect(firstFieldOverlap([box(10, 10), box(20, 10)])).toBeNull();
  });

  it('compares boxes on the same page of the same part only', () => {
    expect(fieldOverlap(box(10, 10, 20, 8, 1), box(10, 10, 20, 8, 2))).toBe(0);
    expect(fieldOverlap(box(10, 10, 20, 8, 1, 0), box(10, 10, 20, 8, 1, 1))).toBe(0);
    expect(fieldOverlap(box(10, 10, 20, 8, 1), box(10, 10, 20, 8, 1, 0))).toBe(1);
  });

  it('refuses a field covering more than half of another, naming the later one and the one it covers', () => {
    const fields = [box(10, 10), box(50, 50), box(52, 51)];
    const attempt = () => validateFieldOverlaps(fields);
    expect(attempt).toThrow(DomainError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'field_overlap', param: 'fields[2]', message: expect.stringMatching(/^fields\[2\] covers \d+% of fields\[1\]/) }));
  });

  it('leaves out the fields whose box is not known yet', () => {
    const fields = [box(10, 10), box(10, 10)];
    expect(() => validateFieldOverlaps(fields, (i) => i !== 1)).not.toThrow();
  });
});
