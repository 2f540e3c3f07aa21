import { rowsFromTable } from './bulk-rows';

const template = (roles: string[], variables: string[] = []) => ({
  roles: roles.map((role) => ({ role, participant_role: 'signer' as const, signing_order: 1, auth: 'none' as const })),
  fields: [],
  variables,
});

describe('rowsFromTable: the header names keys, the cells are text (issue 33 §11, §12)', () => {
  it('a role of a template stored before built-in role names were refused is read into its own key, never onto Object', () => {
    const { rows, errors } = rowsFromTable(template(['constructor']), ['constructor.name', 'constructor.email'], [['홍길동', 'hong@example.com']]);
    expect(errors).toEqual([]);
    expect(Object.getPrototypeOf(rows[0].roles)).toBeNull();
    expect({ ...rows[0].roles.constructor }).toEqual({ name: '홍길동', email: 'hong@example.com' });
    expect(Object.name).toBe('Object');
    expect((Object as unknown as Record<string, unknown>).email).toBeUndefined();
  });

  it('a header constructor.name for a template without that role is a column it does not take, named', () => {
    const { errors } = rowsFromTable(template(['employee']), ['employee.name', 'constructor.name'], [['홍길동', 'x']]);
    expect(errors).toEqual([expect.objectContaining({ row: null, column: 'constructor.name' })]);
    expect((Object as unknown as Record<string, unknown>).email).toBeUndefined();
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('a metadata column metadata.%s is refused by the rule every metadata key follows', (key) => {
    const { errors } = rowsFromTable(template(['employee']), ['employee.name', `metadata.${key}`], [['홍길동', 'x']]);
    expect(errors).toEqual([expect.objectContaining({ row: null, column: `metadata.${key}`, message: expect.stringContaining('built-in') })]);
  });

  it('variables named like built-ins are variables like any other, in a null-prototype map', () => {
    const { rows, errors } = rowsFromTable(template(['employee'], ['constructor', 'toString']), ['employee.name', 'variables.constructor', 'variables.toString'], [['홍길동', '갑', '을']]);
    expect(errors).toEqual([]);
    expect({ ...rows[0].variables }).toEqual({ constructor: '갑', toString: '을' });
  });

  it.each([
    ['NUL in a metadata cell', ['employee.name', 'metadata.note'], ['홍길동', 'a\u0000b'], 'metadata.note'],
    ['NUL in a variables cell', ['employee.name', 'variables.company'], ['홍길동', '도장\u0000'], 'variables.company'],
    ['a lone surrogate in a name', ['employee.name'], ['홍\ud800'], 'employee.name'],
    ['an escape character in external_id', ['employee.name', 'external_id'], ['홍길동', 'E-\u001b1'], 'external_id'],
  ])('%s is refused, naming the row and column', (_what, header, cells, column) => {
    const { errors } = rowsFromTable(template(['employee'], ['company']), header, [['김철수', ...header.slice(1).map(() => 'ok')], cells]);
    expect(errors).toEqual([expect.objectContaining({ row: 2, column })]);
  });

  it('a header holding NUL is refused', () => {
    const { errors } = rowsFromTable(template(['employee']), ['employee.name', 'metadata.a\u0000'], [['홍길동', 'x']]);
    expect(errors).toEqual([expect.objectContaining({ row: null })]);
  });

  it('tab, line feed and Korean text are cells like any other', () => {
    const { errors } = rowsFromTable(template(['employee']), ['employee.name', 'metadata.note'], [['홍길동', '1행\n2행\t끝']]);
    expect(errors).toEqual([]);
  });
});

describe('rowsFromTable: errors name the canonical column, whatever the sheet headed it (issue 32)', () => {
  const header = ['직원.이름', '직원.휴대폰', '사번', '제목'];
  const ok = ['김지원', '010-1111-2222', 'E-0001', '김지원 근로계약서'];

  it.each([
    ['the phone', 1, '직원.phone', '직원.휴대폰'],
    ['the name', 0, '직원.name', '직원.이름'],
    ['a plain column kept as metadata', 2, 'metadata.사번', '사번'],
    ['the title', 3, 'title', '제목'],
  ])('a bad cell of %s is reported under its canonical column, the header as written in the message', (_what, index, column, written) => {
    const bad = ok.map((cell, j) => (j === index ? `${cell}\u0000` : cell));
    const { errors } = rowsFromTable(template(['직원']), header, [ok, bad]);
    expect(errors).toEqual([{ row: 2, column, code: 'invalid_parameter', message: expect.stringContaining(`column ${column} (headed "${written}")`) }]);
  });

  it('a column given twice under two names (직원.휴대폰 and 직원.phone) is refused under its canonical name, rather than one silently winning', () => {
    const { errors } = rowsFromTable(template(['직원']), [...header, '직원.phone'], [[...ok, '010-9999-0000']]);
    expect(errors).toEqual([{ row: null, column: '직원.phone', code: 'invalid_parameter', message: 'Columns "직원.휴대폰" and "직원.phone" both give 직원.phone: keep one.' }]);
    const twice = rowsFromTable(template(['직원']), ['직원.이름', '제목', 'title'], [['김지원', '갑', '을']]);
    expect(twice.errors).toEqual([expect.objectContaining({ row: null, column: 'title' })]);
  });

  it('reads the Korean headers into the API\'s keys', () => {
    const { rows, errors } = rowsFromTable(template(['직원']), header, [ok]);
    expect(errors).toEqual([]);
    expect({ ...rows[0].roles['직원'] }).toEqual({ name: '김지원', phone: '010-1111-2222' });
    expect({ ...rows[0].metadata }).toEqual({ 사번: 'E-0001' });
    expect(rows[0].title).toBe('김지원 근로계약서');
  });
});
