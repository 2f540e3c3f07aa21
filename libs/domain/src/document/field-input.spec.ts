import { readDateInput, readFieldText, readNumberInput } from './field-input';

describe('readNumberInput: numbers as Koreans write them', () => {
  it.each([
    ['3500000', '3500000'],
    ['3,500,000', '3500000'],
    ['3500000원', '3500000'],
    ['3,500,000 원', '3500000'],
    ['₩3,500,000', '3500000'],
    ['￦ 3,500,000', '3500000'],
    ['-12.5', '-12.5'],
    ['−1,234.56', '-1234.56'],
    ['0', '0'],
    ['-0', '0'],
    ['007', '7'],
    ['1,000', '1000'],
  ])('%j reads as %j', (written, recorded) => {
    expect(readNumberInput(written)).toBe(recorded);
  });

  it.each(['3,5,0', '1e400', '1E5', '1,0000', ',100', '100,', '3.500.000', '1 000', '', '원', '₩', '3,500,000달러', 'Infinity', '0x10', '+-1', '１２３'])('%j reads as no number', (written) => {
    expect(readNumberInput(written)).toBeNull();
  });
});

describe('readDateInput: dates as Koreans write them', () => {
  it.each(['1995-03-15', '1995.03.15', '1995. 3. 15.', '1995.3.15', '1995년 3월 15일', '1995년3월15일', '1995/03/15', ' 1995. 03. 15 '])('%j reads as 1995-03-15', (written) => {
    expect(readDateInput(written)).toBe('1995-03-15');
  });

  it('leaves the calendar to valueProblem: 1995.02.30 reads as 1995-02-30, which is no day', () => {
    expect(readDateInput('1995.02.30')).toBe('1995-02-30');
  });

  it.each(['15.03.1995', '03/15/1995', '95.3.15', '1995-03', '1995.03-15', '1995년 3월', 'March 15, 1995', '19950315'])('%j reads as no date', (written) => {
    expect(readDateInput(written)).toBeNull();
  });
});

describe('readFieldText', () => {
  it('reads numbers and dates of their field types only, and keeps what it cannot read', () => {
    expect(readFieldText('number', '3,500,000원')).toBe('3500000');
    expect(readFieldText('date', '1995년 3월 15일')).toBe('1995-03-15');
    expect(readFieldText('text', '3,500,000원')).toBe('3,500,000원');
    expect(readFieldText('number', '3,5,0')).toBe('3,5,0');
  });
});
