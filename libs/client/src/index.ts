/**
 * @dojang/client: a typed client for the Dojang API. The types are generated from the OpenAPI
 * document the API serves (schema.d.ts, `npm run generate:client`); the calls go through
 * openapi-fetch, so every path, parameter, request body and response body is checked by tsc and
 * nothing here is written by hand except the bearer header and a few names for common shapes.
 *
 *   const dojang = createDojangClient({ baseUrl: 'https://dojang.example/v1', apiKey: 'sk_test_…' });
 *   const { data, error } = await dojang.POST('/documents', { body: { title: '근로계약서', content: '<p>…</p>' } });
 *   if (error) throw new DojangApiError(error);
 *   data.id; // string
 */
import createClient, { Client, ClientOptions } from 'openapi-fetch';
import type { components, operations, paths, webhooks } from './schema';

export type { components, operations, paths, webhooks };
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type { VerifyWebhookOptions, WebhookEvent, WebhookHeaders, WebhookPayload } from './webhooks';

export interface DojangClientOptions {
  /**
   * The API root, `/v1` included: `http://localhost:3000/v1` (the legacy `…/api/v1` works too).
   * Paths are relative to it, as in the OpenAPI document (`servers[0]`).
   */
  baseUrl: string;
  /**
   * `sk_test_…` or `sk_live_…`, sent as `Authorization: Bearer`. Leave it out for a signer's
   * client: the signing operations (`/signing/{token}/…`) take the link's token instead of a key.
   */
  // `| undefined` on each: `apiKey: process.env.KEY` (string | undefined) compiles under
  // exactOptionalPropertyTypes, and undefined means left out.
  apiKey?: string | undefined;
  /** Another fetch (a test double, a proxy agent); default: the global fetch. */
  fetch?: ClientOptions['fetch'] | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
}

export type DojangClient = Client<paths>;

/** An openapi-fetch client for the Dojang API, with the API key (when given) on every request. */
export function createDojangClient(options: DojangClientOptions): DojangClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers.Authorization = `Bearer ${options.apiKey}`;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

type Schemas = components['schemas'];

/** Any named schema of the document, e.g. `Schema<'Seal'>`. */
export type Schema<Name extends keyof Schemas> = Schemas[Name];

export type Document = Schemas['Document'];
export type DocumentStatus = Schemas['DocumentStatus'];
export type Participant = Schemas['Participant'];
export type ParticipantStatus = Schemas['ParticipantStatus'];
export type Field = Schemas['Field'];
export type SigningSession = Schemas['SigningSession'];
export type OutboxMessage = Schemas['OutboxMessage'];
export type AuditEntry = Schemas['AuditEntry'];
export type Event = Schemas['Event'];
export type EventType = Schemas['EventType'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type Seal = Schemas['Seal'];
export type Template = Schemas['Template'];
export type UploadedFile = Schemas['File'];
export type Organization = Schemas['Organization'];

/** Request bodies, under the names integrators look for. */
export type CreateDocumentBody = Schemas['CreateDocumentDto'];
export type CreateParticipantBody = Schemas['ParticipantDto'];
export type FieldPlacement = Schemas['FieldDto'];
export type SignBody = Schemas['SignDto'];

/** The body of every error response: `{error: {type, code, message, param?, request_id}}`. */
export type ApiErrorBody = Schemas['Error'];
export type ApiErrorCode = Schemas['ErrorCode'];
export type ApiErrorType = Schemas['ErrorType'];

/**
 * An error answer as an exception: `if (error) throw new DojangApiError(error, response)`. Each
 * operation's `error` is the union of the bodies it documents, all of which are an ApiErrorBody.
 */
export class DojangApiError extends Error {
  /** The HTTP status, when the response was given. */
  readonly status: number | undefined;
  readonly type: ApiErrorType;
  readonly code: ApiErrorCode;
  readonly param: string | undefined;
  /** Quote it to support: it is also the response's Request-Id header. */
  readonly requestId: string;

  constructor(
    readonly body: ApiErrorBody,
    response?: Response,
  ) {
    super(`${response ? `${response.status} ` : ''}${body.error.code}: ${body.error.message} (${body.error.request_id})`);
    this.name = 'DojangApiError';
    this.status = response?.status;
    this.type = body.error.type;
    this.code = body.error.code;
    this.param = body.error.param;
    this.requestId = body.error.request_id;
  }
}
