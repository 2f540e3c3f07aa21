import { Clock, Infrastructure } from '@dojang/application';
import { NextFunction, Request, Response } from 'express';
import { requestApiKey } from './request-auth';
import { isSigningLinkPath } from './signing-link-path';
import { isPublicVerifyRequest } from './verify-path';

export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Epoch seconds at which the current window ends. */
  reset: number;
  /** Seconds to wait before the next request can succeed; 0 when this one is allowed. */
  retryAfter: number;
  allowed: boolean;
}

interface PendingHits {
  key: string;
  windowStart: number;
  waiting: Array<{ resolve: (count: number) => void; reject: (err: unknown) => void }>;
}

/**
 * Fixed-window counter per API key: `limit` requests per minute, windows aligned to the minute of
 * the injected clock. The count lives in the read store (SQLite, PostgreSQL or MongoDB), so every
 * API process on the same store shares it. The hits a process receives for one key are written as
 * one increment by their number: those of one round of the event loop, and while an increment of
 * the key is on its way to a database server, every hit until it returns (one increment in flight
 * per key, as the event store's group append). Each request still gets its own place in the shared
 * count (the n hits of an increment that returned c are c-n+1…c).
 */
export class WindowCounter {
  private pending = new Map<string, PendingHits>();
  /** Keys (with window) whose increment is on its way. */
  private readonly inFlight = new Set<string>();
  private scheduled = false;

  constructor(
    private readonly infra: Infrastructure,
    private readonly clock: Clock,
  ) {}

  async count(keyId: string, limit: number): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowStart = Math.floor(now / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS;
    const windowEnd = windowStart + RATE_LIMIT_WINDOW_MS;
    const count = await this.hit(`ratelimit:${keyId}`, windowStart);
    const allowed = count <= limit;
    return {
      limit,
      remaining: Math.max(0, limit - count),
      reset: Math.ceil(windowEnd / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      allowed,
    };
  }

  private hit(key: string, windowStart: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const id = `${key}|${windowStart}`;
      let hits = this.pending.get(id);
      if (!hits) {
        hits = { key, windowStart, waiting: [] };
        this.pending.set(id, hits);
      }
      hits.waiting.push({ resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    for (const [id, { key, windowStart, waiting }] of this.pending) {
      // Sent when the running increment of this key returns.
      if (this.inFlight.has(id)) continue;
      this.pending.delete(id);
      this.inFlight.add(id);
      this.infra.reads
        .incrementWindow(key, windowStart, RATE_LIMIT_WINDOW_MS, waiting.length)
        .then(
          (total) => waiting.forEach((w, i) => w.resolve(total - waiting.length + 1 + i)),
          (err) => waiting.forEach((w) => w.reject(err)),
        )
        .finally(() => {
          this.inFlight.delete(id);
          if (this.pending.has(id)) this.schedule();
        });
    }
  }
}

/** The count's standing, on every counted response (SPEC: rate headers on every response). */
export function setRateHeaders(res: Response, d: RateLimitDecision): void {
  res.setHeader('RateLimit-Limit', String(d.limit));
  res.setHeader('RateLimit-Remaining', String(d.remaining));
  res.setHeader('RateLimit-Reset', String(d.reset));
}

/** 429 with Retry-After; `what` names the limit (“600 per minute per API key”). */
export function refuseOverLimit(req: Request & { requestId?: string }, res: Response, retryAfter: number, what: string): void {
  res.setHeader('Retry-After', String(retryAfter));
  res.status(429).json({
    error: {
      type: 'rate_limit_error',
      code: 'rate_limit_error',
      message: `Too many requests: at most ${what}. Retry after ${retryAfter} s.`,
      request_id: req.requestId,
    },
  });
}

/**
 * Health checks and metrics are never counted: a probe or a scraper must get its answer even
 * while the read store, where the counts live, does not answer. Express routes case-insensitively.
 */
const UNCOUNTED_PATH = /^\/(v1\/health|metrics)(\/|\?|$)/i;

/** The client's address: the connection's, or X-Forwarded-For from a proxy on loopback ('trust proxy'). */
export const clientAddress = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/**
 * Runs before everything else that can answer (body parsing, routing, guards, the error filter), so
 * its headers are on every counted response, errors included. A request with a valid API key is
 * counted against its key; one without (a 401, the public reference pages, the signing page) against
 * its client address, so guessing keys or hammering public pages is bounded too. Signing links have
 * their own limits (signing-rate-limit.middleware.ts); health checks and metrics none.
 */
export function rateLimitMiddleware(infra: Infrastructure, clock: Clock) {
  const perKey = infra.config.rateLimitPerMinute;
  const perAddress = infra.config.unauthenticatedRateLimitPerMinute;
  const counter = new WindowCounter(infra, clock);
  return (req: Request & { requestId?: string }, res: Response, next: NextFunction) => {
    if (!(perKey > 0) && !(perAddress > 0)) return next();
    // Signing links and public verification are counted in buckets of their own.
    if (UNCOUNTED_PATH.test(req.url) || isSigningLinkPath(req.url) || isPublicVerifyRequest(req)) return next();
    void (async () => {
      const auth = await requestApiKey(infra, req);
      if (auth ? !(perKey > 0) : !(perAddress > 0)) return next();
      const d = auth ? await counter.count(auth.key_id, perKey) : await counter.count(`anonymous-ip:${clientAddress(req)}`, perAddress);
      setRateHeaders(res, d);
      if (d.allowed) return next();
      refuseOverLimit(req, res, d.retryAfter, auth ? `${d.limit} per minute per API key` : `${d.limit} per minute per client address without a valid API key`);
    })().catch(next);
  };
}
