import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request, { Response } from 'supertest';

/** The document's base URI inside ajv: `#/components/schemas/X` refs resolve against it. */
const DOC_ID = 'https://dojang.invalid/openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Route {
  method: string;
  template: string;
  /** Under the /v1 (and legacy /api/v1) servers, or at the server root. */
  versioned: boolean;
  pattern: RegExp;
  literalLength: number;
  operation: any;
}

/** `#/components/…` refs of a schema copied out of the document, made absolute so ajv resolves them against it. */
function absoluteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? DOC_ID + v : absoluteRefs(v);
  return out;
}

/**
 * Checks a response against the served OpenAPI document: the request must match a documented
 * operation (method and path template), the status must be one it lists, the Content-Type one the
 * response lists, and a JSON body must validate (JSON Schema 2020-12, formats checked, and
 * undocumented properties refused: response objects say additionalProperties false).
 */
export class OpenApiResponseValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly document: any) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: document.components }, undefined, undefined, false);
    for (const [template, item] of Object.entries<any>(document.paths)) {
      const literal = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
      // Express routes case-insensitively and ignores one trailing slash: so does the match.
      const pattern = new RegExp(`^${literal.join('[^/]+')}/?$`, 'i');
      for (const method of METHODS) {
        if (!item[method]) continue;
        this.routes.push({ method, template, versioned: !(item[method].servers ?? item.servers), pattern, literalLength: template.replace(/\{[^}]+\}/g, '').length, operation: item[method] });
      }
    }
    // A literal segment wins over a parameter (/participants/batch before /participants/{id}).
    this.routes.sort((a, b) => b.literalLength - a.literalLength);
  }

  private schemaValidator(key: string, schema: unknown): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile(absoluteRefs(schema) as object);
      this.compiled.set(key, fn);
    }
    return fn;
  }

  /** The operation a request reaches, or undefined. */
  match(method: string, url: string): Route | undefined {
    let path = decodeURI(new URL(url, 'http://localhost').pathname);
    // The legacy root is rewritten case-sensitively (create-app.ts), the routes match in any case.
    if (path === '/api/v1' || path.startsWith('/api/v1/')) path = path.slice(4);
    const versionedPath = /^\/v1(\/|$)/i.test(path) ? path.slice(3) : null;
    const m = method.toLowerCase();
    return this.routes.find((r) => r.method === m && (r.versioned ? versionedPath !== null && r.pattern.test(versionedPath) : r.pattern.test(path)));
  }

  /** Throws an Error describing every way the response departs from the document. */
  check(method: string, url: string, res: Response): void {
    const where = `${method.toUpperCase()} ${new URL(url, 'http://localhost').pathname}`;
    const body = () => JSON.stringify(res.body ?? res.text)?.slice(0, 600);
    const route = this.match(method, url);
    if (!route) {
      // Unknown routes are answered 404 resource_not_found (Nest has no 405 for a known path).
      if (res.status === 404 && res.body?.error?.code === 'resource_not_found') {
        return this.validateJson(`${where} (no such route)`, 'unknown-route', this.document.components.schemas.Error, res);
      }
      throw new Error(`OpenAPI: ${where} matches no documented operation (answered ${res.status}): ${body()}`);
    }
    const label = `${route.method.toUpperCase()} ${route.versioned ? '/v1' : ''}${route.template} → ${res.status}`;
    const response = route.operation.responses?.[String(res.status)] ?? route.operation.responses?.[`${String(res.status)[0]}XX`];
    if (!response) {
      throw new Error(`OpenAPI: ${label} is not a documented status (documented: ${Object.keys(route.operation.responses ?? {}).join(', ')}): ${body()}`);
    }
    const contentType = String(res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!response.content) {
      if (contentType) throw new Error(`OpenAPI: ${label} documents no body but ${contentType} was served`);
      return;
    }
    const media = response.content[contentType];
    if (!media) throw new Error(`OpenAPI: ${label} served ${contentType || 'no Content-Type'}; documented: ${Object.keys(response.content).join(', ')}`);
    if (contentType === 'application/json' && method.toLowerCase() !== 'head') {
      this.validateJson(label, `${route.method} ${route.template} ${res.status}`, media.schema, res);
    }
  }

  private validateJson(label: string, key: string, schema: unknown, res: Response): void {
    const validate = this.schemaValidator(key, schema);
    if (!validate(res.body)) {
      const problems = (validate.errors ?? []).map((e) => `  ${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      throw new Error(`OpenAPI: ${label} body does not match the document:\n${problems.slice(0, 12).join('\n')}\nbody: ${JSON.stringify(res.body).slice(0, 800)}`);
    }
  }
}

type Agent = ReturnType<typeof request>;

/**
 * A supertest agent whose every response is checked against the app's own served document
 * (fetched once, on the first response). A mismatch fails the request's promise, and so the test.
 */
export function validatingAgent(server: Parameters<typeof request>[0]): Agent {
  const raw = request(server);
  let validator: Promise<OpenApiResponseValidator> | null = null;
  const load = () =>
    (validator ??= raw.get('/v1/openapi.json').then((r) => {
      if (r.status !== 200) throw new Error(`OpenAPI: GET /v1/openapi.json answered ${r.status}`);
      return new OpenApiResponseValidator(r.body);
    }));
  const agent: Record<string, unknown> = {};
  for (const method of [...METHODS, 'del', 'head', 'options'] as const) {
    agent[method] = (url: string) => {
      const test = (raw as any)[method](url);
      const end = test.end.bind(test);
      test.end = (fn: (err: unknown, res: Response) => void) =>
        end((err: unknown, res: Response) => {
          if (err || !res) return fn(err, res);
          load()
            .then((v) => v.check(test.method, test.url, res))
            .then(
              () => fn(null, res),
              (e) => fn(e, res),
            );
        });
      return test;
    };
  }
  return agent as unknown as Agent;
}
