import { oneLineDistinguishedName } from './distinguished-name';

describe('oneLineDistinguishedName', () => {
  it('joins the attributes OpenSSL prints one a line, Korean as it is', () => {
    expect(oneLineDistinguishedName('O=주식회사 한빛소프트\nCN=홍길동')).toBe('O=주식회사 한빛소프트, CN=홍길동');
  });

  it("keeps OpenSSL's own escapes and escapes bidi overrides and control characters it left, as UTF-8 hex", () => {
    expect(oneLineDistinguishedName('CN=a\\, b\\07\nO=evil\u202egnp.exe\u0085')).toBe('CN=a\\, b\\07, O=evil\\E2\\80\\AEgnp.exe\\C2\\85');
  });

  it('never cuts a long name', () => {
    const long = `CN=${'가'.repeat(1400)}`;
    expect(oneLineDistinguishedName(`${long}\nO=x`)).toBe(`${long}, O=x`);
  });
});
