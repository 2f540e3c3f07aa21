import { Client, client, expectError, expectStatus } from '../support/api-helpers';
import { outboxOf, signer, tokenOf } from '../support/lifecycle';
import { bearer, TestOrg, useTestApp } from '../support/test-app';

/**
 * Templates that carry a whole contract (issue 21 item 9): roles and fields, versions, archiving,
 * and POST /v1/signature_requests sending one from a template with role assignments.
 */
describe('templates with roles and fields, sent in one call', () => {
  const t = useTestApp();
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg('주식회사 도장');
    c = client(t, org.test);
  });

  const TEMPLATE = {
    name: '근로계약서',
    content: '<h2>근로계약서</h2><p>{{company}}(이하 "회사")와 {{employee_name}}(이하 "근로자")는 다음과 같이 근로계약을 체결한다.</p><p>근무 시작일: {{start_date}}</p>',
    roles: [
      { role: 'employee', participant_role: 'signer', signing_order: 1, auth: 'sms_pin' },
      { role: 'representative', participant_role: 'signer', signing_order: 2, auth: 'none' },
      { role: 'hr', participant_role: 'cc' },
    ],
    fields: [
      { role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 },
      { role: 'employee', type: 'text', label: '주소', page: 1, x: 10, y: 60, width: 60, height: 5, max_length: 100 },
      { role: 'representative', type: 'seal', page: 1, x: 60, y: 80, width: 15, height: 10 },
    ],
  };
  const send = (key: string, body: object) => t.http.post('/v1/signature_requests').set(bearer(org.test)).set('Idempotency-Key', key).send(body);
  const roles = {
    employee: { name: '김지원', phone: '010-1234-5678' },
    representative: { name: '홍길동', email: 'ceo@example.com' },
    hr: { name: '인사팀', email: 'hr@example.com' },
  };
  const variables = { company: '주식회사 도장', employee_name: '김지원', start_date: '2027-01-02' };

  it('creates a template with roles and fields (version 1), lists it and reads it back', async () => {
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    expect(tmpl).toMatchObject({ object: 'template', version: 1, archived: false, variables: ['company', 'employee_name', 'start_date'] });
    expect(tmpl.roles).toEqual([
      { role: 'employee', participant_role: 'signer', signing_order: 1, auth: 'sms_pin', representative: false },
      { role: 'representative', participant_role: 'signer', signing_order: 2, auth: 'none', representative: false },
      // A cc never authenticates: no PIN by default.
      { role: 'hr', participant_role: 'cc', signing_order: 1, auth: 'none', representative: false },
    ]);
    expect(tmpl.fields).toHaveLength(3);
    expect(tmpl.fields[1]).toMatchObject({ role: 'employee', type: 'text', label: '주소', max_length: 100 });
    const listed = expectStatus(await c.get('/templates'), 200).body.data;
    expect(listed.find((x: { id: string }) => x.id === tmpl.id)).toMatchObject({ version: 1, roles: tmpl.roles });
  });

  it('refuses fields as PUT /documents/{id}/fields refuses them, and roles that are not unique, naming the input', async () => {
    expectError(await c.post('/templates', { ...TEMPLATE, fields: [{ ...TEMPLATE.fields[0], role: 'witness' }] }), 400, 'invalid_parameter', 'fields[0].role');
    expectError(await c.post('/templates', { ...TEMPLATE, roles: [TEMPLATE.roles[0], TEMPLATE.roles[0]], fields: [] }), 400, 'invalid_parameter', 'roles[1].role');
    expectError(await c.post('/templates', { ...TEMPLATE, fields: [{ ...TEMPLATE.fields[1], type: 'dropdown', max_length: undefined }] }), 400, 'missing_parameter', 'fields[0].options');
    expectError(await c.post('/templates', { ...TEMPLATE, fields: [{ ...TEMPLATE.fields[0], x: 95 }] }), 400, 'invalid_parameter', 'fields[0]');
  });

  it('refuses at save what sending would refuse, naming the field or role; nothing is written (issue 32 item 2)', async () => {
    const before = expectStatus(await c.get('/templates?limit=100'), 200).body.data.length;
    // A field past the template's one rendered page.
    const past = expectError(await c.post('/templates', { ...TEMPLATE, fields: [TEMPLATE.fields[0], { ...TEMPLATE.fields[2], page: 99 }] }), 400, 'field_page_out_of_range', 'fields[1].page');
    // One body: plain page numbers, nothing said of parts (pages are numbered document-wide).
    expect(past.message).toMatch(/^fields\[1\]\.page is 99 but the template has \d+ pages?\.$/);
    // A signer role with nothing to fill: every document from it would be unsendable.
    expectError(await c.post('/templates', { ...TEMPLATE, fields: [TEMPLATE.fields[0], TEMPLATE.fields[1]] }), 400, 'signer_without_required_field', 'roles[1].role');
    // An anchor the template's own render does not hold.
    const anchored = { role: 'representative', type: 'seal', anchor: { text: '(인)' } };
    expectError(await c.post('/templates', { ...TEMPLATE, fields: [TEMPLATE.fields[0], anchored] }), 400, 'anchor_not_found', 'fields[1].anchor');
    expect(expectStatus(await c.get('/templates?limit=100'), 200).body.data).toHaveLength(before);
    // An update is checked as the template it makes: the same page 99, on a template saved clean.
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    expectError(await c.patch(`/templates/${tmpl.id}`, { fields: [TEMPLATE.fields[0], { ...TEMPLATE.fields[2], page: 99 }] }), 400, 'field_page_out_of_range', 'fields[1].page');
    expect(expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.version).toBe(1);
    // The anchor found in the body (its text is there): saved.
    const withAnchor = { ...TEMPLATE, content: `${TEMPLATE.content}<p>대표이사 (인)</p>` };
    expectStatus(await c.post('/templates', { ...withAnchor, fields: [TEMPLATE.fields[0], anchored] }), 201);
  });

  it('sends a contract from the template in one call: every participant, field and link', async () => {
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    const addressId = tmpl.fields[1].id;
    const res = expectStatus(await send('tmpl-send-1', { template_id: tmpl.id, roles, variables, values: { [addressId]: '서울시 중구 세종대로 110' }, metadata: { employee_no: 'E-1' } }), 201).body;
    expect(res).toMatchObject({ object: 'document', status: 'sent', title: '근로계약서', from_template: tmpl.id, template_version: 1, metadata: { employee_no: 'E-1' } });
    expect(res.content).toContain('김지원(이하 "근로자")');
    expect(res.participants.map((p: any) => [p.name, p.role, p.signing_order, p.auth, p.phone, p.email])).toEqual([
      ['김지원', 'signer', 1, 'sms_pin', '01012345678', null],
      ['홍길동', 'signer', 2, 'none', null, 'ceo@example.com'],
      ['인사팀', 'cc', 1, 'none', null, 'hr@example.com'],
    ]);
    for (const p of res.participants.slice(0, 2)) expect(p.signing_url).toMatch(/\/sign\/[A-Za-z0-9_-]{32,64}$/);
    expect(res.roles).toEqual({ employee: res.participants[0].id, representative: res.participants[1].id, hr: res.participants[2].id });
    expect(res.participant.id).toBe(res.participants[0].id);
    expect(res.signing_url).toBe(res.participants[0].signing_url);
    expect(res.fields.map((f: any) => [f.participant_id, f.type])).toEqual([
      [res.participants[0].id, 'signature'],
      [res.participants[0].id, 'text'],
      [res.participants[1].id, 'seal'],
    ]);
    expect(res.fields[1]).toMatchObject({ label: '주소', value: '서울시 중구 세종대로 110' });

    // The employee (first in order) gets the link by SMS and signs with the PIN.
    const msgs = (await outboxOf(t, c, res.id)).filter((m) => m.kind === 'signing_request');
    expect(msgs.map((m) => [m.channel, m.to])).toEqual([['sms', '01012345678']]);
    const employee = signer(t, tokenOf(res.participants[0].signing_url));
    expectStatus(await employee.pin(), 200);
    const pin = (await outboxOf(t, c, res.id)).filter((m) => m.kind === 'pin').pop();
    expectStatus(await employee.verify(pin.pin), 200);
    const signed = expectStatus(await employee.sign(), 200).body;
    expect(signed.document.status).toBe('sent');

    // The same key again: the first answer, no second document.
    const again = await send('tmpl-send-1', { template_id: tmpl.id, roles, variables, values: { [addressId]: '서울시 중구 세종대로 110' }, metadata: { employee_no: 'E-1' } });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(res.id);
  });

  it('refuses every bad role assignment with 400 naming it, before anything is written', async () => {
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    const base = { template_id: tmpl.id, roles, variables };
    const cases: [string, object, string, string][] = [
      ['omitted role', { ...base, roles: { employee: roles.employee, hr: roles.hr } }, 'missing_parameter', 'roles.representative'],
      ['unknown role', { ...base, roles: { ...roles, witness: { name: 'x', email: 'x@example.com' } } }, 'invalid_parameter', 'roles.witness'],
      ['sms_pin without phone', { ...base, roles: { ...roles, employee: { name: '김지원' } } }, 'missing_phone', 'roles.employee.phone'],
      ['bad phone', { ...base, roles: { ...roles, employee: { name: '김지원', phone: '12' } } }, 'phone_invalid', 'roles.employee.phone'],
      ['bad e-mail', { ...base, roles: { ...roles, representative: { name: '홍길동', email: 'ceo@' } } }, 'invalid_parameter', 'roles.representative.email'],
      ['unknown recipient key', { ...base, roles: { ...roles, hr: { name: '인사팀', fax: '02' } } }, 'invalid_parameter', 'roles.hr.fax'],
      ['missing variable', { ...base, variables: { company: '도장' } }, 'missing_parameter', 'variables.employee_name'],
      ['value for an unknown field', { ...base, values: { nope: 1 } }, 'invalid_parameter', 'values.nope'],
      ['roles missing', { template_id: tmpl.id, variables }, 'missing_parameter', 'roles'],
      ['content with a template', { ...base, content: '<p>x</p>' }, 'invalid_parameter', 'content'],
    ];
    for (const [what, body, code, param] of cases) {
      const res = await send(`bad-${what}`, body);
      expect([what, res.status, res.body.error?.code, res.body.error?.param]).toEqual([what, 400, code, param]);
    }
    expectError(await send('bad-template', { ...base, template_id: 'tmpl_000000000000000000000000' }), 404, 'template_not_found');
    // Nothing was made by any refusal.
    const docs = expectStatus(await c.get('/documents?limit=100'), 200).body.data;
    expect(docs.filter((d: any) => d.from_template === tmpl.id)).toEqual([]);
  });

  it('an update is a new version; documents keep the version they came from; DELETE archives', async () => {
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    const v1doc = expectStatus(await send('v1-doc', { template_id: tmpl.id, roles, variables }), 201).body;
    const v2 = expectStatus(await c.patch(`/templates/${tmpl.id}`, { name: '근로계약서 (2027)' }), 200).body;
    expect(v2).toMatchObject({ version: 2, name: '근로계약서 (2027)', roles: tmpl.roles });
    expect(v2.fields.map((f: any) => f.id)).toEqual(tmpl.fields.map((f: any) => f.id));
    const v3 = expectStatus(await c.put(`/templates/${tmpl.id}`, { name: '단순 양식', content: '<p>{{company}}</p>', roles: [TEMPLATE.roles[1]], fields: [TEMPLATE.fields[2]] }), 200).body;
    expect(v3).toMatchObject({ version: 3, variables: ['company'], roles: [{ role: 'representative' }] });
    expect(expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.version).toBe(3);

    const v3doc = expectStatus(await send('v3-doc', { template_id: tmpl.id, roles: { representative: roles.representative }, variables: { company: '도장' } }), 201).body;
    expect(v3doc).toMatchObject({ title: '단순 양식', template_version: 3 });
    expect(expectStatus(await c.get(`/documents/${v1doc.id}`), 200).body).toMatchObject({ title: '근로계약서', template_version: 1 });

    const archived = expectStatus(await c.del(`/templates/${tmpl.id}`), 200).body;
    expect(archived).toEqual({ id: tmpl.id, object: 'template', archived: true, version: 3 });
    expect(expectStatus(await c.get(`/templates/${tmpl.id}`), 200).body.archived).toBe(true);
    const listed = expectStatus(await c.get('/templates?limit=100'), 200).body.data;
    expect(listed.map((x: any) => x.id)).not.toContain(tmpl.id);
    expectError(await send('after-archive', { template_id: tmpl.id, roles: { representative: roles.representative }, variables: { company: '도장' } }), 409, 'template_archived');
    expectError(await c.post('/documents', { title: 'x', from_template: tmpl.id, variables: { company: '도장' } }), 409, 'template_archived', 'from_template');
    expectError(await c.patch(`/templates/${tmpl.id}`, { name: 'x' }), 409, 'template_archived');

    const stream = await t.infra.events.readStream(`template-${tmpl.id}`);
    expect(stream.map((e) => [e.type, (e.data as { version?: number }).version])).toEqual([
      ['TemplateCreated', undefined],
      ['TemplateUpdated', 2],
      ['TemplateUpdated', 3],
      ['TemplateArchived', 3],
    ]);
  });

  it('another organization\'s template is not found', async () => {
    const tmpl = expectStatus(await c.post('/templates', TEMPLATE), 201).body;
    const other = client(t, (await t.createOrg('다른 회사')).test);
    expectError(await other.patch(`/templates/${tmpl.id}`, { name: 'x' }), 404, 'template_not_found');
    expectError(await other.del(`/templates/${tmpl.id}`), 404, 'template_not_found');
  });

  it('the inline shape is unchanged: roles and friends need template_id', async () => {
    const body = { title: '용역 계약서', content: '<p>계약</p>', recipient: { email: 'hong@example.com' } };
    expectStatus(await send('inline-ok', body), 201);
    expectError(await send('inline-roles', { ...body, roles }), 400, 'invalid_parameter', 'roles');
    expectError(await send('inline-missing', { title: 'x', content: '<p>x</p>' }), 400, 'missing_parameter', 'recipient');
  });
});
