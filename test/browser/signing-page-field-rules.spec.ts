import { buildSync } from 'esbuild';
import * as path from 'path';
import * as vm from 'vm';
import { AUTO_FIELD_TYPES, IMAGE_FIELD_TYPES, MARK_FIELD_TYPES, valueProblem } from '@dojang/domain';
import { SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';

/**
 * The signing page checks a value as the signer confirms it (field-rules.js), the server checks it
 * again at PUT …/draft and Sign with the domain's rules (libs/domain field-types.ts valueProblem).
 * The domain's module words its problems in English for integrators and compiles patterns with
 * V8's linear-time engine, which no browser has, so the page keeps its own statement of the rules,
 * and this spec holds the two to the same answers: the page's module, bundled by esbuild as the
 * page gets it, run on a grid of fields and values beside the domain's.
 */
type PageRules = {
  valueProblem: (f: object, v: string) => [string, object] | null;
  normalize: (f: object, raw: string) => string | null;
  AUTO_TYPES: string[];
  IMAGE_TYPES: string[];
  MARK_TYPES: string[];
};

function loadPageRules(): PageRules {
  const code = buildSync({ entryPoints: [path.join(SIGNING_PAGE_DIR, 'field-rules.js')], bundle: true, write: false, format: 'cjs', platform: 'neutral', logLevel: 'silent' }).outputFiles[0].text;
  const module = { exports: {} as PageRules };
  vm.runInNewContext(code, { module, exports: module.exports });
  return module.exports;
}

describe('signing page field rules agree with the domain', () => {
  const page = loadPageRules();

  it('name the same automatic, image and mark types', () => {
    expect([...page.AUTO_TYPES].sort()).toEqual([...AUTO_FIELD_TYPES].sort());
    expect([...page.IMAGE_TYPES].sort()).toEqual([...IMAGE_FIELD_TYPES].sort());
    expect([...page.MARK_TYPES].sort()).toEqual([...MARK_FIELD_TYPES].sort());
  });

  const fields: Array<Record<string, unknown> & { type: string }> = [
    { type: 'initials' },
    { type: 'text' },
    { type: 'text', max_length: 5 },
    { type: 'text', multiline: true, max_length: 20 },
    { type: 'text', pattern: '[0-9]{3}-[0-9]{4}', pattern_message: '000-0000' },
    { type: 'text', pattern: '[가-힣]+' },
    { type: 'number' },
    { type: 'number', decimals: 2, min: -10, max: 1000 },
    { type: 'number', min: 0, max: 100_000_000 },
    { type: 'date' },
    { type: 'dropdown', options: ['정규직', '계약직'] },
  ];
  const values = [
    'a', '곽뙇희', 'ABCDEFGHIJ', 'ABCDEFGHIJK', '12345', '123456', '첫 줄\n둘째 줄', '한 줄\r', '123-4567', '1234567', '똠방',
    '0', '-0', '42', '-12.5', '12.345', '1.5', '1e3', '1,000', '100000000', '100000001', '-11', '999999999999999', '0.123456', ' 7',
    '2027-01-02', '2027-02-29', '2028-02-29', '2027-13-01', '27-01-02', '2027-1-2', '정규직', '계약직', '인턴', 'x'.repeat(1001),
  ];

  it.each(fields.map((f) => [JSON.stringify(f), f]))('%s: the page refuses exactly what the domain refuses', (_name, f) => {
    const disagree: string[] = [];
    for (const raw of values) {
      // The page normalizes (trims) before checking, as the server records a trimmed value.
      const v = page.normalize(f, raw);
      if (v == null) continue;
      const domain = valueProblem(f as never, v);
      const mine = page.valueProblem(f, v);
      if ((domain === null) !== (mine === null)) disagree.push(`${JSON.stringify(v)}: domain ${domain ?? 'ok'}, page ${mine ? mine[0] : 'ok'}`);
    }
    expect(disagree).toEqual([]);
  });
});
