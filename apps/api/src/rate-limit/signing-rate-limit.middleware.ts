import { Clock, Infrastructure, sha256Hex } from '@dojang/application';
import { NextFunction, Request, Response } from 'express';
import { RateLimitDecision, WindowCounter } from './rate-limit.middleware';

/** Express routes case-insensitively, so /V1/Signing/… reaches the same handlers. */
const SIGNING_PATH = /^\/v1\/signing\/([^/?#]*)/i;

/** A request to the signing-link API, whose credential is the link's token, never an API key. */
export const isSigningLinkPath = (url: string) => SIGNING_PATH.test(url);

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
        perIp > 0 ? counter.count(`signing-ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`, perIp) : null,
      ]);
      const refused = [byToken, byIp].filter((d): d is RateLimitDecision => d !== null && !d.allowed);
      if (refused.length === 0) return next();
      const retryAfter = Math.max(...refused.map((d) => d.retryAfter));
      const what = refused[0] === byToken ? `${perToken} per minute per signing link` : `${perIp} per minute per client address`;
      res.setHeader('Retry-After', String(retryAfter));
      res.status(429).json({
        error: {
          type: 'rate_limit_error',
          code: 'rate_limit_error',
          message: `Too many requests: at most ${what}. Retry after ${retryAfter} s.`,
          request_id: req.requestId,
        },
      });
    })().catch(next);
  };
}
