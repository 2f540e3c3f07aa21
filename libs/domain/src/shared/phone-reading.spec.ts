import { parsePhone } from './phone-reading';

// Counts the library's parses, otherwise the real library.
jest.mock('libphonenumber-js/max', () => {
  const actual = jest.requireActual('libphonenumber-js/max');
  return { ...actual, parsePhoneNumberFromString: jest.fn(actual.parsePhoneNumberFromString) };
});
// eslint-disable-next-line @typescript-eslint/no-require-imports
const library = require('libphonenumber-js/max') as { parsePhoneNumberFromString: jest.Mock };

describe('parsePhone', () => {
  beforeEach(() => library.parsePhoneNumberFromString.mockClear());

  it('reads a number once however often it is asked: a document presentation, the send check and each message read the same phones', () => {
    const first = parsePhone('010-2345-6789');
    for (let i = 0; i < 5; i++) expect(parsePhone('010-2345-6789')).toBe(first);
    expect(library.parsePhoneNumberFromString).toHaveBeenCalledTimes(1);
    expect(first).toEqual({
      number: '+821023456789',
      countryCallingCode: '82',
      nationalNumber: '1023456789',
      country: 'KR',
      valid: true,
      type: 'MOBILE',
      domesticDigits: '01023456789',
    });
  });

  it('hands out readings no caller can change for the next one', () => {
    const reading = parsePhone('+1 415 555 2671')!;
    expect(Object.isFrozen(reading)).toBe(true);
    expect(() => ((reading as { number: string }).number = '+10000000000')).toThrow(TypeError);
    expect(parsePhone('+1 415 555 2671')!.number).toBe('+14155552671');
  });

  it('remembers what is not a phone too, and types nothing that is invalid', () => {
    expect(parsePhone('call me')).toBeNull();
    expect(parsePhone('010-1234')).toMatchObject({ valid: false, type: undefined });
    expect(parsePhone('010-1234')).toMatchObject({ valid: false });
    expect(library.parsePhoneNumberFromString).toHaveBeenCalledTimes(1);
  });

  it('keeps a bounded number of readings: the oldest is read again after many others', () => {
    parsePhone('010-3000-0000');
    for (let i = 1; i <= 1024; i++) parsePhone(`010-3000-${String(i).padStart(4, '0')}`);
    library.parsePhoneNumberFromString.mockClear();
    expect(parsePhone('010-3000-0000')!.valid).toBe(true);
    expect(library.parsePhoneNumberFromString).toHaveBeenCalledTimes(1);
    parsePhone('010-3000-1024');
    expect(library.parsePhoneNumberFromString).toHaveBeenCalledTimes(1);
  });
});
