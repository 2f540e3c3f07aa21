import { Request } from 'express';

/** POST /v1/verify (the legacy /api/v1/verify is rewritten before the limiters run). Express routes case-insensitively. */
const VERIFY_PATH = /^\/v1\/verify\/?(\?|$)/i;

/** A public verification request: counted in a bucket of its own (verify-rate-limit.middleware.ts), not the general one. */
export const isPublicVerifyRequest = (req: Pick<Request, 'method' | 'url'>) => req.method === 'POST' && VERIFY_PATH.test(req.url);
