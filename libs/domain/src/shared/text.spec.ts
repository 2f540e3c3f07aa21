import { constantTimeEqual, maskEmail, maskPhone } from './text';

describe('maskPhone', () => {
  it('masks a Korean mobile number as 010-****-5678', () => {
    expect(maskPhone('01012345678')).toBe('010-****-5678');
    expect(maskPhone('0212345678')).toBe('021-***-5678');
  });

  it('is null for no phone', () => {
    expect(maskPhone(null)).toBeNull();
    expect(maskPhone(undefined)).toBeNull();
    expect(maskPhone('')).toBeNull();
  });

  it('masks a very short number entirely', () => {
    expect(maskPhone('1234')).toBe('****');
    expect(maskPhone('12')).toBe('**');
  });

  it('keeps the last four digits', () => {
    expect(maskPhone('821012345678')?.endsWith('-5678')).toBe(true);
  });

  // Phones of 6 to 15 digits are accepted (document.decider DIGITS); the mask must hide some of them.
  it.each(Array.from({ length: 11 }, (_, i) => '1234567890123456'.slice(0, i + 5)))('never reveals every digit of %s', (phone) => {
    const masked = maskPhone(phone) as string;
    expect(masked).toContain('*');
    expect(masked.replace(/\D/g, '').length).toBeLessThan(phone.length);
  });
});

describe('maskEmail', () => {
  it('keeps the first letter and the domain', () => {
    expect(maskEmail('kim@example.com')).toBe('k**@example.com');
    expect(maskEmail('minji.kim@example.co.kr')).toBe('m********@example.co.kr');
  });

  it('hides the length of a very short local part (at least two stars)', () => {
    expect(maskEmail('a@x.com')).toBe('a**@x.com');
    expect(maskEmail('ab@x.com')).toBe('a**@x.com');
  });

  it('masks the last @ only', () => {
    expect(maskEmail('"a@b"@example.com')).toBe('"****@example.com');
  });

  it('is *** for a malformed address and null for none', () => {
    expect(maskEmail('@example.com')).toBe('***');
    expect(maskEmail('not-an-email')).toBe('***');
    expect(maskEmail(null)).toBeNull();
    expect(maskEmail('')).toBeNull();
  });
});

describe('constantTimeEqual', () => {
  it('is true for equal strings', () => {
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('a'.repeat(64), 'a'.repeat(64))).toBe(true);
  });

  it('is false when one character differs, wherever it is', () => {
    const base = 'abcdef0123456789';
    for (let i = 0; i < base.length; i++) {
      const other = base.slice(0, i) + 'z' + base.slice(i + 1);
      expect(constantTimeEqual(base, other)).toBe(false);
    }
  });

  it('is false for a prefix, an extension or different lengths', () => {
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('abcd', 'abc')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
    expect(constantTimeEqual('abc\u0000', 'abc')).toBe(false);
  });

  it('tells apart characters beyond ASCII', () => {
    expect(constantTimeEqual('서명', '서명')).toBe(true);
    expect(constantTimeEqual('서명', '서멍')).toBe(false);
  });
});
