import { formatZonedDateTime } from '@dojang/domain';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { Client, client, expectError, expectStatus } from '../support/api-helpers';
import { SIGNATURE, outboxOf, sentWith, signer, tokenOf } from '../support/lifecycle';
import { bearer, TestOrg, useTestApp } from '../support/test-app';
import { binary } from '../files/file-helpers';

/**
 * An HR integrator's data as Koreans write it (issue 32 items 1 and 4), through the API on the
 * embedded store (no store behaviour is involved): phones that cannot receive a text refused at
 * every entry with the param named, a template whose roles are 직원 and 대표 and whose CSV columns
 * say 직원.휴대폰, and amounts and dates typed 3,500,000원 and 1995. 3. 15. that come back in the
 * PDF, the audit certificate and form_data in the field's display format.
 */
describe('Korean input as written', () => {
  const t = useTestApp();
  let org: TestOrg;
  let c: Client;
  let template: { id: string; fields: { id: string; label?: string }[] };
  beforeAll(async () => {
    org = await t.createOrg('주식회사 도장');
    c = client(t, org.test);
    template = expectStatus(
      await c.post('/templates', {
        name: '근로계약서',
        content: '<p>{{ 성명 }}님의 근로계약서</p>',
        roles: [
          { role: '직원', participant_role: 'signer', auth: 'sms_pin' },
          { role: '대표', participant_role: 'signer', signing_order: 2, auth: 'none' },
        ],
        fields: [
          { role: '직원', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 },
          { role: '직원', type: 'number', label: '월 급여', number_format: 'won', page: 1, x: 10, y: 40, width: 40, height: 4 },
          { role: '직원', type: 'date', label: '생년월일', page: 1, x: 10, y: 46, width: 40, height: 4 },
          { role: '직원', type: 'number', label: '상여금', number_format: 'krw', read_only: true, value: '0', page: 1, x: 10, y: 52, width: 40, height: 4 },
          { role: '대표', type: 'signature', page: 1, x: 60, y: 80, width: 30, height: 8 },
        ],
      }),
      201,
    ).body;
  });

  const templateField = (label: string) => template.fields.find((f) => f.label === label)!.id;
  const request = (key: string, body: object) => t.http.post('/v1/signature_requests').set(bearer(org.test)).set('Idempotency-Key', key).send(body);
  /** What cannot take a text message, and the code each is refused with. */
  const UNREACHABLE: [string, string][] = [
    ['1588-1234', 'phone_not_mobile'],
    ['02-123-4567', 'phone_not_mobile'],
    ['+82 2 123 4567', 'phone_not_mobile'],
    ['070-1234-5678', 'phone_not_mobile'],
    ['010-1234-567', 'phone_invalid'],
    ['+999 1234', 'phone_invalid'],
  ];

  it('keeps the template\'s Korean role names and {{ 성명 }} as written', async () => {
    const read = expectStatus(await c.get(`/templates/${template.id}`), 200).body;
    expect(read.roles.map((r: { role: string }) => r.role)).toEqual(['직원', '대표']);
    expect(read.variables).toEqual(['성명']);
    // A role name is still a CSV prefix and a param: no dots, no control characters.
    const base = { name: 'x', content: '<p>x</p>', fields: [] };
    expectError(await c.post('/templates', { ...base, roles: [{ role: '직원.정규' }] }), 400, 'invalid_parameter', 'roles[0].role');
    expectError(await c.post('/templates', { ...base, roles: [{ role: '직원\u0007' }] }), 400, 'invalid_parameter', 'roles[0].role');
    // Typed on a Mac (decomposed), the same 직원. (A cc: a signer role needs a field since templates are checked when saved.)
    const nfd = expectStatus(await c.post('/templates', { ...base, roles: [{ role: '직원'.normalize('NFD'), participant_role: 'cc', auth: 'none' }] }), 201).body;
    expect(nfd.roles[0].role).toBe('직원');
  });

  it('refuses a phone that cannot receive a text at every entry, naming the param; international mobiles are kept in E.164', async () => {
    const doc = expectStatus(await c.post('/documents', { title: '계약서', content: '<p>본문</p>' }), 201).body;
    for (const [phone, code] of UNREACHABLE) {
      expectError(await c.post(`/documents/${doc.id}/participants`, { name: '갑', phone }), 400, code, 'phone');
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: '갑', phone: '010-1234-5678' }, { name: '을', phone }] }), 400, code, 'participants[1].phone');
      const roles = { 직원: { name: '김지원', phone }, 대표: { name: '홍길동', email: 'ceo@example.com' } };
      expectError(await request(`phone-${phone}`, { template_id: template.id, roles, variables: { 성명: '김지원' } }), 400, code, 'roles.직원.phone');
    }
    // Nothing half-written: the refused participants are not on the draft.
    expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.participants).toEqual([]);
    for (const [phone, stored] of [
      ['+1 415 555 2671', '+14155552671'],
      ['+81 90-1234-5678', '+819012345678'],
      ['+84 91 234 56 78', '+84912345678'],
      ['010-1234-5678', '01012345678'],
    ]) {
      expect(expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '갑', auth: 'none', phone }), 201).body.phone).toBe(stored);
    }

    // After send: a correction and a delegation.
    const sent = await sentWith(c, [{ name: '김부장', email: 'kim@example.com', auth: 'none', allow_delegation: true }]);
    for (const [phone, code] of UNREACHABLE) {
      expectError(await c.patch(`/documents/${sent.id}/participants/${sent.p['김부장'].id}`, { phone }), 400, code, 'phone');
      expectError(await t.http.post(`/v1/signing/${sent.p['김부장'].token}/delegate`).send({ name: '박대리', phone }), 400, code, 'phone');
    }
    // The link still works: nothing was corrected or delegated.
    expectStatus(await signer(t, sent.p['김부장'].token).view(), 200);
  });

  it('reports unreachable phones of bulk rows in the dry run by row, column and code, from JSON and from a CSV headed in Korean', async () => {
    const row = (phone: string) => ({ roles: { 직원: { name: '김지원', phone }, 대표: { name: '홍길동', email: 'ceo@example.com' } }, variables: { 성명: '김지원' } });
    const json = expectStatus(await c.post('/bulk_sends', { template_id: template.id, dry_run: true, rows: [row('010-4000-0001'), ...UNREACHABLE.map(([p]) => row(p))] }), 200).body;
    expect(json).toMatchObject({ object: 'bulk_send_validation', row_count: 7, valid_rows: 1 });
    expect(json.errors.map((e: any) => [e.row, e.column, e.code])).toEqual(UNREACHABLE.map(([, code], i) => [i + 2, '직원.phone', code]));

    const csv = ['직원.이름,직원.휴대폰,대표.이름,대표.이메일,variables.성명', '김지원,010-4000-0001,홍길동,ceo@example.com,김지원', ...UNREACHABLE.map(([p]) => `박하늘,${p},홍길동,ceo@example.com,박하늘`)].join('\r\n');
    const upload = (query: string) =>
      t.http.post(`/v1/bulk_sends/upload?template_id=${template.id}${query}`).set(bearer(org.test)).attach('file', Buffer.from(csv), { filename: '직원.csv', contentType: 'text/csv' });
    const report = expectStatus(await upload('&dry_run=true'), 200).body;
    expect(report).toMatchObject({ row_count: 7, valid_rows: 1 });
    expect(report.errors.map((e: any) => [e.row, e.column, e.code])).toEqual(UNREACHABLE.map(([, code], i) => [i + 2, '직원.phone', code]));
    // Without dry_run the whole job is refused, naming the first problem.
    expectError(await upload(''), 400, 'bulk_send_invalid_rows', 'rows[2].직원.phone');
  });

  it('refuses a bad amount, date or metadata of a bulk row in the dry run and the job as a single call refuses it, naming the field or key', async () => {
    const roles = { 직원: { name: '김지원', phone: '010-4000-0001' }, 대표: { name: '홍길동', email: 'ceo@example.com' } };
    const metadataOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
    const salary = templateField('월 급여');
    const birthday = templateField('생년월일');
    /** [what the row or request carries, code, the param of a single call, the column of a bulk row] */
    const BAD: [object, string, string, string][] = [
      [{ values: { [salary]: '3,5,0' } }, 'field_value_invalid', `values.${salary}`, `values.${salary}`],
      [{ values: { [salary]: '1e400' } }, 'field_value_invalid', `values.${salary}`, `values.${salary}`],
      [{ values: { [birthday]: '1995.02.30' } }, 'field_value_invalid', `values.${birthday}`, `values.${birthday}`],
      [{ metadata: metadataOf(21) }, 'invalid_parameter', 'metadata.k20', 'metadata.k20'],
      [{ metadata: { 사번: 'E'.repeat(501) } }, 'invalid_parameter', 'metadata.사번', 'metadata.사번'],
    ];
    for (const [i, [over, code, param]] of BAD.entries()) {
      expectError(await request(`bad-input-${i}`, { template_id: template.id, roles, variables: { 성명: '김지원' }, ...over }), 400, code, param);
    }
    const rows = [{ roles, variables: { 성명: '김지원' } }, ...BAD.map(([over]) => ({ roles, variables: { 성명: '김지원' }, ...over }))];
    const dry = expectStatus(await c.post('/bulk_sends', { template_id: template.id, dry_run: true, rows }), 200).body;
    expect(dry).toMatchObject({ row_count: 6, valid_rows: 1 });
    expect(dry.errors.map((e: any) => [e.row, e.column, e.code])).toEqual(BAD.map(([, code, , column], i) => [i + 2, column, code]));
    // The job is refused whole, naming the first bad row's column, and nothing is sent.
    expectError(await c.post('/bulk_sends', { template_id: template.id, rows }), 400, 'bulk_send_invalid_rows', `rows[2].values.${salary}`);

    // From a CSV: a plain column is metadata, so 21 of them are a 21st key; a value of 501 characters is over its limit.
    const keys = Array.from({ length: 21 }, (_, i) => `열${i}`);
    const csv = [
      ['직원.이름', '직원.휴대폰', '대표.이름', '대표.이메일', 'variables.성명', ...keys].join(','),
      ['김지원', '010-4000-0001', '홍길동', 'ceo@example.com', '김지원', ...keys.map(() => '')].join(','),
      ['박하늘', '010-4000-0002', '홍길동', 'ceo@example.com', '박하늘', ...keys.map((k, i) => (i === 0 ? 'E'.repeat(501) : ''))].join(','),
      ['이서연', '010-4000-0003', '홍길동', 'ceo@example.com', '이서연', ...keys.map((k) => k)].join(','),
    ].join('\r\n');
    const report = expectStatus(
      await t.http.post(`/v1/bulk_sends/upload?template_id=${template.id}&dry_run=true`).set(bearer(org.test)).attach('file', Buffer.from(csv), { filename: '직원.csv', contentType: 'text/csv' }),
      200,
    ).body;
    expect(report).toMatchObject({ row_count: 3, valid_rows: 1 });
    expect(report.errors.map((e: any) => [e.row, e.column, e.code])).toEqual([
      [2, `metadata.${keys[0]}`, 'invalid_parameter'],
      [3, `metadata.${keys[20]}`, 'invalid_parameter'],
    ]);
  });

  it('takes amounts and dates as Koreans write them and shows them in the field\'s format in the PDF, the certificate and form_data', async () => {
    const roles = { 직원: { name: '김지원', phone: '010-5555-0001', auth: 'none' }, 대표: { name: '홍길동', email: 'ceo@example.com' } };
    // A prefill is read as a signer's value is: ₩1,200,000 recorded as 1200000.
    expectError(await request('amount-bad', { template_id: template.id, roles, variables: { 성명: '김지원' }, values: { [templateField('상여금')]: '1,20,000' } }), 400, 'field_value_invalid', `values.${templateField('상여금')}`);
    const res = expectStatus(await request('amount-1', { template_id: template.id, roles, variables: { 성명: '김지원' }, values: { [templateField('상여금')]: '₩1,200,000' } }), 201).body;
    const doc = expectStatus(await c.get(`/documents/${res.id}`), 200).body;
    const id = (label: string) => doc.fields.find((f: any) => f.label === label).id as string;
    expect(doc.fields.find((f: any) => f.label === '상여금')).toMatchObject({ value: '1200000', number_format: 'krw' });
    const token = (name: string) => tokenOf(doc.participants.find((p: any) => p.name === name).signing_url);
    const employee = signer(t, token('김지원'));

    for (const [label, written, message] of [
      ['월 급여', '3,5,0', /commas only between groups of three/],
      ['월 급여', '1e400', /no exponent/],
      ['생년월일', '1995.02.30', /day of the calendar/],
    ] as const) {
      const values = { [id('월 급여')]: '3,500,000원', [id('생년월일')]: '1995. 3. 15.', [id(label)]: written };
      const err = expectError(await employee.sign({ consent: true, signature: SIGNATURE, values }), 400, 'field_value_invalid', `values.${id(label)}`);
      expect(err.message).toMatch(message);
      expect(err.message).toContain(label);
    }
    expectStatus(await employee.sign({ consent: true, signature: SIGNATURE, values: { [id('월 급여')]: '3,500,000원', [id('생년월일')]: '1995. 3. 15.' } }), 200);
    expectStatus(await signer(t, token('홍길동')).sign(), 200);

    const form = expectStatus(await c.get(`/documents/${doc.id}/form_data`), 200).body;
    expect(form.status).toBe('completed');
    const shown = (label: string) => form.data.find((d: any) => d.field_id === id(label));
    expect(shown('월 급여')).toMatchObject({ type: 'number', value: '3500000', display_value: '3,500,000원' });
    expect(shown('생년월일')).toMatchObject({ type: 'date', value: '1995-03-15', display_value: '1995년 3월 15일' });
    expect(shown('상여금')).toMatchObject({ type: 'number', value: '1200000', display_value: '₩1,200,000' });

    const download = (query = '') => t.http.get(`/v1/documents/${doc.id}/file${query}`).set(bearer(org.test)).buffer(true).parse(binary).expect(200);
    const pdf = pdftotext((await download()).body as Buffer);
    const certificate = pdftotext((await download('?audit=true')).body as Buffer);
    for (const text of [pdf, certificate]) {
      for (const value of ['3,500,000원', '1995년 3월 15일', '₩1,200,000']) expect(text).toContain(value);
      expect(text).not.toContain('3500000');
    }
  });

  it('prints dates in the organization\'s date format, recorded on each document at send, in the PDF, the certificate, form_data and messages', async () => {
    const other = await t.createOrg('주식회사 날짜');
    const oc = client(t, other.test);
    expect(expectStatus(await oc.get('/organization'), 200).body.date_format).toBe('YYYY년 M월 D일');
    for (const bad of ['DD/MM/YYYY', '', 'yyyy.mm.dd']) {
      const err = expectError(await oc.patch('/organization', { date_format: bad }), 400, 'invalid_parameter', 'date_format');
      expect(err.message).toContain('YYYY. M. D.');
    }
    expectError(await oc.patch('/organization', { date_format: 19950315 }), 400, 'invalid_parameter', 'date_format');
    expect(expectStatus(await oc.patch('/organization', { date_format: 'YYYY. M. D.' }), 200).body.date_format).toBe('YYYY. M. D.');

    const tmpl = expectStatus(
      await oc.post('/templates', {
        name: '근로계약서',
        content: '<p>근로계약서</p>',
        roles: [
          { role: '직원', auth: 'none' },
          { role: '대표', signing_order: 2, auth: 'none' },
        ],
        fields: [
          { role: '직원', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 },
          { role: '직원', type: 'date', label: '생년월일', page: 1, x: 10, y: 46, width: 40, height: 4 },
          { role: '직원', type: 'date', label: '입사일', locale: 'en', page: 1, x: 10, y: 52, width: 40, height: 4 },
          { role: '대표', type: 'signature', page: 1, x: 60, y: 80, width: 30, height: 8 },
        ],
      }),
      201,
    ).body;
    const roles = { 직원: { name: '김지원', email: 'kim@example.com' }, 대표: { name: '홍길동', email: 'ceo@example.com' } };
    const sent = expectStatus(await t.http.post('/v1/signature_requests').set(bearer(other.test)).set('Idempotency-Key', 'date-format').send({ template_id: tmpl.id, roles }), 201).body;
    // Settings changed after send leave the document as it was sent.
    expectStatus(await oc.patch('/organization', { date_format: 'YYYY-MM-DD' }), 200);
    const id = (label: string) => sent.fields.find((f: any) => f.label === label).id as string;
    const token = (name: string) => tokenOf(sent.participants.find((p: any) => p.name === name).signing_url);
    // The signing session gives the page the format recorded at send, not the organization's now.
    expect(expectStatus(await t.http.get(`/v1/signing/${token('김지원')}`), 200).body.document.date_format).toBe('YYYY. M. D.');
    expectStatus(await signer(t, token('김지원')).sign({ consent: true, signature: SIGNATURE, values: { [id('생년월일')]: '1995년 3월 15일', [id('입사일')]: '2027. 1. 4.' } }), 200);
    expectStatus(await signer(t, token('홍길동')).sign(), 200);

    const form = expectStatus(await oc.get(`/documents/${sent.id}/form_data`), 200).body;
    const shown = (label: string) => form.data.find((d: any) => d.field_id === id(label));
    expect(shown('생년월일')).toMatchObject({ value: '1995-03-15', display_value: '1995. 3. 15.' });
    // A field that gives its own locale keeps it.
    expect(shown('입사일')).toMatchObject({ value: '2027-01-04', display_value: '2027-01-04' });
    const download = (query = '') => t.http.get(`/v1/documents/${sent.id}/file${query}`).set(bearer(other.test)).buffer(true).parse(binary).expect(200);
    for (const text of [pdftotext((await download()).body as Buffer), pdftotext((await download('?audit=true')).body as Buffer)]) {
      expect(text).toContain('1995. 3. 15.');
      expect(text).not.toContain('1995년 3월 15일');
    }

    // A message writes the date of a time as the organization does when it is made: the
    // representative's request, made when the employee signed, after the change (YYYY-MM-DD).
    const request = (await outboxOf(t, oc, sent.id)).find((m) => m.kind === 'signing_request' && m.to === 'ceo@example.com');
    const deadline = formatZonedDateTime(sent.expires_at, 'Asia/Seoul', 'ko', 'YYYY-MM-DD');
    expect(deadline).toMatch(/^\d{4}-\d{2}-\d{2} 오[전후] /);
    expect(JSON.stringify(request)).toContain(deadline);
  });
});
