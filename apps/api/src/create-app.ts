import { DocumentPdfService } from '@dojang/application';
import { INestApplication, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Clock, createNotifier, Infrastructure, Notifier, systemClock } from '@dojang/application';
import type { HostResolver } from '@dojang/webhooks';
import { forbidPdfWorkOnMainThread } from '@dojang/pdf';
import { randomBytes } from 'crypto';
import { Express, NextFunction, Request, Response, urlencoded } from 'express';
import { Logger, PinoLogger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { requestLogMiddleware } from './observability/request-log.middleware';
import { apiErrorMiddleware, toApiError } from './shared/http-error.filter';
import { idempotencyMiddleware } from './idempotency/idempotency.middleware';
import { buildOpenApiDocument } from './openapi/openapi.document';
import { OpenApiDocumentHolder } from './openapi/openapi.http.controller';
import { rateLimitMiddleware } from './rate-limit/rate-limit.middleware';
import { signingRateLimitMiddleware } from './rate-limit/signing-rate-limit.middleware';
import { verifyRateLimitMiddleware } from './rate-limit/verify-rate-limit.middleware';
import { answerClientErrors } from './shared/client-error';
import { assertAcceptableJson, assertAcceptablePath } from './shared/json-body-guard';
import { answeringAtRefusal, countingJsonParser } from './shared/json-body-parser';
import { jsonCountLimitsFor } from './shared/json-count-guard';
import { boundRefusedBodies } from './shared/refused-body';
import { useEncodedStrings } from './shared/json-response';
import { WEBHOOK_HOST_RESOLVER } from './shared/infrastructure.token';
import { createValidationPipe } from './shared/validation.pipe';
import compression from 'compression';

/** The signing session's path (GET …/v1/signing/{token}, after the /api prefix is dropped). */
const SIGNING_SESSION_PATH = /^\/v1\/signing\/[^/]+\/?$/;

export interface CreateAppOptions {
  clock?: Clock;
  /** The notifier for messages the API sends itself; defaults to one built from the config. */
  notifier?: Notifier;
  /** Resolves webhook host names at registration; defaults to the system resolver. */
  webhookHostResolver?: HostResolver;
}

/**
 * Builds the HTTP application on given infrastructure; `main.ts` and the end-to-end tests use the
 * same function, so the tests exercise exactly what runs in production.
 */
export async function createApp(infra: Infrastructure, options: CreateAppOptions = {}): Promise<INestApplication> {
  const clock = options.clock ?? systemClock;
  // PDF layout, parsing and image decoding on this thread would stall every request: from here on
  // they throw unless they run in the PDF pool (the embedded worker shares this thread too).
  forbidPdfWorkOnMainThread();
  const notifier = options.notifier ?? (await createNotifier(infra, { clock }));
  const providers = options.webhookHostResolver ? [{ provide: WEBHOOK_HOST_RESOLVER, useValue: options.webhookHostResolver }] : [];
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(infra, clock, notifier, { providers, ownsNotifier: !options.notifier }), {
    bufferLogs: true,
    bodyParser: false,
  });
  // A PKCS#11 or remote signing key that cannot sign stops the boot with the reason (wrong PIN, no
  // such slot or key, signer unreachable) rather than failing the first completion.
  await app.get(DocumentPdfService).checkSigningKey();
  // Nest's own messages go through the process's pino logger (JSON lines, redaction). Built
  // directly rather than through LoggerModule, whose per-request middleware we do not need (the
  // request log is ours) and which would mount catch-all routes.
  const pinoParams = { pinoHttp: { logger: infra.logger } };
  app.useLogger(new Logger(new PinoLogger(pinoParams), pinoParams));
  app.disable('x-powered-by');
  // Long strings (document bodies) are escaped and encoded once, not on every response.
  useEncodedStrings((app.getHttpAdapter().getInstance() as Express).response);
  // Requests Node refuses before any handler runs (a header block over the limit) get the envelope too.
  answerClientErrors(app.getHttpServer());
  app.set('trust proxy', 'loopback');
  // First, so it sees every answer: one that leaves while its request's body is still arriving (a
  // refusal) closes the connection after reading the rest off, within a bound (issue 33 §7).
  app.use(boundRefusedBodies());
  app.use((req: Request & { requestId?: string }, res: Response, next: NextFunction) => {
    req.requestId = `req_${randomBytes(12).toString('hex')}`;
    res.setHeader('Request-Id', req.requestId);
    // No response of this API is meant to be sniffed into something else (HTML from a JSON error, a PDF).
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The legacy root serves the same paths: /api/v1/x is /v1/x.
    if (req.url.startsWith('/api/v1/') || req.url === '/api/v1') req.url = req.url.slice(4);
    next();
  });
  // The signing session (GET /v1/signing/{token}) is part of a phone's first view (issue 30: it
  // went uncompressed): brotli or gzip, as the browser accepts, by the `compression` middleware,
  // whose zlib streams compress on libuv's threads. Other JSON stays as it was (clients of the API
  // are servers on fast links).
  const compressSession = compression({ threshold: 1024 });
  app.use((req: Request, res: Response, next: NextFunction) => (req.method === 'GET' && SIGNING_SESSION_PATH.test(req.path) ? compressSession(req, res, next) : next()));
  app.use(requestLogMiddleware(infra));
  // Before body parsing, so a 429 costs nothing and every response with a valid key has the headers.
  app.use(rateLimitMiddleware(infra, clock));
  app.use(signingRateLimitMiddleware(infra, clock));
  app.use(verifyRateLimitMiddleware(infra, clock));
  // Body-parser errors happen before Nest routes the request, so they get the envelope here.
  // A JSON body's elements are counted on its raw bytes as they arrive, before it is parsed
  // (json-body-parser.ts), so a body of millions of tiny elements is refused within its first
  // kilobytes, not buffered, parsed and walked. 10 MB is the largest legitimate body: a 10,000-row
  // bulk send.
  const jsonParser = countingJsonParser({ limit: '10mb', limitsFor: (req) => jsonCountLimitsFor(req.method, req.path) });
  for (const parser of [jsonParser, answeringAtRefusal(urlencoded({ extended: false, limit: '1mb' }), '1mb')]) {
    app.use((req: Request & { requestId?: string }, res: Response, next: NextFunction) =>
      parser(req, res, (err?: unknown) => {
        if (!err) return next();
        const e = toApiError(err);
        res.status(e.status).json({ error: { type: e.type, code: e.code, message: e.message, ...(e.param ? { param: e.param } : {}), request_id: req.requestId } });
      }),
    );
  }
  // Before anything walks the body recursively (class-transformer) or stores its text.
  app.use((req: Request & { requestId?: string }, res: Response, next: NextFunction) => {
    try {
      assertAcceptablePath(req.path);
      assertAcceptableJson(req.body);
      // Query strings by the same rule (parameters are named as in the body: `starting_after`).
      assertAcceptableJson(req.query);
    } catch (err) {
      const e = toApiError(err);
      return void res.status(e.status).json({ error: { type: e.type, code: e.code, message: e.message, ...(e.param ? { param: e.param } : {}), request_id: req.requestId } });
    }
    next();
  });
  // After the body parsers: the fingerprint is the canonical JSON body.
  app.use(idempotencyMiddleware(infra, clock));
  // What the middleware above hands to next(err) (a store that is away) gets the envelope.
  app.use(apiErrorMiddleware(infra));
  // The verify page is GET /verify at the root; POST /v1/verify, its operation, keeps the prefix.
  app.setGlobalPrefix('v1', {
    exclude: ['sign/(.*)', 'sign', 'edit/(.*)', 'docs', 'docs/(.*)', 'metrics', { path: 'verify', method: RequestMethod.GET }, { path: 'verify/(.*)', method: RequestMethod.GET }],
  });
  app.get(OpenApiDocumentHolder).init(() => buildOpenApiDocument(app));
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  return app;
}
