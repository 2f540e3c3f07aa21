import { Infrastructure } from '@dojang/application';
import { Request } from 'express';
import { AuthContext, authenticate } from '../shared/auth.guard';

const RESOLVED = Symbol('dojang:api-key');

/**
 * The API key of a request as the middleware (rate limit, idempotency) sees it, before Nest's guard
 * runs: null when there is no valid key (the guard then answers 401). Looked up once per request.
 */
export function requestApiKey(infra: Infrastructure, req: Request): Promise<AuthContext | null> {
  const holder = req as Request & { [RESOLVED]?: Promise<AuthContext | null> };
  holder[RESOLVED] ??= req.headers.authorization ? authenticate(infra, req.headers.authorization).catch(() => null) : Promise.resolve(null);
  return holder[RESOLVED];
}
