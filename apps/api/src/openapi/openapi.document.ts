import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PUBLIC_EVENT_TYPES } from '@dojang/projections';
import { ERROR_CODES, ERROR_TYPES, ErrorCode, PUBLIC_ERROR_CODES } from '../shared/error-codes';
import { JsonSchema, NOTED_SCHEMAS, SCHEMA_NAMES } from './json-schema';
import { OPERATIONS, OperationSpec } from './operations';
import { DocumentSchema, EVENT_DATA_BY_TYPE, EventDataSchema, EventSchema, TemplateSchema } from './response-schemas';

/** Operations reachable without an API key (their controllers are @Public()). */
const PUBLIC_OPERATIONS = /^(Health_|Metrics_|OpenApi_|Signing_|SigningPage_|Editor_|EditorPage_|BrandLogo_|Files_content$|PublicVerify_|VerifyPage_)/;
const ROOT_SERVERS = [{ url: '/', description: 'The server root (not under /v1)' }];
/** Operations no rate limit counts (probes must answer while the store keeping the counts does not). */
const UNCOUNTED_OPERATIONS = /^(Health_|Metrics_)/;

const TAGS: Array<[RegExp, string]> = [
  [/^\/(documents|templates)\/\{id\}\/edit_session|^\/(editor|edit)\//, 'Field-placement editor'],
  [/^\/documents\/\{id\}\/(participants|fields)/, 'Participants and fields'],
  [/^\/documents/, 'Documents'],
  [/^\/signature_requests/, 'Signature requests'],
  [/^\/templates/, 'Templates'],
  [/^\/bulk_sends/, 'Bulk sends'],
  [/^\/seals/, 'Seals'],
  [/^\/files/, 'Files'],
  [/^\/(organization|members|sign\/brand)/, 'Organization'],
  [/^\/events/, 'Events'],
  [/^\/extensions/, 'Plugin read models'],
  [/^\/webhook/, 'Webhooks'],
  [/^\/outbox/, 'Test mode'],
  [/^\/(signing|sign)\//, 'Signing (signer side)'],
  [/^\/verify/, 'Public verification'],
  [/^\/(health|metrics|docs|openapi)/, 'Service'],
];

const PATH_PARAMS: Record<string, string> = {
  id: 'The resource\'s id, as returned when it was created.',
  participantId: 'The participant\'s id (UUID).',
  token: 'The signing token: the last segment of the participant\'s signing_url. It is the credential; keep it secret.',
  name: 'Asset file name.',
  asset: 'Asset file name.',
  organization: 'The organization\'s id.',
  logo: 'The logo\'s content hash and extension (`<sha256>.png` or `.jpg`), as brand.logo.url gives it.',
  projection: 'The name of a projection plugin loaded with PROJECTIONS (e.g. signing_times).',
  endpoint: 'The name of a read endpoint the plugin declares (e.g. monthly).',
  file: 'The page: its number (1-based) and .png, e.g. 1.png.',
  session: 'The editor session\'s secret, which the editor page received when its one-time URL was opened. It is the credential; keep it secret.',
  part: 'The part\'s index (0 for a one-part document or template).',
};

const DESCRIPTION = `Dojang: electronic contracts with identity-verified signatures.

Paths are relative to \`/v1\`; the legacy root \`/api/v1\` serves the same operations (for example \`/api/v1/documents\`).
The signing page, the reference page and the metrics live at the server root.

**Authentication**: \`Authorization: Bearer sk_test_…\` (test mode: nothing real is sent, no usage is deducted; messages
land in GET /outbox) or \`sk_live_…\`. Signing operations use the token of the signing link instead.

**Errors**: \`{"error": {"type", "code", "message", "param"?, "request_id"}}\`; each response lists the codes it can carry,
and the \`ErrorCode\` schema describes them all. \`request_id\` equals the \`Request-Id\` header.

**Idempotency**: send \`Idempotency-Key\` (at most 255 characters) on any POST; the first response is kept 24 hours and
replayed with \`Idempotent-Replayed: true\` to the same API key only (never a 401/403 refusal, never to a key whose role
refuses the request). The same key with a different request is 400 \`idempotency_key_reused\`;
while the first request is still running, 409 \`idempotency_key_in_use\` with \`Retry-After\`. What a POST creates gets an id
derived from the key: a retry that runs again after its first attempt was written (its answer lost in an outage) answers
that resource, replayed, instead of creating a second one. A request with a key never runs unless the key was claimed:
when the API key or the Idempotency-Key cannot be looked up or claimed, 503 \`service_unavailable\` with \`Retry-After\`
(nothing ran; retry with the same key). Required on POST /signature_requests.

**Rate limit**: requests per minute per API key (fixed window, 600 by default); requests without a valid key (401s,
public pages) per client address (300 by default); signing links per link and per address. Every counted response
(all but health checks and metrics) carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`
(epoch seconds); over the limit 429 \`rate_limit_error\` with \`Retry-After\`.

**Webhooks**: see \`webhooks\` for each event's payload; deliveries are signed per Standard Webhooks.`;

type Json = Record<string, any>;

/** OpenAPI 3.1 is JSON Schema 2020-12: `nullable` becomes a "null" type. */
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

/** Copies a schema constant into the document, turning named schemas into `$ref`s to components. */
function publisher(schemas: Json) {
  const ensure = (name: string, schema: object) => {
    if (schemas[name]) return;
    schemas[name] = {};
    schemas[name] = publish(schema, true);
  };
  const publish = (node: unknown, root = false): any => {
    if (Array.isArray(node)) return node.map((n) => publish(n));
    if (!node || typeof node !== 'object') return node;
    const name = root ? undefined : SCHEMA_NAMES.get(node);
    if (name) {
      ensure(name, node);
      return { $ref: `#/components/schemas/${name}` };
    }
    const noted = NOTED_SCHEMAS.get(node);
    if (noted) {
      const target = [...SCHEMA_NAMES.entries()].find(([, n]) => n === noted)?.[0];
      if (target) ensure(noted, target);
      return { $ref: `#/components/schemas/${noted}`, description: (node as Json).description };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = publish(v);
    return out;
  };
  return publish;
}

const unique = <T>(values: T[]) => [...new Set(values)];

/** The error body of one response: `type` and `code` narrowed to what this response can carry. */
function errorBody(codes: ErrorCode[]): Json {
  return {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['type', 'code', 'message', 'request_id'],
        additionalProperties: false,
        properties: {
          type: { type: 'string', enum: unique(codes.map((c) => ERROR_CODES[c].type)) },
          code: { type: 'string', enum: codes },
          message: { type: 'string', description: 'For people: may change; branch on code.' },
          param: { type: 'string', description: 'The parameter at fault, e.g. `title` or `fields[0].x`.' },
          request_id: { type: 'string', pattern: '^req_[0-9a-f]{24}$', description: 'Equals the Request-Id header; quote it to support.' },
        },
      },
    },
  };
}

/** The codes every operation of this kind can answer besides its own. */
function commonErrors(method: string, isPublic: boolean, counted: boolean, spec: OperationSpec, path: string): ErrorCode[] {
  // Node's HTTP parser answers these itself, before any routing.
  const codes: ErrorCode[] = ['malformed_request', 'request_timeout', 'request_header_too_large'];
  // Any keyed operation refuses a key whose role does not allow it (auditor keys only read documents).
  if (!isPublic) codes.push('missing_api_key', 'invalid_api_key', 'insufficient_permissions', 'rate_limit_error');
  // Without a valid key a request is counted per client address (signing links per link and address).
  if (counted) codes.push('rate_limit_error');
  // The body parsers run before routing, for any request that carries a body.
  if (['post', 'put', 'patch'].includes(method)) codes.push('invalid_json', 'invalid_request_body', 'request_too_large', 'unsupported_media_type');
  if (method === 'post' && !isPublic) codes.push('idempotency_key_reused', 'idempotency_key_in_use', 'invalid_parameter');
  // Commands retry on a version conflict and give up with 409 after several.
  // A write whose outcome the store could not learn (its answer lost, the store then out of reach).
  if (method !== 'get') codes.push('concurrent_modification', 'write_outcome_unknown');
  if (spec.query) codes.push('invalid_parameter');
  // A path parameter holding NUL, another C0 control or an unpaired surrogate (param `path`).
  if (path.includes('{')) codes.push('invalid_parameter');
  // Answering with a document or a template reads its body from the blob store, checked against its hash.
  if (spec.ok.json && embeds(spec.ok.json, [DocumentSchema, TemplateSchema])) codes.push('evidence_integrity_failure');
  // Any operation touches a store; one that is away answers 503 with Retry-After, not 500.
  codes.push('service_unavailable', 'internal_error');
  return codes;
}

/** True when `schema` is or contains one of `targets` (the same schema objects, as components are). */
function embeds(schema: unknown, targets: JsonSchema[], seen = new Set<unknown>()): boolean {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return false;
  if (targets.includes(schema as JsonSchema)) return true;
  seen.add(schema);
  return Object.values(schema).some((value) => embeds(value, targets, seen));
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The OpenAPI 3.1 document of every route the application serves: Nest routes and DTOs, plus OPERATIONS and the response schemas. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder().setTitle('Dojang API').setDescription(DESCRIPTION).setVersion('1').build();
  const nest = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/HttpController$/, '')}_${method}`,
  }) as OpenAPIObject & Json;
  toJsonSchema2020(nest);

  const schemas: Json = { ...(nest.components?.schemas ?? {}) };
  // Request bodies: the validation pipe refuses properties a DTO does not declare.
  for (const [name, schema] of Object.entries(schemas)) {
    if (name.endsWith('Dto') && schema.type === 'object' && schema.additionalProperties === undefined) schema.additionalProperties = false;
  }
  const publish = publisher(schemas);

  schemas.ErrorType = { type: 'string', enum: [...ERROR_TYPES], description: 'Coarse class of the error.' };
  schemas.ErrorCode = {
    type: 'string',
    enum: PUBLIC_ERROR_CODES,
    description: PUBLIC_ERROR_CODES.map((c) => `- \`${c}\` (${ERROR_CODES[c].status}): ${ERROR_CODES[c].description}`).join('\n'),
    'x-enum-descriptions': PUBLIC_ERROR_CODES.map((c) => ERROR_CODES[c].description),
  };
  schemas.Error = {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    description: 'The body of every error response. Each response narrows `type` and `code` to the values it can carry.',
    properties: {
      error: {
        type: 'object',
        required: ['type', 'code', 'message', 'request_id'],
        additionalProperties: false,
        properties: {
          type: { $ref: '#/components/schemas/ErrorType' },
          code: { $ref: '#/components/schemas/ErrorCode' },
          message: { type: 'string' },
          param: { type: 'string' },
          request_id: { type: 'string', pattern: '^req_[0-9a-f]{24}$' },
        },
      },
    },
  };

  const paths: Json = {};
  const usedTags = new Set<string>();
  for (const [nestPath, item] of Object.entries(nest.paths as Record<string, Json>)) {
    const versioned = nestPath.startsWith('/v1/');
    const path = versioned ? nestPath.slice(3) : nestPath;
    const outItem: Json = (paths[path] ??= versioned ? {} : { servers: ROOT_SERVERS });
    // One path served at the root by one method and under /v1 by another (GET /verify, the page;
    // POST /v1/verify, its operation): the servers move onto the root operations (OpenAPI allows
    // them per operation), so the /v1 one is not read as a root path.
    const rootItem = !!outItem.servers;
    if (rootItem === versioned && Object.keys(outItem).some((k) => k !== 'servers')) {
      for (const [m, existing] of Object.entries(outItem) as Array<[string, Json]>) if (m !== 'servers' && outItem.servers) existing.servers = outItem.servers;
      delete outItem.servers;
    }
    for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const operationId = String(op.operationId);
      const spec = OPERATIONS[operationId];
      const isPublic = PUBLIC_OPERATIONS.test(operationId);
      const tag = TAGS.find(([re]) => re.test(path))?.[1] ?? 'Other';
      usedTags.add(tag);
      const out: Json = { operationId, tags: [tag], ...(!versioned && !outItem.servers ? { servers: ROOT_SERVERS } : {}) };
      outItem[method] = out;
      if (!spec) {
        // Left visibly incomplete: the platform OpenAPI test fails on it.
        out.summary = `${method.toUpperCase()} ${path}`;
        out.responses = { default: { description: 'Undocumented' } };
        continue;
      }
      out.summary = spec.summary;
      out.description = spec.description;
      if (isPublic) out.security = [];

      // Parameters: path parameters for every {name}, query parameters from the spec or the DTO.
      const given = (op.parameters ?? []) as Json[];
      const params: Json[] = [];
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        params.push({ name, in: 'path', required: true, description: PATH_PARAMS[name] ?? name, schema: { type: 'string' } });
      }
      for (const p of given.filter((p) => p.in === 'query')) {
        const override = spec.query?.[p.name];
        params.push(
          override
            ? { name: p.name, in: 'query', required: override.required ?? false, description: override.description, schema: override.schema, ...(override.style ? { style: override.style, explode: true } : {}) }
            : { ...p, required: false },
        );
      }
      for (const [name, q] of Object.entries(spec.query ?? {})) {
        if (!params.some((p) => p.in === 'query' && p.name === name)) {
          params.push({ name, in: 'query', required: q.required ?? false, description: q.description, schema: q.schema, ...(q.style ? { style: q.style, explode: true } : {}) });
        }
      }
      if (method === 'post' && !isPublic) {
        const required = operationId === 'SignatureRequests_create';
        params.push({
          name: 'Idempotency-Key',
          in: 'header',
          required,
          description: required
            ? 'Required: a unique key per signature request (at most 255 characters).'
            : 'Optional: makes the request safe to retry (at most 255 characters, kept 24 hours).',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        });
      }
      if (params.length) out.parameters = params;

      if (spec.multipart) {
        out.requestBody = { required: true, content: { 'multipart/form-data': { schema: spec.multipart.schema, ...(spec.multipart.encoding ? { encoding: spec.multipart.encoding } : {}) } } };
      } else if (op.requestBody) {
        out.requestBody = { ...op.requestBody, required: spec.bodyRequired ?? true };
        const ref = String(op.requestBody.content?.['application/json']?.schema?.$ref ?? '');
        const body = schemas[ref.replace('#/components/schemas/', '')];
        if (spec.bodyShapes && body) {
          // Several accepted shapes: each lists what it requires (the DTO marks them all optional).
          delete body.required;
          body.anyOf = spec.bodyShapes.map((required) => ({ required }));
        }
      }

      // Responses: the success, then each error status with the codes it can carry.
      const rateHeaders = UNCOUNTED_OPERATIONS.test(operationId) ? {} : { 'RateLimit-Limit': header('RateLimit-Limit'), 'RateLimit-Remaining': header('RateLimit-Remaining'), 'RateLimit-Reset': header('RateLimit-Reset') };
      const replayHeader = method === 'post' && !isPublic ? { 'Idempotent-Replayed': header('Idempotent-Replayed') } : {};
      const responses: Json = {};
      const content = spec.ok.json
        ? { 'application/json': { schema: publish(spec.ok.json) } }
        : Object.fromEntries(Object.entries(spec.ok.media ?? {}).map(([type, schema]) => [type, { schema }]));
      responses[String(spec.ok.status)] = {
        description: spec.ok.description,
        headers: { 'Request-Id': header('Request-Id'), ...rateHeaders, ...replayHeader },
        content,
      };
      const codes = unique([...spec.errors, ...commonErrors(method, isPublic, !UNCOUNTED_OPERATIONS.test(operationId), spec, path)]);
      const byStatus = new Map<number, ErrorCode[]>();
      for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
      for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
        const statusCodes = byStatus.get(status) as ErrorCode[];
        responses[String(status)] = {
          description: statusCodes.map((c) => `\`${c}\`: ${ERROR_CODES[c].description}`).join('\n\n'),
          'x-error-codes': statusCodes,
          headers: {
            'Request-Id': header('Request-Id'),
            ...rateHeaders,
            // Rate limits, cooldowns, version conflicts and an unreachable store say when to retry.
            ...(status === 429 || status === 409 || status === 503 ? { 'Retry-After': header('Retry-After') } : {}),
            ...(status < 500 ? replayHeader : {}),
            // A write that landed whose answer could not be read back (a signature).
            ...(status === 503 ? { 'Write-Landed': header('Write-Landed') } : {}),
          },
          content: { 'application/json': { schema: errorBody(statusCodes) } },
        };
      }
      // Pages that answer a refusal as a page of their own (the editor's used or expired URL).
      for (const [status, page] of Object.entries(spec.pages ?? {})) {
        responses[status] = { description: page.description, headers: { 'Request-Id': header('Request-Id') }, content: { 'text/html': { schema: { type: 'string' } } } };
      }
      out.responses = responses;
    }
  }

  // Webhooks: one POST per public event type, with the data that type carries.
  const webhooks: Json = {};
  publish(EventSchema);
  publish(EventDataSchema);
  for (const type of PUBLIC_EVENT_TYPES) {
    const { required, description } = EVENT_DATA_BY_TYPE[type];
    const name = `Event_${type.replace('.', '_')}`;
    schemas[name] = {
      description: `Payload of ${type}: ${description}`,
      allOf: [
        { $ref: '#/components/schemas/Event' },
        {
          type: 'object',
          // What this type always carries, required (with its schema) so a typed client need not check it.
          properties: {
            type: { const: type },
            data: { type: 'object', properties: Object.fromEntries(required.map((k) => [k, (EventDataSchema.properties as Record<string, Json>)[k]])), required },
          },
          required: ['type', 'data'],
        },
      ],
    };
    webhooks[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: type,
        description: `${description} POSTed to every enabled endpoint subscribed to ${type} (or "*"). Verify the webhook-signature header (Standard Webhooks: HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" with the endpoint secret), deduplicate on webhook-id, and answer 2xx within 10 seconds; anything else is retried with back-off.`,
        parameters: [
          { name: 'webhook-id', in: 'header', required: true, description: 'The event id (evt_…): the same on every retry.', schema: { type: 'string' } },
          { name: 'webhook-timestamp', in: 'header', required: true, description: 'Epoch seconds of this attempt.', schema: { type: 'string', pattern: '^\\d+$' } },
          { name: 'webhook-signature', in: 'header', required: true, description: 'Space-separated `v1,<base64 HMAC-SHA256>` signatures.', schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: { '2XX': { description: 'Acknowledged; any other answer (or none within the timeout) is retried.' } },
      },
    };
  }
  // The test delivery (POST /webhook_endpoints/{id}/test) reaches the same receiver, signed the
  // same way: a receiver typed from this document must expect its type too.
  schemas.Event_webhook_test = {
    description: 'Payload of webhook.test: sent by POST /webhook_endpoints/{id}/test, never retried; data.object is the endpoint.',
    type: 'object',
    additionalProperties: false,
    required: ['id', 'object', 'type', 'created_at', 'livemode', 'data'],
    properties: {
      id: { type: 'string', description: 'evt_…; also the webhook-id header.' },
      object: { const: 'event' },
      type: { const: 'webhook.test' },
      created_at: { type: 'string', format: 'date-time' },
      livemode: { type: 'boolean' },
      data: {
        type: 'object',
        additionalProperties: false,
        required: ['object'],
        properties: {
          object: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'object', 'url'],
            properties: { id: { type: 'string' }, object: { const: 'webhook_endpoint' }, url: { type: 'string' } },
          },
        },
      },
    },
  };
  webhooks['webhook.test'] = {
    post: {
      ...webhooks['document.sent'].post,
      operationId: 'webhook_webhook_test',
      summary: 'webhook.test',
      description: 'Sent on demand by POST /webhook_endpoints/{id}/test to check a receiver: signed like every delivery, not retried.',
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Event_webhook_test' } } } },
    },
  };

  const doc: Json = {
    openapi: '3.1.0',
    info: nest.info,
    servers: [
      { url: '/v1', description: 'This server' },
      { url: '/api/v1', description: 'Legacy root: the same operations' },
    ],
    security: [{ api_key: [] }],
    tags: [...usedTags].sort().map((name) => ({ name })),
    paths,
    webhooks,
    components: {
      schemas,
      securitySchemes: {
        api_key: { type: 'http', scheme: 'bearer', description: 'An API key: sk_test_… (test mode) or sk_live_… (live mode), from the organization settings.' },
      },
      headers: {
        'Request-Id': { description: 'Identifies the request (req_…); the same value as error.request_id.', schema: { type: 'string', pattern: '^req_[0-9a-f]{24}$' } },
        'RateLimit-Limit': { description: 'Requests allowed per window (minute): per API key; without a valid key, per client address; on signing links, per link or per address, whichever has fewer left.', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Epoch seconds when the current window ends.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
        'Idempotent-Replayed': { description: '"true" on a response replayed for a repeated Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
        'Write-Landed': {
          description: '"true" on a 503 whose write was recorded, only reading the result back failed (a signature): read the resource, or repeat the request (a signing link answers the same signature with the signed state).',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    },
  };
  return doc as OpenAPIObject;
}
