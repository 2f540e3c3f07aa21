import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata, createParamDecorator } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { KeyRole } from '@dojang/domain';
import { CommandContext, Infrastructure, sha256Hex } from '@dojang/application';
import { API_KEYS, ApiKeyRow } from '@dojang/projections';
import { timingSafeEqual } from 'crypto';
import { Request } from 'express';
import { ApiError } from './api-error';
import type { IdempotentRequest } from '../idempotency/idempotent-creation';
import { INFRA } from './infrastructure.token';

export interface AuthContext {
  organization_id: string;
  livemode: boolean;
  key_id: string;
  mode: 'test' | 'live';
  /** `auditor` keys read documents and nothing else (see ApiKeyGuard). */
  role: KeyRole;
}

export type AuthedRequest = Request & { auth?: AuthContext; requestId?: string };

const PUBLIC = 'dojang:public';
/** Routes reachable without an API key (health, signing links, docs). */
export const Public = () => SetMetadata(PUBLIC, true);

const KEY = /^sk_(test|live)_[A-Za-z0-9_-]{20,128}$/;

@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    // The same lookup the middleware made (one per request): a key refused there is refused here
    // with its 401, and a lookup that failed fails here too (503), never looked up a second time.
    const looked = await lookUpRequestKey(this.infra, req);
    if (looked instanceof ApiError) throw looked;
    req.auth = looked;
    if (req.auth.role !== 'full' && !auditorMayCall(req.method, routePaths(context))) {
      throw new ApiError(403, 'permission_error', 'insufficient_permissions', 'This API key is read-only (role auditor): it can read documents, their histories and evidence, events and plugin read models (/v1/extensions), and nothing else.');
    }
    return true;
  }
}

/**
 * The routes whose reads an auditor key may make: documents (and everything under them), events,
 * and the plugin read models (aggregates of those documents, scoped the same way).
 */
const AUDITOR_READABLE = /^\/*(documents|events|extensions)(\/|$)/;

/** The route templates of the handler (controller path joined with the method's), without the /v1 prefix. */
export function routePaths(context: ExecutionContext): string[] {
  const list = (v: unknown) => (Array.isArray(v) ? v : [v ?? '']).map(String);
  const classPaths = list(Reflect.getMetadata(PATH_METADATA, context.getClass()));
  const handlerPaths = list(Reflect.getMetadata(PATH_METADATA, context.getHandler()));
  return classPaths.flatMap((c) => handlerPaths.map((h) => `${c}/${h}`.replace(/\/+/g, '/').replace(/^\/|\/$/g, '')));
}

/**
 * The part of the role check that needs no route: an auditor key never writes. The idempotency
 * middleware asks this before it replays anything, since it runs before the guard.
 */
export function roleMayUseMethod(role: KeyRole, method: string): boolean {
  return role === 'full' || method === 'GET' || method === 'HEAD';
}

/**
 * Default deny: any method but GET/HEAD is a write, whatever the route (so a route added later is
 * covered without anyone remembering), and reads are allowed only on the document controllers —
 * not the outbox (PINs, signing links), webhook endpoints, members or anything else.
 */
export function auditorMayCall(method: string, routes: string[]): boolean {
  if (!roleMayUseMethod('auditor', method)) return false;
  return routes.length > 0 && routes.every((p) => AUDITOR_READABLE.test(p));
}

export async function authenticate(infra: Infrastructure, header: string | undefined): Promise<AuthContext> {
  if (!header) {
    throw new ApiError(401, 'authentication_error', 'missing_api_key', 'No API key provided. Send "Authorization: Bearer sk_test_…".');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const key = match?.[1] ?? '';
  const invalid = () => new ApiError(401, 'authentication_error', 'invalid_api_key', 'Invalid API key.');
  if (!KEY.test(key)) throw invalid();
  const hash = sha256Hex(key);
  const row = await infra.reads.get<ApiKeyRow>(API_KEYS, hash);
  if (!row || row.revoked || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) throw invalid();
  const mode = key.startsWith('sk_live_') ? 'live' : 'test';
  if (row.mode !== mode) throw invalid();
  return { organization_id: row.organization_id, livemode: mode === 'live', key_id: row.key_id, mode, role: row.role ?? 'full' };
}

const RESOLVED = Symbol('dojang:api-key');

/**
 * A check that could not decide because its store failed (the key lookup, an Idempotency-Key's
 * claim): answered 503 service_unavailable with Retry-After, never taken as "no key" or "no claim".
 */
export class CheckUnavailableError extends Error {
  constructor(what: string, cause: unknown) {
    super(`${what} could not be made: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * The request's API key, looked up once per request: the key's context, the 401 that refuses it
 * (no key, a malformed, unknown, revoked or wrong-mode key), or a rejection when the lookup itself
 * failed (CheckUnavailableError). A failed lookup is never "no key": the middleware would then skip
 * itself (an Idempotency-Key unclaimed, a request counted against an address) while the guard,
 * looking again, let the route run.
 */
function lookUpRequestKey(infra: Infrastructure, req: Request): Promise<AuthContext | ApiError> {
  const holder = req as Request & { [RESOLVED]?: Promise<AuthContext | ApiError> };
  holder[RESOLVED] ??= authenticate(infra, req.headers.authorization).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 401) return err;
    throw new CheckUnavailableError('The API key lookup', err);
  });
  return holder[RESOLVED];
}

/**
 * The API key of a request as the middleware (rate limit, idempotency) sees it, before Nest's guard
 * runs: null when the request has no valid key (the guard then answers 401). Rejects when the key
 * could not be looked up (the store failed): the caller answers 503, it never goes on as if keyless.
 */
export async function requestApiKey(infra: Infrastructure, req: Request): Promise<AuthContext | null> {
  const looked = await lookUpRequestKey(infra, req);
  return looked instanceof ApiError ? null : looked;
}

export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  if (!req.auth) throw new ApiError(401, 'authentication_error', 'missing_api_key', 'No API key provided.');
  return req.auth;
});

export interface RequestInfo {
  ip: string | null;
  user_agent: string | null;
  request_id: string;
  /** Set when the request runs under a claimed Idempotency-Key: ids it makes up derive from it. */
  idempotency?: IdempotentRequest;
}

export const ReqInfo = createParamDecorator((_: unknown, ctx: ExecutionContext): RequestInfo => {
  const req = ctx.switchToHttp().getRequest<AuthedRequest>();
  const idempotency = (req as AuthedRequest & { idempotency?: IdempotentRequest }).idempotency;
  return { ip: req.ip ?? null, user_agent: req.headers['user-agent'] ?? null, request_id: req.requestId ?? '', ...(idempotency ? { idempotency } : {}) };
});

/** The command context of a request made with an API key: who acted, in which world, from where. */
export function commandContext(auth: AuthContext, info: RequestInfo, actor?: string): CommandContext {
  return {
    actor: actor ?? auth.key_id,
    organization_id: auth.organization_id,
    livemode: auth.livemode,
    ip: info.ip,
    user_agent: info.user_agent,
    correlation_id: info.request_id,
    // Under an Idempotency-Key a retried request names the events it already wrote (no second write).
    ...(info.idempotency ? { event_ids: info.idempotency.events } : {}),
  };
}
