import { contentDispositionFor } from './content-disposition';

describe('contentDispositionFor', () => {
  it('encodes a Korean title as RFC 5987 with an ASCII fallback', () => {
    const header = contentDispositionFor('근로계약서');
    expect(header).toContain("filename*=UTF-8''%EA%B7%BC%EB%A1%9C%EA%B3%84%EC%95%BD%EC%84%9C.pdf");
  });

  it('does not throw on a title with a lone surrogate (stored before the API refused them)', () => {
    expect(() => contentDispositionFor('lone \ud800 title')).not.toThrow();
    expect(contentDispositionFor('lone \ud800 title')).toContain('%EF%BF%BD');
  });

  it('strips bidi controls, so "\\u202egnp.exe" downloads as what it is (issue 24, item 18)', () => {
    const header = contentDispositionFor('\u202egnp.exe');
    expect(header).toBe(`attachment; filename="gnp.exe.pdf"; filename*=UTF-8''gnp.exe.pdf`);
    for (const control of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
      expect(decodeURIComponent(contentDispositionFor(`계약${control}서`).split("''")[1])).toBe('계약서.pdf');
    }
  });
});

