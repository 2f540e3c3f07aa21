import { Clock, Infrastructure } from '@dojang/application';
import { NextFunction, Request, Response } from 'express';
import { clientAddress, refuseOverLimit, setRateHeaders, WindowCounter } from './rate-limit.middleware';
import { isPublicVerifyRequest } from './verify-path';

/**
 * Anyone may drop a PDF on POST /v1/verify without an API key, and each drop costs a worker up to
 * a few hundred milliseconds of parsing and signature checks: a fixed window per client address
 * of its own (VERIFY_RATE_LIMIT_PER_MINUTE), far below the general limit for requests without a
 * key, counted before the body is read so a refused upload costs nothing. An API key does not
 * lift it: the operation never looks at one.
 */
export function verifyRateLimitMiddleware(infra: Infrastructure, clock: Clock) {
  const perAddress = infra.config.verifyRateLimitPerMinute;
  const counter = new WindowCounter(infra, clock);
  return (req: Request & { requestId?: string }, res: Response, next: NextFunction) => {
    if (!isPublicVerifyRequest(req) || !(perAddress > 0)) return next();
    void (async () => {
      const d = await counter.count(`verify-ip:${clientAddress(req)}`, perAddress);
      setRateHeaders(res, d);
      if (d.allowed) return next();
      // The upload is not read: let it drain so the 429 reaches a client still sending.
      req.resume();
      refuseOverLimit(req, res, d.retryAfter, `${d.limit} verifications per minute per client address`);
    })().catch(next);
  };
}
