import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** Routes reachable without an API key. */
const PUBLIC_PATHS = [/^\/v1\/health$/, /^\/v1\/signing\//, /^\/sign\//, /^\/docs/, /^\/v1\/openapi\.json$/];

const TAGS: Array<[RegExp, string]> = [
  [/^\/v1\/documents\/\{id\}\/participants/, 'Participants'],
  [/^\/v1\/documents\/\{id\}\/fields/, 'Participants'],
  [/^\/v1\/documents/, 'Documents'],
  [/^\/v1\/signature_requests/, 'Signature requests'],
  [/^\/v1\/templates/, 'Templates'],
  [/^\/v1\/seals/, 'Seals'],
  [/^\/v1\/files/, 'Files'],
  [/^\/v1\/(organization|members)/, 'Organization'],
  [/^\/v1\/events/, 'Events'],
  [/^\/v1\/webhook/, 'Webhooks'],
  [/^\/v1\/outbox/, 'Test mode'],
  [/^\/v1\/signing\//, 'Signing (signer side)'],
  [/^\/sign\//, 'Signing (signer side)'],
  [/^\/v1\/health/, 'Service'],
  [/^\/(docs|v1\/openapi)/, 'Service'],
];

const DESCRIPTION = `Dojang: electronic contracts with identity-verified signatures.

Every path is also served under the legacy root \`/api/v1\` (for example \`/api/v1/documents\`).

**Authentication**: \`Authorization: Bearer sk_test_…\` (test mode: nothing real is sent, no usage is deducted) or \`sk_live_…\`.

**Errors**: \`{"error": {"type", "code", "message", "param"?, "request_id"}}\`.

**Idempotency**: send \`Idempotency-Key\` (at most 255 characters) on any POST; the first response is kept 24 hours and
replayed with \`Idempotent-Replayed: true\`. The same key with a different request is 400 \`idempotency_key_reused\`;
while the first request is still running, 409 \`idempotency_key_in_use\`. Required on POST /v1/signature_requests.

**Rate limit**: requests per minute per API key (fixed window, 600 by default); every response to a request with a
valid key carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (epoch seconds); over the limit
429 \`rate_limit_error\` with \`Retry-After\`. Requests without a valid key are not counted.`;

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: {
          type: 'string',
          enum: ['invalid_request_error', 'authentication_error', 'permission_error', 'idempotency_error', 'rate_limit_error', 'api_error'],
        },
        code: { type: 'string', examples: ['missing_parameter'] },
        message: { type: 'string' },
        param: { type: 'string' },
        request_id: { type: 'string', examples: ['req_0123456789abcdef01234567'] },
      },
    },
  },
};

const RATE_HEADERS = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
};

type Json = Record<string, unknown>;

/** OpenAPI 3.1 is JSON Schema 2020-12: `nullable` becomes a "null" type, examples become lists. */
function toJsonSchema2020(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(toJsonSchema2020);
  if (!node || typeof node !== 'object') return;
  const o = node as Json;
  if (o.nullable === true) {
    if (typeof o.type === 'string') o.type = [o.type, 'null'];
    else if (!o.type && !o.$ref) o.type = ['null'];
    delete o.nullable;
  } else if (o.nullable === false) delete o.nullable;
  for (const value of Object.values(o)) toJsonSchema2020(value);
}

/** The OpenAPI 3.1 document of every route the application serves, generated from the controllers and DTOs. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Dojang API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addServer('/', 'This server')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_… API key' }, 'api_key')
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/HttpController$/, '')}_${method}`,
  }) as OpenAPIObject & Json;
  doc.openapi = '3.1.0';
  doc.security = [{ api_key: [] }];
  const components = (doc.components ??= {}) as Json;
  (components.schemas as Json | undefined) ?? (components.schemas = {});
  (components.schemas as Json).Error = ERROR_SCHEMA;
  components.headers = {
    'RateLimit-Limit': { description: 'Requests allowed per window (minute) for this API key.', schema: { type: 'integer' } },
    'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'RateLimit-Reset': { description: 'Epoch seconds when the current window ends.', schema: { type: 'integer' } },
    'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
    'Idempotent-Replayed': { description: '"true" on a response replayed for a repeated Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
  };
  const errorResponse = (description: string, headers: Json = {}) => ({
    description,
    headers,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  components.responses = {
    Error: errorResponse('Error (see error.code).', RATE_HEADERS),
    Unauthorized: errorResponse('Missing or invalid API key (authentication_error).'),
    RateLimited: errorResponse('Rate limit exceeded (rate_limit_error).', { ...RATE_HEADERS, 'Retry-After': { $ref: '#/components/headers/Retry-After' } }),
  };

  const usedTags = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const isPublic = PUBLIC_PATHS.some((re) => re.test(path));
    for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const tag = TAGS.find(([re]) => re.test(path))?.[1] ?? 'Other';
      op.tags = [tag];
      usedTags.add(tag);
      if (!op.summary) op.summary = `${method.toUpperCase()} ${path}`;
      const responses = (op.responses ??= {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (!response.description) response.description = Number(status) === 204 ? 'No content' : 'Success';
        if (!isPublic) response.headers = { ...(response.headers as Json | undefined), ...RATE_HEADERS };
        if (!response.content && Number(status) < 300 && !/\/(file|image)$/.test(path) && path !== '/sign/{token}' && !path.startsWith('/docs')) {
          response.content = { 'application/json': { schema: { type: 'object' } } };
        }
      }
      if (/\/(file|image)$/.test(path)) {
        const ok = (responses['200'] ??= { description: 'Success' });
        ok.content = path.endsWith('/image')
          ? { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } }, 'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } } }
          : { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } };
      }
      if (path === '/sign/{token}' || path === '/docs') {
        const ok = (responses['200'] ??= { description: 'Success' });
        ok.content = { 'text/html': { schema: { type: 'string' } } };
      }
      responses.default = { $ref: '#/components/responses/Error' };
      if (isPublic) {
        op.security = [];
      } else {
        responses['401'] = { $ref: '#/components/responses/Unauthorized' };
        responses['429'] = { $ref: '#/components/responses/RateLimited' };
      }
      if (method === 'post' && !isPublic) {
        const required = path === '/v1/signature_requests';
        const params = (op.parameters ??= []) as Json[];
        params.push({
          name: 'Idempotency-Key',
          in: 'header',
          required,
          description: required
            ? 'Required: a unique key per signature request (at most 255 characters).'
            : 'Optional: makes the request safe to retry (at most 255 characters, kept 24 hours).',
          schema: { type: 'string', maxLength: 255 },
        });
      }
    }
  }
  doc.tags = [...usedTags].sort().map((name) => ({ name }));
  toJsonSchema2020(doc);
  return doc;
}
