import { spawnSync } from 'child_process';
import * as path from 'path';
import { PUBLIC_EVENT_TYPES } from '@dojang/projections';
import { ERROR_CODES, PUBLIC_ERROR_CODES } from '../../apps/api/src/shared/error-codes';
import { OPERATIONS } from '../../apps/api/src/openapi/operations';
import { OpenApiResponseValidator } from '../support/openapi-validator';
import { expectError } from '../support/api-helpers';
import { startTestApp, TestApp, useTestApp } from '../support/test-app';

/** The validator is an ES module, which jest's CommonJS runtime cannot load: it runs in its own node. */
function validateOpenApi(doc: unknown): { valid: boolean; version: string; errors: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(text));
    process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: path.resolve(__dirname, '../..'),
    input: JSON.stringify(doc),
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document as [method, path, operation, path item]. */
function operations(doc: any): Array<[string, string, any, any]> {
  return Object.entries<any>(doc.paths).flatMap(([p, item]) => HTTP_METHODS.filter((m) => item[m]).map((m) => [m, p, item[m], item] as [string, string, any, any]));
}

/** Follows `#/components/…` references. */
function deref(doc: any, node: any): any {
  if (!node?.$ref) return node;
  return deref(doc, node.$ref.slice(2).split('/').reduce((o: any, k: string) => o[k], doc));
}

describe('OpenAPI reference', () => {
  const t = useTestApp({ worker: false });
  let doc: any;
  beforeAll(async () => {
    const res = await t.http.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('is a valid OpenAPI 3.1 document, served without an API key', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = validateOpenApi(doc);
    expect(result.errors).toBeNull();
    expect(result.valid).toBe(true);
    expect(result.version).toBe('3.1');
  });

  it('lists every route the application serves, under /v1 (and the legacy /api/v1) or the root', () => {
    expect(doc.servers.map((s: any) => s.url)).toEqual(['/v1', '/api/v1']);
    const router = (t.app.getHttpAdapter().getInstance() as any)._router;
    const routes: string[] = [];
    for (const layer of router.stack) {
      // Layers for every verb are Nest middleware (the request logger), not operations.
      if (!layer.route || Object.keys(layer.route.methods).length > 5) continue;
      const p = String(layer.route.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      for (const method of Object.keys(layer.route.methods)) routes.push(`${method.toUpperCase()} ${p}`);
    }
    expect(routes.length).toBeGreaterThan(30);
    const documented = operations(doc).map(([m, p, op, item]) => `${m.toUpperCase()} ${(op.servers ?? item.servers) ? p : `/v1${p}`}`);
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !routes.includes(r))).toEqual([]);
    // Root paths say so; everything else is under the servers.
    for (const p of ['/sign/{token}', '/sign/assets/{name}', '/docs', '/metrics']) expect(doc.paths[p].servers).toEqual([expect.objectContaining({ url: '/' })]);
    for (const p of ['/documents', '/signing/{token}', '/openapi.json', '/health']) expect(doc.paths[p].servers).toBeUndefined();
  });

  it('gives every operation a specification: summary, integrator description, response schemas and error codes', () => {
    for (const [method, p, op] of operations(doc)) {
      const where = `${method.toUpperCase()} ${p}`;
      expect({ where, spec: Boolean(OPERATIONS[op.operationId]) }).toEqual({ where, spec: true });
      expect(op.summary).not.toMatch(/^(GET|POST|PUT|PATCH|DELETE) \//);
      expect(op.description.length).toBeGreaterThan(20);
      expect(op.responses.default).toBeUndefined();
      const statuses = Object.keys(op.responses).map(Number);
      const success = statuses.filter((s) => s < 300);
      expect({ where, success: success.length }).toEqual({ where, success: 1 });
      const ok = op.responses[String(success[0])];
      expect(Object.keys(ok.content).length).toBeGreaterThan(0);
      for (const [type, media] of Object.entries<any>(ok.content)) {
        if (type !== 'application/json') continue;
        const schema = deref(doc, media.schema);
        // No more `{type: "object"}` placeholders: properties (or the OpenAPI document itself), or
        // one of several such objects (a bulk send's job or its dry run's report).
        const typed = Boolean(schema.properties) || (Array.isArray(schema.oneOf) && schema.oneOf.every((alt: any) => Boolean(deref(doc, alt).properties)));
        expect({ where, typed }).toEqual({ where, typed: true });
      }
      expect(ok.headers['Request-Id']).toEqual({ $ref: '#/components/headers/Request-Id' });
      for (const status of statuses.filter((s) => s >= 400)) {
        const r = op.responses[String(status)];
        // A refusal answered as a page (the editor's used or expired link) is HTML, not an error body.
        if (!r['x-error-codes']) {
          expect({ where, status, types: Object.keys(r.content) }).toEqual({ where, status, types: ['text/html'] });
          continue;
        }
        const codes: string[] = r['x-error-codes'];
        const schema = r.content['application/json'].schema;
        expect(schema.properties.error.properties.code.enum).toEqual(codes);
        expect(schema.properties.error.required).toEqual(['type', 'code', 'message', 'request_id']);
        for (const code of codes) {
          expect(PUBLIC_ERROR_CODES).toContain(code);
          expect({ where, code, status: (ERROR_CODES as Record<string, { status: number }>)[code].status }).toEqual({ where, code, status });
          expect(r.description).toContain(`\`${code}\``);
        }
      }
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      if (!isPublic) {
        expect(op.responses['401']['x-error-codes']).toEqual(expect.arrayContaining(['missing_api_key', 'invalid_api_key']));
        expect(op.responses['429']['x-error-codes']).toContain('rate_limit_error');
        expect(op.responses['429'].headers['Retry-After']).toBeDefined();
        expect(ok.headers['RateLimit-Remaining']).toBeDefined();
      }
      if (method === 'post' && !isPublic) {
        expect(ok.headers['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
        expect(op.responses['409']['x-error-codes']).toContain('idempotency_key_in_use');
        expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
      }
      // Every {name} in the path is a declared path parameter.
      for (const [, name] of p.matchAll(/\{([^}]+)\}/g)) {
        expect(op.parameters).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
    }
  });

  it('names the codes the issue found missing, where they are answered', () => {
    const codes = (p: string, m: string, status: number) => doc.paths[p][m].responses[String(status)]['x-error-codes'];
    expect(codes('/signing/{token}/sign', 'post', 410)).toContain('signing_link_inactive');
    expect(codes('/signing/{token}/sign', 'post', 409)).toContain('pin_verification_required');
    expect(codes('/documents/{id}/send', 'post', 402)).toContain('insufficient_credits');
    expect(codes('/documents/{id}/send', 'post', 400)).toEqual(expect.arrayContaining(['document_has_no_participants', 'signer_without_required_field', 'missing_phone', 'field_page_out_of_range']));
    expect(codes('/files', 'post', 413)).toContain('file_too_large');
    expect(codes('/files', 'post', 415)).toContain('unsupported_file_type');
    expect(codes('/documents/{id}/cancel', 'post', 409)).toContain('document_already_completed');
    expect(codes('/outbox', 'get', 403).sort()).toEqual(['insufficient_permissions', 'test_mode_only']);
  });

  it('documents parameters with their types and bounds, and the bodies as sent', () => {
    const param = (p: string, m: string, name: string) => doc.paths[p][m].parameters.find((x: any) => x.name === name);
    for (const p of ['/documents', '/events', '/outbox', '/templates', '/seals', '/webhook_endpoints', '/webhook_endpoints/{id}/deliveries']) {
      expect(param(p, 'get', 'limit')).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
    }
    expect(param('/documents/{id}/file', 'get', 'audit')).toMatchObject({ in: 'query', required: false, schema: { type: 'boolean' } });
    expect(param('/documents', 'get', 'status').schema.enum).toEqual(['draft', 'sent', 'completed', 'canceled', 'declined', 'expired']);
    const content = doc.paths['/files/{id}/content'].get;
    expect(content.security).toEqual([]);
    expect(param('/files/{id}/content', 'get', 'expires')).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(param('/files/{id}/content', 'get', 'signature')).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(Object.keys(content.responses['200'].content)).toEqual(['application/pdf']);
    expect(param('/sign/{token}', 'get', 'token')).toMatchObject({ in: 'path', required: true });
    expect(Object.keys(doc.paths['/sign/assets/{name}'].get.responses['200'].content).sort()).toEqual(['text/css', 'text/javascript']);
    expect(doc.paths['/sign/assets/{name}'].get.responses['404'].content['application/json'].schema.properties.error.required).toContain('request_id');

    const upload = doc.paths['/files'].post.requestBody;
    expect(upload.required).toBe(true);
    expect(upload.content['multipart/form-data'].schema).toMatchObject({ required: ['file'], properties: { file: { type: 'string', contentMediaType: 'application/pdf' } } });
    expect(doc.paths['/documents/{id}/send'].post.requestBody.required).toBe(false);
    expect(doc.paths['/documents'].post.requestBody.required).toBe(true);
    const s = doc.components.schemas;
    expect(s.CreateDocumentDto.required).toEqual(['title']);
    expect(s.CreateDocumentDto.additionalProperties).toBe(false);
    // content or parts (a template of several files): neither alone is required.
    expect(s.CreateTemplateDto.required).toEqual(['name']);
    expect(Object.keys(s.CreateTemplateDto.properties)).toEqual(expect.arrayContaining(['content', 'parts']));
    expect(s.CreateSealDto.properties.source.enum).toEqual(['generated', 'uploaded']);
    const create = doc.paths['/signature_requests'].post;
    // Two shapes: inline (SPEC's) or from a template with role assignments (issue 21 item 9).
    expect(deref(doc, create.requestBody.content['application/json'].schema).anyOf).toEqual([
      { required: expect.arrayContaining(['title', 'content', 'recipient']) },
      { required: ['template_id', 'roles'] },
    ]);
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }));
    expect(doc.paths['/documents'].post.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', required: false }));
  });

  it('describes authentication as an API key: bearer without a JWT format, none on public routes', () => {
    expect(doc.components.securitySchemes.api_key).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.api_key.bearerFormat).toBeUndefined();
    expect(doc.components.securitySchemes.api_key.description).toMatch(/sk_test_.*sk_live_/);
    expect(doc.security).toEqual([{ api_key: [] }]);
    for (const [p, m] of [
      ['/health', 'get'],
      ['/health/ready', 'get'],
      ['/metrics', 'get'],
      ['/openapi.json', 'get'],
      ['/docs', 'get'],
      ['/sign/{token}', 'get'],
      ['/sign/assets/{name}', 'get'],
      ['/signing/{token}', 'get'],
      ['/signing/{token}/verify', 'post'],
      ['/files/{id}/content', 'get'],
    ]) {
      expect({ p, security: doc.paths[p][m].security }).toEqual({ p, security: [] });
    }
    expect(doc.paths['/documents'].get.security).toBeUndefined();
  });

  it('publishes enums exactly as served: statuses, roles, auth, event types, error types and codes', () => {
    const s = doc.components.schemas;
    expect(s.DocumentStatus.enum).toEqual(['draft', 'sent', 'completed', 'canceled', 'declined', 'expired']);
    expect(s.ParticipantStatus.enum).toEqual(['pending', 'viewed', 'signed', 'declined']);
    expect(s.ParticipantRole.enum).toEqual(['signer', 'reviewer', 'cc']);
    expect(s.ParticipantAuth.enum).toEqual(['sms_pin', 'none']);
    expect(s.EventType.enum).toEqual([...PUBLIC_EVENT_TYPES]);
    expect(s.ErrorType.enum).toEqual(['invalid_request_error', 'authentication_error', 'permission_error', 'idempotency_error', 'rate_limit_error', 'api_error']);
    expect(s.ErrorCode.enum).toEqual(PUBLIC_ERROR_CODES);
    expect(s.Document.properties.completed_at.type).toEqual(['string', 'null']);
    expect(s.Document.required).toEqual(expect.arrayContaining(['id', 'object', 'status', 'title', 'participants', 'fields', 'completed_at']));
    expect(s.Participant.properties.signed_at.type).toEqual(['string', 'null']);
  });

  it('closes every response object: an undocumented property is a validation failure', () => {
    const open: string[] = [];
    const seen = new Set<any>();
    const walk = (node: any, at: string) => {
      if (!node || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (node.$ref) return walk(deref(doc, node), node.$ref);
      if (node.properties && node.additionalProperties === undefined && !node.allOf && at !== '#/components/schemas/OpenApiDocument') open.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    for (const [m, p, op] of operations(doc)) for (const [status, r] of Object.entries<any>(op.responses)) walk(r.content, `${m} ${p} ${status}`);
    expect(open).toEqual([]);
  });

  it('describes each webhook event\'s payload (OAS 3.1 webhooks)', () => {
    // Every public event type, and the test delivery a receiver gets from POST /webhook_endpoints/{id}/test.
    expect(Object.keys(doc.webhooks).sort()).toEqual([...PUBLIC_EVENT_TYPES, 'webhook.test'].sort());
    expect(deref(doc, doc.webhooks['webhook.test'].post.requestBody.content['application/json'].schema).properties.type).toEqual({ const: 'webhook.test' });
    const sent = doc.webhooks['document.sent'].post;
    expect(sent.parameters.map((p: any) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const schema = deref(doc, sent.requestBody.content['application/json'].schema);
    expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Event' });
    expect(schema.allOf[1].properties.type).toEqual({ const: 'document.sent' });
    expect(schema.allOf[1].properties.data.required).toEqual(['document_id', 'metadata', 'external_id', 'expires_at']);
    const signed = deref(doc, doc.webhooks['participant.signed'].post.requestBody.content['application/json'].schema);
    expect(signed.allOf[1].properties.data.required).toEqual(['document_id', 'metadata', 'external_id', 'participant_id', 'signed_at']);
  });

  it('serves a self-contained reference page at /docs', async () => {
    const page = await t.http.get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThan(2);
    for (const url of urls) {
      expect(url.startsWith('/')).toBe(true);
      expect((await t.http.get(url)).status).toBe(200);
    }
    expect((await t.http.get('/docs/assets/init.js')).text).toContain('/v1/openapi.json');
  });

  it('answers an unknown signing-page asset with the full error envelope, request_id included', async () => {
    expectError(await t.http.get('/sign/assets/nope.js'), 404, 'resource_not_found');
  });
});

describe('Response validation against the served document (what every e2e suite runs)', () => {
  let t: TestApp;
  let v: OpenApiResponseValidator;
  const json = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json; charset=utf-8' }, body }) as any;
  beforeAll(async () => {
    t = await startTestApp({ worker: false });
    v = new OpenApiResponseValidator((await t.http.get('/v1/openapi.json')).body);
  });
  afterAll(() => t.close());

  it('accepts what the server sends, through /v1 and the legacy /api/v1', async () => {
    const org = await t.createOrg();
    for (const root of ['/v1', '/api/v1']) {
      const res = await t.http.get(`${root}/organization`).set('Authorization', `Bearer ${org.test}`);
      expect(res.status).toBe(200);
      expect(() => v.check('GET', `http://x${root}/organization`, res)).not.toThrow();
    }
  });

  it('refuses an undocumented property, a missing one, a wrong enum value or null where none is allowed', () => {
    const list = { object: 'list', data: [], has_more: false };
    expect(() => v.check('GET', 'http://x/v1/documents', json(200, list))).not.toThrow();
    expect(() => v.check('GET', 'http://x/v1/documents', json(200, { ...list, total: 0 }))).toThrow(/additional properties/);
    expect(() => v.check('GET', 'http://x/v1/documents', json(200, { object: 'list', data: [] }))).toThrow(/has_more/);
    expect(() => v.check('GET', 'http://x/v1/documents', json(200, { ...list, object: 'page' }))).toThrow(/constant/);
    expect(() => v.check('GET', 'http://x/v1/documents', json(200, { ...list, has_more: null }))).toThrow(/boolean/);
  });

  it('refuses an undocumented status, an undocumented error code, an unknown route and a wrong Content-Type', () => {
    const error = (code: string) => ({ error: { type: 'invalid_request_error', code, message: 'm', request_id: 'req_0123456789abcdef01234567' } });
    expect(() => v.check('GET', 'http://x/v1/documents/abc', json(404, error('document_not_found')))).not.toThrow();
    expect(() => v.check('GET', 'http://x/v1/documents/abc', json(404, error('seal_not_found')))).toThrow(/allowed values/);
    expect(() => v.check('GET', 'http://x/v1/documents/abc', json(418, error('document_not_found')))).toThrow(/not a documented status/);
    expect(() => v.check('GET', 'http://x/v1/documents/abc', json(404, { error: { ...error('document_not_found').error, request_id: undefined } }))).toThrow();
    expect(() => v.check('GET', 'http://x/v1/invoices', json(200, {}))).toThrow(/matches no documented operation/);
    expect(() => v.check('GET', 'http://x/v1/invoices', json(404, error('resource_not_found')))).not.toThrow();
    const pdf = { status: 200, headers: { 'content-type': 'application/pdf' }, body: {} } as any;
    expect(() => v.check('GET', 'http://x/v1/documents/abc/file', pdf)).not.toThrow();
    expect(() => v.check('GET', 'http://x/v1/documents/abc', pdf)).toThrow(/served application\/pdf/);
  });

  it('matches literal segments before parameters, and root paths outside /v1', () => {
    expect(v.match('POST', 'http://x/v1/documents/abc/participants/batch')?.template).toBe('/documents/{id}/participants/batch');
    expect(v.match('DELETE', 'http://x/v1/documents/abc/participants/def')?.template).toBe('/documents/{id}/participants/{participantId}');
    expect(v.match('GET', 'http://x/sign/assets/app.js')?.template).toBe('/sign/assets/{name}');
    expect(v.match('GET', 'http://x/sign/abc')?.template).toBe('/sign/{token}');
    expect(v.match('GET', 'http://x/v1/sign/abc')).toBeUndefined();
    expect(v.match('GET', 'http://x/documents')).toBeUndefined();
  });
});
