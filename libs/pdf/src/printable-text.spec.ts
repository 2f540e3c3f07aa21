import { hasInvisible, stripInvisible } from './printable-text';

describe('printable text in PDFs (issue 24, item 18)', () => {
  it('drops every bidi control, so user text cannot reverse what follows it in a contract or certificate', () => {
    const controls = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
    for (const c of controls) {
      expect(hasInvisible(`홍길동${c}`)).toBe(true);
      expect(stripInvisible(`Signer${c} (서명자)`)).toBe('Signer (서명자)');
    }
  });
});
