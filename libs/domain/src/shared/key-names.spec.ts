import { isRoleName, keyName, roleColumnKey } from './key-names';

describe('role names: letters of any script', () => {
  it.each(['직원', '대표', 'employee', '직원_1', '갑-측', 'Élève', 'スタッフ', 'a'])('%j is a role name', (name) => {
    expect(isRoleName(name)).toBe(true);
  });

  it.each(['', '1직원', '_직원', '-a', '직원.이름', '직 원', '직원\u0000', '직원\n', '직원\u200b', '{{x}}', 'a'.repeat(41), '__proto__'])('%j is not', (name) => {
    expect(isRoleName(name)).toBe(false);
  });

  it('reads a decomposed (macOS) 직원 as the composed one', () => {
    const decomposed = '직원'.normalize('NFD');
    expect(decomposed).not.toBe('직원');
    expect(keyName(decomposed)).toBe('직원');
    expect(isRoleName(decomposed)).toBe(true);
  });
});

describe('roleColumnKey: a bulk column after <role>.', () => {
  it.each([
    ['name', 'name'],
    ['이름', 'name'],
    ['성명', 'name'],
    ['휴대폰', 'phone'],
    ['전화번호', 'phone'],
    ['이메일', 'email'],
    ['인증', 'auth'],
    ['휴대폰'.normalize('NFD'), 'phone'],
  ])('%j names %j', (key, property) => {
    expect(roleColumnKey(key)).toBe(property);
  });

  it.each(['주소', 'constructor', '__proto__', 'toString', ''])('%j names nothing', (key) => {
    expect(roleColumnKey(key)).toBeNull();
  });
});
