import { Clock, Infrastructure, sha256Hex } from '@dojang/application';
import { NextFunction, Request, Response } from 'express';
import { clientAddress, RateLimitDecision, refuseOverLimit, setRateHeaders, WindowCounter } from './rate-limit.middleware';
import { SIGNING_PATH } from './signing-link-path';

function tokenOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Signing links carry no API key, so the per-key limit never sees them: a leaked or guessed link,
 * or a script trying PINs, could otherwise drive unbounded work (and, before a PIN locks, events)
 * on one document. Fixed windows per signing token and per client address, in the same shared
 * counter as the API-key limit. The token is counted by its SHA-256, like everywhere else it is stored.
 */
export function signingRateLimitMiddleware(infra: Infrastructure, clock: Clock) {
  const { perToken, perIp } = infra.config.signingRateLimit;
  const counter = new WindowCounter(infra, clock);
  return (req: Request & { requestId?: string }, res: Response, next: NextFunction) => {
    const match = SIGNING_PATH.exec(req.url);
    if (!match || (!(perToken > 0) && !(perIp > 0))) return next();
    void (async () => {
      const [byToken, byIp] = await Promise.all([
        perToken > 0 ? counter.count(`signing-token:${sha256Hex(tokenOf(match[1]))}`, perToken) : null,
        perIp > 0 ? counter.count(`signing-ip:${clientAddress(req)}`, perIp) : null,
      ]);
      const decisions = [byToken, byIp].filter((d): d is RateLimitDecision => d !== null);
      // The headers tell the count nearest its end (the link's, unless the address's is lower).
      setRateHeaders(res, decisions.reduce((a, b) => (b.remaining < a.remaining ? b : a)));
      const refused = decisions.filter((d) => !d.allowed);
      if (refused.length === 0) return next();
      const what = refused[0] === byToken ? `${perToken} per minute per signing link` : `${perIp} per minute per client address`;
      refuseOverLimit(req, res, Math.max(...refused.map((d) => d.retryAfter)), what);
    })().catch(next);
  };
}
