import { Clock, Infrastructure } from '@dojang/application';
import { NextFunction, Request, Response } from 'express';
import { requestApiKey } from './request-auth';

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
 * the injected clock. The count lives in the read store (SQLite file or MongoDB), so every API
 * process on the same store shares it. The hits a process receives for one key while the event
 * loop handles one round of I/O are written as one increment by their number; each request still
 * gets its own place in the shared count (the n hits of an increment that returned c are c-n+1…c).
 */
export class WindowCounter {
  private pending = new Map<string, PendingHits>();

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
        if (this.pending.size === 1) setImmediate(() => this.flush());
      }
      hits.waiting.push({ resolve, reject });
    });
  }

  private flush(): void {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    for (const { key, windowStart, waiting } of batch) {
      this.infra.reads.incrementWindow(key, windowStart, RATE_LIMIT_WINDOW_MS, waiting.length).then(
        (total) => waiting.forEach((w, i) => w.resolve(total - waiting.length + 1 + i)),
        (err) => waiting.forEach((w) => w.reject(err)),
      );
    }
  }
}

/**
 * Runs before everything else that can answer (body parsing, routing, guards, the error filter), so
 * its headers are on every response of a request made with a valid key, errors included. Requests
 * without a valid key are not counted (there is no key to count them against) and get a 401 from
 * the guard, without rate-limit headers.
 */
export function rateLimitMiddleware(infra: Infrastructure, clock: Clock) {
  const limit = infra.config.rateLimitPerMinute;
  const counter = new WindowCounter(infra, clock);
  return (req: Request & { requestId?: string }, res: Response, next: NextFunction) => {
    if (!(limit > 0)) return next();
    void (async () => {
      const auth = await requestApiKey(infra, req);
      if (!auth) return next();
      const d = await counter.count(auth.key_id, limit);
      res.setHeader('RateLimit-Limit', String(d.limit));
      res.setHeader('RateLimit-Remaining', String(d.remaining));
      res.setHeader('RateLimit-Reset', String(d.reset));
      if (d.allowed) return next();
      res.setHeader('Retry-After', String(d.retryAfter));
      res.status(429).json({
        error: {
          type: 'rate_limit_error',
          code: 'rate_limit_error',
          message: `Too many requests: at most ${d.limit} per minute per API key. Retry after ${d.retryAfter} s.`,
          request_id: req.requestId,
        },
      });
    })().catch(next);
  };
}
