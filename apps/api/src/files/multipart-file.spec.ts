import { sanitizeFilename } from './multipart-file';

describe('sanitizeFilename', () => {
  it('drops bidirectional controls, which make evil<U+202E>gnp.exe read as evilexe.png (issue 33 §14)', () => {
    expect(sanitizeFilename('evil\u202egnp.exe')).toBe('evilgnp.exe');
    expect(sanitizeFilename('\u2066신분증\u2069\u200f.png')).toBe('신분증.png');
  });

  it('keeps Korean names and drops paths and control characters as before', () => {
    expect(sanitizeFilename('C:\\Users\\홍길동\\신분증 사본.png')).toBe('신분증 사본.png');
    expect(sanitizeFilename('a\u0000b\u001f.pdf')).toBe('ab.pdf');
    expect(sanitizeFilename('\u202e')).toBeNull();
  });
});
