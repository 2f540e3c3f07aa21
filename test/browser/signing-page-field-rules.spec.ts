import { buildSync } from 'esbuild';
import * as path from 'path';
import * as vm from 'vm';
import { FIELD_RULE_REASONS, draftValues, resolveSignerValues } from '@dojang/domain';
import { SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';

/**
 * The signing page checks a value as the signer confirms it with the domain's own field rules
 * (libs/domain field-rules.ts, imported by field-checks.js and bundled in by esbuild); the server
 * checks it again at PUT …/draft and Sign. One source, so what is held here is what the bundling
 * could still change: the page's module, bundled by esbuild as the page gets it (the tsconfig
 * `paths` resolving the domain's module), run on a grid of fields and typed values beside the
 * server's own entry points (draftValues, resolveSignerValues); and every reason the domain can
 * give worded in both of the page's languages.
 */
type Problem = { reason: string; [k: string]: unknown };
type PageRules = {
  recordedText: (f: object, raw: string) => string | null;
  checkValue: (f: object, v: string) => Problem | null;
  ruleText: (p: Problem) => string;
  missingValues: (fields: object[], valueOf: (f: any) => unknown) => Array<{ field: { id: string }; problem: Problem }>;
  STRINGS: Record<'ko' | 'en', Record<string, string>>;
  S: { lang: string };
};

function loadPageRules(): PageRules {
  const contents = "export * from './field-checks.js'; export { STRINGS } from './i18n.js'; export { S } from './state.js';";
  const code = buildSync({ stdin: { contents, resolveDir: SIGNING_PAGE_DIR, sourcefile: 'rules-entry.js', loader: 'js' }, bundle: true, write: false, format: 'cjs', platform: 'neutral', logLevel: 'silent' })
    .outputFiles[0].text;
  const module = { exports: {} as PageRules };
  vm.runInNewContext(code, { module, exports: module.exports });
  return module.exports;
}

describe('signing page field rules: the domain\'s, in the page', () => {
  const page = loadPageRules();

  it('word every reason the domain gives in Korean and in English', () => {
    expect(FIELD_RULE_REASONS.length).toBeGreaterThanOrEqual(20);
    const unworded = FIELD_RULE_REASONS.flatMap((reason) =>
      (['ko', 'en'] as const).filter((lang) => !(page.STRINGS[lang][`rule_${reason}`] ?? '').trim()).map((lang) => `${lang}: rule_${reason}`),
    );
    expect(unworded).toEqual([]);
    // No rule message left over from a reason that no longer exists.
    const stale = (['ko', 'en'] as const).flatMap((lang) => Object.keys(page.STRINGS[lang]).filter((k) => k.startsWith('rule_') && !FIELD_RULE_REASONS.includes(k.slice(5) as never)));
    expect(stale).toEqual([]);
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
    'a', '곽뙇희', 'ABCDEFGHIJ', 'ABCDEFGHIJK', '12345', '123456', '첫 줄\n둘째 줄', '한 줄\r', '123-4567', '1234567', '똠방', '   ', '',
    '0', '-0', '42', '-12.5', '12.345', '1.5', '1e3', '1,000', '100000000', '100000001', '-11', '999999999999999', '0.123456', ' 7',
    '3,500,000', '3500000원', '3,500,000 원', '₩3,500,000', '￦1,000', '−12.5', '3,5,0', '35,00,000', '1,234.56', '1,234.567', '0003',
    '2027-01-02', '2027-02-29', '2028-02-29', '2027-13-01', '27-01-02', '2027-1-2', '1995.03.15', '1995. 3. 15.', '1995/3/15', '1995년 3월 15일',
    '1995년3월15일', '1995.02.30', '1995.3-15', '정규직', '계약직', '인턴', 'x'.repeat(1001),
  ];

  it.each(fields.map((f) => [JSON.stringify(f), f]))('%s: the page refuses, records and words what the server does', (_name, f) => {
    const disagree: string[] = [];
    for (const raw of values) {
      let server: { ok: unknown } | { refused: string };
      try {
        server = { ok: draftValues([{ id: 'f1', participant_id: 'p1', required: false, ...f } as never], 'p1', { f1: raw }).f1 };
      } catch (error) {
        server = { refused: (error as { code?: string }).code ?? String(error) };
      }
      const recorded = page.recordedText(f, raw);
      const problem = recorded === null ? null : page.checkValue(f, recorded);
      const mine = problem ? { refused: 'field_value_invalid' } : { ok: recorded };
      if (JSON.stringify(mine) !== JSON.stringify(server)) disagree.push(`${JSON.stringify(raw)}: server ${JSON.stringify(server)}, page ${JSON.stringify(mine)}`);
      // Worded from the catalogue, every placeholder filled, in either language.
      for (const lang of ['ko', 'en']) {
        page.S.lang = lang;
        if (problem && /\{\w+\}|^rule_/.test(page.ruleText(problem))) disagree.push(`${JSON.stringify(raw)} (${lang}): ${page.ruleText(problem)}`);
      }
    }
    page.S.lang = 'ko';
    expect(disagree).toEqual([]);
  });

  it('take an amount as Koreans write it and refuse a misplaced comma in Korean', () => {
    const f = { type: 'number', min: 0, max: 100_000_000 };
    page.S.lang = 'ko';
    expect(page.recordedText(f, '3,500,000')).toBe('3500000');
    expect(page.checkValue(f, '3500000')).toBeNull();
    const problem = page.checkValue(f, page.recordedText(f, '3,5,0') as string);
    expect(problem).toEqual({ reason: 'not_number' });
    expect(page.ruleText(problem as Problem)).toBe('숫자로 입력해 주세요 (예: 3500000, 3,500,000, 3,500,000원, -12.5).');
    expect(page.recordedText({ type: 'date' }, '1995년 3월 15일')).toBe('1995-03-15');
  });

  it('judge checkbox and radio groups as signing does', () => {
    const box = (id: string, extra: object = {}) => ({ id, participant_id: 'p1', type: 'checkbox', group: 'g', required: false, ...extra });
    const radio = (id: string, extra: object = {}) => ({ id, participant_id: 'p1', type: 'radio', group: 'r', option: id, required: false, ...extra });
    const groups: Array<[string, object[]]> = [
      ['checkboxes 1..2', [box('a', { min_checked: 1, max_checked: 2 }), box('b'), box('c')]],
      ['checkboxes, b required', [box('a'), box('b', { required: true }), box('c')]],
      ['radio required', [radio('x', { required: true }), radio('y')]],
      ['radio optional', [radio('x'), radio('y')]],
    ];
    const disagree: string[] = [];
    for (const [name, members] of groups) {
      const ids = members.map((m) => (m as { id: string }).id);
      // Every subset of the members checked.
      for (let mask = 0; mask < 1 << ids.length; mask++) {
        const checked = new Set(ids.filter((_id, i) => mask & (1 << i)));
        let server = 'ok';
        try {
          resolveSignerValues(members as never, { id: 'p1', name: '곽뙇희', email: null, phone: null }, Object.fromEntries(ids.map((id) => [id, checked.has(id)])), '2027-01-02T00:00:00Z', 'Asia/Seoul');
        } catch (error) {
          server = (error as { code?: string }).code ?? String(error);
        }
        const missing = page.missingValues(members, (f) => checked.has(f.id));
        const mine = missing.length === 0 ? 'ok' : missing[0].problem.reason;
        if ((server === 'ok') !== (mine === 'ok')) disagree.push(`${name} [${[...checked].join(',')}]: server ${server}, page ${mine}`);
      }
    }
    expect(disagree).toEqual([]);
  });
});
