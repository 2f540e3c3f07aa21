import * as iconv from 'iconv-lite';
import { decodeTable, TableInputError } from './parse-table';

const CSV = 'employee.name,employee.phone\n홍길동,010-1234-5678\n김철수,010-2222-3333\n';

function problemOf(bytes: Uint8Array, encoding?: string) {
  try {
    decodeTable(bytes, encoding);
  } catch (err) {
    if (err instanceof TableInputError) return err.problems[0];
    throw err;
  }
  throw new Error('decoded');
}

describe('decodeTable (issue 33 §14)', () => {
  it('reads UTF-8 with or without a BOM, and EUC-KR that is valid EUC-KR', () => {
    expect(decodeTable(Buffer.from(CSV, 'utf8'))).toBe(CSV);
    expect(decodeTable(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(CSV, 'utf8')]))).toBe(CSV);
    expect(decodeTable(iconv.encode(CSV, 'cp949'))).toBe(CSV);
    expect(decodeTable(iconv.encode(CSV, 'cp949'), 'euc-kr')).toBe(CSV);
  });

  it('refuses a UTF-8 file with one invalid byte instead of reading it whole as EUC-KR, naming the row', () => {
    const utf8 = Buffer.from(CSV, 'utf8');
    // 0xff is in neither encoding; placed in the second data row (김철수's name).
    const at = utf8.indexOf(Buffer.from('김철수', 'utf8'));
    const broken = Buffer.concat([utf8.subarray(0, at), Buffer.from([0xff]), utf8.subarray(at)]);
    const problem = problemOf(broken);
    expect(problem).toMatchObject({ row: 2, code: 'invalid_parameter' });
    expect(problem.message).toMatch(/neither valid UTF-8 \(line 3/);
  });

  it('a UTF-8 file that happens to be valid EUC-KR byte for byte is still read as UTF-8', () => {
    expect(decodeTable(Buffer.from('a,b\n1,2\n', 'utf8'))).toBe('a,b\n1,2\n');
  });

  it('encoding=euc-kr on bytes that are not EUC-KR is refused naming the row, not garbled', () => {
    const bytes = Buffer.concat([iconv.encode('employee.name\n홍길동\n', 'cp949'), Buffer.from([0xff, 0x0a])]);
    expect(problemOf(bytes, 'euc-kr')).toMatchObject({ row: 2, message: expect.stringContaining('not valid EUC-KR') });
  });

  it('encoding=utf-8 on bytes that are not UTF-8 names the line', () => {
    expect(problemOf(iconv.encode(CSV, 'cp949'), 'utf-8')).toMatchObject({ row: 1, message: expect.stringContaining('line 2') });
  });
});
