import { client, Client, expectError, expectStatus } from '../support/api-helpers';
import { describeOnEachStore, useTestAppOn } from '../support/each-store';
import { bearer, TestOrg } from '../support/test-app';

/**
 * Issue 33 §11 and §12 on both stores: text no store keeps alike in a path, and names of
 * JavaScript's built-ins as keys. PostgreSQL answered `/v1/templates/%00` with a 500 (it cannot
 * even read a stream id holding NUL) and a CSV header `constructor.name` with a 500 on both.
 */
describeOnEachStore('hostile paths and keys', (store) => {
  const t = useTestAppOn(store, { worker: false });
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg();
    c = client(t, org.test);
  });

  it.each([
    ['GET', '/v1/templates/%00'],
    ['PATCH', '/v1/templates/%00'],
    ['PUT', '/v1/templates/%00'],
    ['DELETE', '/v1/templates/%00'],
    ['GET', '/v1/documents/doc%00'],
    ['PUT', '/v1/documents/%00/fields'],
    ['GET', '/v1/bulk_sends/bulk_%01'],
    ['GET', '/v1/files/%1B%5B31m'],
  ])('%s %s → 400 naming the path, never a 500', async (method, path) => {
    const req = t.http[method.toLowerCase() as 'get' | 'patch' | 'put' | 'delete'](path).set(bearer(org.test));
    const res = method === 'GET' || method === 'DELETE' ? await req : await req.send({ name: '이름' });
    expectError(res, 400, 'invalid_parameter', 'path');
  });

  it('an ordinary id that does not exist is still 404', async () => {
    expectError(await c.get('/templates/tmpl_doesnotexist00'), 404, 'template_not_found');
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('a template role named %s → 400 naming roles[0].role', async (role) => {
    const res = await c.post('/templates', { name: '근로계약서', content: '<p>{{name}}</p>', roles: [{ role, auth: 'none' }] });
    const err = expectError(res, 400, 'invalid_parameter', 'roles[0].role');
    expect(err.message).toContain('built-in');
  });

  describe('bulk send CSV', () => {
    let templateId: string;
    beforeAll(async () => {
      templateId = expectStatus(await c.post('/templates', { name: '동의서', content: '<p>{{name}}</p>', roles: [{ role: 'employee', participant_role: 'cc', auth: 'none' }] }), 201).body.id;
    });
    const upload = (csv: string) =>
      t.http.post(`/v1/bulk_sends/upload?template_id=${templateId}&dry_run=true`).set(bearer(org.test)).attach('file', Buffer.from(csv, 'utf8'), { filename: 'rows.csv', contentType: 'text/csv' });

    it('a header constructor.name → 400 naming the column, and nothing is written onto Object', async () => {
      const err = expectError(await upload('employee.name,employee.email,constructor.name\n홍길동,hong@example.com,x\n'), 400, 'bulk_send_invalid_rows', 'constructor.name');
      expect(err.message).toContain('constructor.name');
      expect(Object.name).toBe('Object');
      expect((Object as unknown as Record<string, unknown>).email).toBeUndefined();
    });

    it('a header metadata.constructor → 400 naming the column', async () => {
      expectError(await upload('employee.name,employee.email,metadata.constructor\n홍길동,hong@example.com,x\n'), 400, 'bulk_send_invalid_rows', 'metadata.constructor');
    });

    it.each([
      ['metadata.note', '메모\u0000'],
      ['variables.name', '홍\u0000'],
    ])('NUL in a %s cell is refused by the dry run, naming row and column', async (column, value) => {
      const res = await upload(`employee.name,employee.email,${column}\n김철수,kim@example.com,ok\n홍길동,hong@example.com,${value}\n`);
      expectError(res, 400, 'bulk_send_invalid_rows', `rows[2].${column}`);
    });
  });
});
