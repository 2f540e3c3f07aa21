import { Infrastructure, inSpan, tracingEnabled } from '@dojang/application';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { NextFunction, Request, Response } from 'express';
import { AuthContext } from '../shared/auth.guard';
import { requestApiKey } from '../rate-limit/request-auth';

type LoggedRequest = Request & { requestId?: string; auth?: AuthContext };

/**
 * The route template a request matched (`/v1/documents/:id`), never the raw path: signing tokens
 * and file signatures live in paths. Unmatched requests share one label, so a scan of random
 * URLs cannot blow up the metric's cardinality.
 */
export function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl ?? ''}${route.path}`;
  return 'unmatched';
}

/**
 * One log line and one histogram observation per request, written when the response finishes
 * (so 429s, body-parser errors and 404s count too). With tracing on, the request runs inside a
 * server span, continued from an incoming `traceparent`.
 */
export function requestLogMiddleware(infra: Infrastructure) {
  return (req: LoggedRequest, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(req);
      infra.metrics.httpRequestDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      if (!infra.logger.isLevelEnabled('info')) return;
      // The key was looked up once already (rate limit, guard); this reuses that answer.
      const auth = req.auth ? Promise.resolve(req.auth) : requestApiKey(infra, req);
      void auth.then(
        (a) => write(a),
        () => write(null),
      );
      function write(a: AuthContext | null) {
        const line = {
          request_id: req.requestId,
          method: req.method,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1e4) / 10,
          organization_id: a?.organization_id ?? null,
          key_id: a?.key_id ?? null,
        };
        if (res.statusCode >= 500) infra.logger.error(line, 'request');
        else infra.logger.info(line, 'request');
      }
    });
    if (!tracingEnabled()) return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    void inSpan(
      `HTTP ${req.method}`,
      { 'http.method': req.method },
      (span) =>
        new Promise<void>((resolve) => {
          res.on('finish', () => {
            span.updateName(`HTTP ${req.method} ${routeTemplate(req)}`);
            span.setAttribute('http.route', routeTemplate(req));
            span.setAttribute('http.status_code', res.statusCode);
            resolve();
          });
          res.on('close', () => resolve());
          context.with(context.active(), next);
        }),
      parent,
    );
  };
}
