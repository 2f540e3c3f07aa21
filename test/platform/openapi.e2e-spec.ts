import { spawnSync } from 'child_process';
import * as path from 'path';
import { startTestApp, TestApp } from '../support/test-app';

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

describe('OpenAPI reference', () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await startTestApp({ worker: false });
    const res = await t.http.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document, served without an API key', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = validateOpenApi(doc);
    expect(result.errors).toBeNull();
    expect(result.valid).toBe(true);
    expect(result.version).toBe('3.1');
  });

  it('lists every route the application serves', () => {
    const router = (t.app.getHttpAdapter().getInstance() as any)._router;
    const routes: string[] = [];
    for (const layer of router.stack) {
      if (!layer.route) continue;
      const path = String(layer.route.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      for (const method of Object.keys(layer.route.methods)) routes.push(`${method.toUpperCase()} ${path}`);
    }
    expect(routes.length).toBeGreaterThan(30);
    const documented = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !routes.includes(r))).toEqual([]);
    for (const r of ['POST /v1/signature_requests', 'GET /v1/templates', 'POST /v1/templates', 'GET /v1/templates/{id}', 'GET /v1/seals', 'POST /v1/seals', 'GET /v1/openapi.json']) {
      expect(documented).toContain(r);
    }
  });

  it('documents request bodies from the DTOs, auth, idempotency and rate-limit headers', () => {
    const create = doc.paths['/v1/signature_requests'].post;
    const ref = create.requestBody.content['application/json'].schema.$ref as string;
    const schema = doc.components.schemas[ref.split('/').pop() as string];
    expect(schema.required).toEqual(expect.arrayContaining(['title', 'content', 'recipient']));
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }));
    expect(doc.paths['/v1/documents'].post.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', required: false }));
    expect(doc.paths['/v1/documents'].get.responses['200'].headers).toHaveProperty('RateLimit-Remaining');
    expect(doc.paths['/v1/documents'].get.responses['429']).toEqual({ $ref: '#/components/responses/RateLimited' });
    expect(doc.components.securitySchemes.api_key).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/health'].get.security).toEqual([]);
    expect(doc.components.schemas.CreateTemplateDto.required).toEqual(['name', 'content']);
    expect(doc.components.schemas.CreateSealDto.properties.source.enum).toEqual(['generated', 'uploaded']);
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
});

describe('OpenAPI schemas of the shared DTOs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ worker: false });
  });
  afterAll(() => t.close());

  it('describes documents, participants, fields, send and signing bodies and list queries', async () => {
    const doc = (await t.http.get('/v1/openapi.json')).body;
    const s = doc.components.schemas;
    expect(Object.keys(s.CreateDocumentDto.properties)).toEqual(['title', 'content', 'content_format', 'file_url', 'author_name', 'metadata', 'from_template', 'variables']);
    expect(s.ParticipantDto.required).toEqual(['name']);
    expect(s.ParticipantBatchDto.properties.participants).toMatchObject({ type: 'array', maxItems: 50 });
    expect(s.FieldDto.required).toEqual(['participant_id', 'type', 'page', 'x', 'y', 'width', 'height']);
    expect(s.SendDocumentDto.properties.expires_in_days).toMatchObject({ type: 'integer', minimum: 1, maximum: 365 });
    expect(s.SignDto.required).toEqual(['consent']);
    const params = (path: string) => doc.paths[path].get.parameters.map((p: any) => p.name);
    expect(params('/v1/documents')).toEqual(expect.arrayContaining(['status', 'created_after', 'limit', 'starting_after']));
    expect(params('/v1/events')).toEqual(expect.arrayContaining(['type', 'document_id', 'limit']));
    expect(params('/v1/outbox')).toEqual(expect.arrayContaining(['document_id', 'participant_id', 'channel', 'limit']));
  });
});
