import { bearer, useTestApp } from '../support/test-app';
import { client, Client, expectError, expectStatus } from '../support/api-helpers';

/**
 * Issue 24 §20: a template whose placeholders are named like Object.prototype's members
 * (`{{constructor}}`, `{{toString}}`, `{{__proto__}}`, …) was created, but no document could be made
 * from it: the variable was refused whether it was given or not. Such names are plain names.
 */
describe('template variables named like Object.prototype members', () => {
  const t = useTestApp({ worker: false });
  let c: Client;
  let key: string;
  beforeAll(async () => {
    key = (await t.createOrg()).test;
    c = client(t, key);
  });

  const NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype'];
  const content = `<p>${NAMES.map((n) => `${n}={{${n}}}`).join(' ')} party={{party.name}}</p>`;

  it('creates a document from the template when every variable is given', async () => {
    const tmpl = expectStatus(await c.post('/templates', { name: '이상한 이름', content }), 201).body;
    expect(tmpl.variables).toEqual([...NAMES, 'party.name']);
    // Sent as JSON text: an object literal with __proto__ would set the prototype instead of a key.
    const variables = `{${NAMES.map((n, i) => `"${n}": "값${i}"`).join(', ')}, "party": {"name": "갑 <주식회사>"}}`;
    const res = await t.http
      .post('/v1/documents')
      .set(bearer(key))
      .set('Content-Type', 'application/json')
      .send(`{"title": "계약", "from_template": "${tmpl.id}", "variables": ${variables}}`);
    const doc = expectStatus(res, 201).body;
    expect(doc.content).toBe(`<p>${NAMES.map((n, i) => `${n}=값${i}`).join(' ')} party=갑 &lt;주식회사&gt;</p>`);
  });

  it('names the first missing one when they are not given, never reaching Object.prototype', async () => {
    const tmpl = expectStatus(await c.post('/templates', { name: '빠진 값', content: '<p>{{constructor}} {{toString}}</p>' }), 201).body;
    const none = await c.post('/documents', { title: '계약', from_template: tmpl.id });
    expectError(none, 400, 'invalid_parameter', 'variables.constructor');
    expect(none.body.error.message).toContain('constructor, toString');
    const some = await c.post('/documents', { title: '계약', from_template: tmpl.id, variables: { constructor: '값' } });
    expectError(some, 400, 'invalid_parameter', 'variables.toString');
    // A dotted path walks own properties only.
    const path = expectStatus(await c.post('/templates', { name: '경로', content: '<p>{{a.constructor}} {{a.__proto__}}</p>' }), 201).body;
    const refused = await c.post('/documents', { title: '계약', from_template: path.id, variables: { a: { x: '1' } } });
    expectError(refused, 400, 'invalid_parameter', 'variables.a.constructor');
  });
});
