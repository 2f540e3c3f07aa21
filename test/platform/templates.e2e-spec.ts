import { TestOrg, useTestApp } from '../support/test-app';
import { client, Client } from '../support/api-helpers';

describe('templates', () => {
  const t = useTestApp({ worker: false });
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg();
    c = client(t, org.test);
  });

  const content = '<h1>{{ title }}</h1><p>{{employee_name}}님과 {{company}}는 다음과 같이 근로계약을 체결한다. ({{employee_name}})</p>';

  it('creates a template, lists it newest first and reads it with its body and variables', async () => {
    const created = await c.post('/templates', { name: ' 근로계약서 ', content });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'template', name: '근로계약서', content, variables: ['title', 'employee_name', 'company'], livemode: false });
    expect(created.body.id).toMatch(/^tmpl_[0-9a-f]{24}$/);
    const second = (await c.post('/templates', { name: 'NDA', content: '<p>{{party}}</p>' })).body;

    const list = await c.get('/templates');
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    expect(list.body.data.map((x: any) => x.id)).toEqual([second.id, created.body.id]);
    expect(list.body.data[0]).toMatchObject({ id: second.id, name: 'NDA' });
    expect(list.body.data[0].content).toBeUndefined();
    const page = await c.get(`/templates?limit=1&starting_after=${second.id}`);
    expect(page.body).toMatchObject({ has_more: false, data: [{ id: created.body.id }] });

    const one = await c.get(`/templates/${created.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);
  });

  it('keeps test and live templates apart, and other organizations out', async () => {
    const tmpl = (await c.post('/templates', { name: 'Test only', content: '<p>x</p>' })).body;
    expect((await client(t, org.live).get(`/templates/${tmpl.id}`)).status).toBe(404);
    const other = await t.createOrg('Other');
    const res = await client(t, other.test).get(`/templates/${tmpl.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('template_not_found');
    expect((await client(t, other.test).get('/templates')).body.data).toEqual([]);
  });

  it('refuses a template without a name or content', async () => {
    const noName = await c.post('/templates', { content });
    expect(noName.status).toBe(400);
    expect(noName.body.error).toMatchObject({ code: 'missing_parameter', param: 'name' });
    const empty = await c.post('/templates', { name: 'x', content: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 'missing_parameter', param: 'content' });
    const extra = await c.post('/templates', { name: 'x', content: 'y', id: 'tmpl_mine' });
    expect(extra.status).toBe(400);
    expect(extra.body.error).toMatchObject({ code: 'invalid_parameter', param: 'id' });
  });

  it('creates a document from a template with HTML-escaped values', async () => {
    const tmpl = (await c.post('/templates', { name: '근로계약서', content })).body;
    const res = await c.post('/documents', {
      title: '근로계약서 - 홍길동',
      from_template: tmpl.id,
      variables: { title: '근로계약서', employee_name: '홍길동 <script>alert(1)</script>', company: 'A&B "주식회사"' },
    });
    expect(res.status).toBe(201);
    const doc = (await c.get(`/documents/${res.body.id}`)).body;
    // The event records which template the document came from.
    const [created] = await t.infra.events.readStream(`document-${res.body.id}`);
    expect(created.data.from_template).toBe(tmpl.id);
    expect(doc.content).toBe(
      '<h1>근로계약서</h1><p>홍길동 &lt;script&gt;alert(1)&lt;/script&gt;님과 A&amp;B &quot;주식회사&quot;는 다음과 같이 근로계약을 체결한다. (홍길동 &lt;script&gt;alert(1)&lt;/script&gt;)</p>',
    );
  });

  it('names a missing variable in a 400 invalid_parameter', async () => {
    const tmpl = (await c.post('/templates', { name: '근로계약서', content })).body;
    const res = await c.post('/documents', { title: 'x', from_template: tmpl.id, variables: { title: 't', employee_name: '홍길동' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
    expect(res.body.error.param).toBe('variables.company');
    expect(res.body.error.message).toContain('company');
    const none = await c.post('/documents', { title: 'x', from_template: tmpl.id });
    expect(none.status).toBe(400);
    expect(none.body.error.param).toBe('variables.title');
  });
});
