import { InvalidPhoneNumberError, readDialableNumber, readTextableNumber, toE164 } from '@dojang/notifications';

describe('toE164 (libphonenumber, Korea the default region)', () => {
  it.each([
    ['01012345678', '+821012345678'],
    ['010-1234-5678', '+821012345678'],
    [' 010 1234 5678 ', '+821012345678'],
    ['010.1234.5678', '+821012345678'],
    ['(010) 1234-5678', '+821012345678'],
    ['0212345678', '+82212345678'],
    ['021234567', '+8221234567'],
    ['0111234567', '+82111234567'],
    ['+82 10-1234-5678', '+821012345678'],
    // libphonenumber drops the trunk 0 written after +82 (a common way Koreans write it abroad).
    ['+82 010-1234-5678', '+821012345678'],
    ['+1 415 555 2671', '+14155552671'],
    ['+81 90-1234-5678', '+819012345678'],
    ['+84 91 234 56 78', '+84912345678'],
    ['+15005550006', '+15005550006'],
  ])('%s → %s', (input, expected) => {
    expect(toE164(input)).toBe(expected);
  });

  it.each([
    '',
    '12',
    'abc',
    '010-1234-567a',
    '010123456789012',
    // Wrong lengths for their countries, which a digit count alone let through.
    '+1 555 0100',
    '+44 20 1234 56',
    '+999 1234',
  ])('rejects %p as not a dialable number', (input) => {
    expect(() => toE164(input)).toThrow(InvalidPhoneNumberError);
    expect(() => toE164(input)).toThrow(/not a dialable phone number/);
  });
});

describe('readDialableNumber', () => {
  it.each([
    ['010-1234-5678', { e164: '+821012345678', callingCode: '82', nationalNumber: '1012345678', domesticDigits: '01012345678', region: 'KR', type: 'MOBILE' }],
    ['1588-1234', { e164: '+8215881234', callingCode: '82', nationalNumber: '15881234', domesticDigits: '15881234', region: 'KR', type: 'UAN' }],
    ['+1 415 555 2671', { e164: '+14155552671', callingCode: '1', nationalNumber: '4155552671', region: 'US', type: 'FIXED_LINE_OR_MOBILE' }],
    ['+81 90-1234-5678', { e164: '+819012345678', callingCode: '81', nationalNumber: '9012345678', domesticDigits: '09012345678', region: 'JP', type: 'MOBILE' }],
    ['+84 91 234 56 78', { e164: '+84912345678', callingCode: '84', nationalNumber: '912345678', region: 'VN', type: 'MOBILE' }],
  ])('%s', (input, expected) => {
    expect(readDialableNumber(input)).toMatchObject(expected);
  });
});

describe('readTextableNumber: only numbers a text message can reach', () => {
  it.each(['01012345678', '+1 415 555 2671', '+81 90-1234-5678', '+84 91 234 56 78'])('takes %s', (input) => {
    expect(readTextableNumber(input).e164).toBe(toE164(input));
  });

  it.each([
    ['02-123-4567', 'FIXED_LINE'],
    // What the old normalizer stored for "1588-1234" (issue 32): a representative number, not a phone.
    ['015881234', 'UAN'],
    ['070-1234-5678', 'VOIP'],
    ['+1 800 555 0199', 'TOLL_FREE'],
  ])('refuses %s (%s) as final', (input, type) => {
    expect(() => readTextableNumber(input)).toThrow(InvalidPhoneNumberError);
    expect(() => readTextableNumber(input)).toThrow(`not a number that can receive text messages (${type})`);
  });
});
