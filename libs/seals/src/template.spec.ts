import { extractTemplateVariables, renderTemplate } from '@dojang/seals';

describe('extractTemplateVariables', () => {
  it('finds distinct names in order, allowing whitespace inside the braces', () => {
    const content = '<p>{{name}} and {{ company.name }} on {{\tsigned-at }}; again {{name}}</p>';
    expect(extractTemplateVariables(content)).toEqual(['name', 'company.name', 'signed-at']);
  });

  it('ignores braces around things that are not names', () => {
    expect(extractTemplateVariables('{{ 1st }} {{a b}} {{}} {name} {{_ok}} {{ 1번 }} {{직원\u0000}}')).toEqual(['_ok']);
  });

  it('finds names in any script, composed (NFC)', () => {
    expect(extractTemplateVariables(`<p>{{직원.이름}} {{ 급여 }} {{${'급여'.normalize('NFD')}}}</p>`)).toEqual(['직원.이름', '급여']);
  });
});

describe('renderTemplate', () => {
  it('substitutes escaped values', () => {
    const out = renderTemplate('<p title="{{ t }}">{{name}} owes {{amount}} ({{paid}})</p>', {
      t: `"quoted" & 'single'`,
      name: '<script>alert(1)</script>',
      amount: 1500000,
      paid: false,
    });
    expect(out).toEqual({
      ok: true,
      html:
        '<p title="&quot;quoted&quot; &amp; &#39;single&#39;">' +
        '&lt;script&gt;alert(1)&lt;/script&gt; owes 1500000 (false)</p>',
    });
  });

  it('keeps Korean values and empty strings; Korean names are placeholders as Latin ones are (the role-name rule)', () => {
    expect(renderTemplate('{{갑}}{{ a }}|{{b}}', { 갑: '갑', a: '홍길동', b: '' })).toEqual({ ok: true, html: '갑홍길동|' });
    expect(renderTemplate('{{ 직원.이름 }}님, 월 {{급여}}', { 직원: { 이름: '김지원' }, 급여: '3,500,000원' })).toEqual({ ok: true, html: '김지원님, 월 3,500,000원' });
    expect(renderTemplate('{{ 직원.이름 }}', {})).toEqual({ ok: false, missing: ['직원.이름'], invalid: [] });
  });

  it('reads a placeholder typed decomposed (macOS) as the composed name a client sends', () => {
    expect(renderTemplate(`{{${'이름'.normalize('NFD')}}}`, { 이름: '김지원' })).toEqual({ ok: true, html: '김지원' });
  });

  it('names every missing variable once, in order', () => {
    const out = renderTemplate('{{ b }} {{a}} {{b}} {{c}} {{ d }}', { c: 'x', d: null });
    expect(out).toEqual({ ok: false, missing: ['b', 'a', 'd'], invalid: [] });
  });

  it('treats objects, arrays and non-finite numbers as invalid', () => {
    const out = renderTemplate('{{o}} {{arr}} {{nan}} {{inf}} {{fn}}', {
      o: { x: 1 },
      arr: [1],
      nan: NaN,
      inf: Infinity,
      fn: () => 'x',
    });
    expect(out).toEqual({
      ok: false,
      missing: ['o', 'arr', 'nan', 'inf', 'fn'],
      invalid: ['o', 'arr', 'nan', 'inf', 'fn'],
    });
  });

  it('resolves dotted names as literal keys first, then nested paths', () => {
    const out = renderTemplate('{{party.name}} / {{party.phone}}', {
      'party.name': 'literal',
      party: { name: 'nested', phone: '010' },
    });
    expect(out).toEqual({ ok: true, html: 'literal / 010' });
  });

  it('does not reach inherited properties', () => {
    const out = renderTemplate('{{constructor}} {{toString}} {{a.constructor.name}}', { a: {} });
    expect(out).toEqual({ ok: false, missing: ['constructor', 'toString', 'a.constructor.name'], invalid: [] });
  });

  it('does not expand placeholders inside substituted values', () => {
    expect(renderTemplate('{{a}}', { a: '{{b}}', b: 'x' })).toEqual({ ok: true, html: '<span>{</span><span>{</span>b<span>}</span><span>}</span>' });
  });

  it('inserts a value as text whose braces can never form a field placeholder (issue 33 §13)', () => {
    const out = renderTemplate('<p>{{note}}</p><p>{{signature:emp}}</p>', { note: '{{signature:emp}}' });
    expect(out).toEqual({ ok: true, html: '<p><span>{</span><span>{</span>signature:emp<span>}</span><span>}</span></p><p>{{signature:emp}}</p>' });
    // Even with the template's own braces around it.
    expect(renderTemplate('<p>{{{a}}signature:emp}}</p>', { a: '{' })).toEqual({ ok: true, html: '<p>{<span>{</span>signature:emp}}</p>' });
  });

  it('in an attribute value, a value\'s braces become character references', () => {
    expect(renderTemplate('<img alt="{{a}}">', { a: '{{x}}' })).toEqual({ ok: true, html: '<img alt="&#123;&#123;x&#125;&#125;">' });
  });

  it('leaves content without placeholders unchanged', () => {
    expect(renderTemplate('<b>plain {text}</b>', {})).toEqual({ ok: true, html: '<b>plain {text}</b>' });
  });
});
