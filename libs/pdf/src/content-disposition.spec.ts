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
});
