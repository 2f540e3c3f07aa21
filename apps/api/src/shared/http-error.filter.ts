import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { ConcurrentModificationError, EvidenceIncompleteError, EvidenceIntegrityError, Infrastructure, isStoreUnavailable, SigningCertificateInvalidError, SigningUnavailableError } from '@dojang/application';
import { INFRA } from './infrastructure.token';
import { DomainError } from '@dojang/domain';
import { AppendOutcomeUnknownError, UnstorableEventError } from '@dojang/event-store';
import { isPdfLimitError } from '@dojang/pdf';
import { Request, Response } from 'express';
import { ApiError, fromDomainError } from './api-error';
import { CheckUnavailableError } from './auth.guard';

/** Every error leaves in one envelope; internals never do. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request & { requestId?: string }>();
    const error = toApiError(exception);
    // The idempotency middleware keeps this answer for the key instead of releasing it: a retry
    // with the key must not run the command a second time when the first may have landed.
    if (exception instanceof AppendOutcomeUnknownError) res.locals.writeOutcomeUnknown = true;
    if (exception instanceof EvidenceIntegrityError) {
      this.infra.logger.error({ request_id: req.requestId, method: req.method, route: req.route?.path ?? null, err: exception }, 'evidence_integrity_failure');
    } else if (exception instanceof EvidenceIncompleteError) {
      this.infra.logger.error({ request_id: req.requestId, method: req.method, route: req.route?.path ?? null, missing: exception.missing }, 'evidence_incomplete');
    } else if (exception instanceof SigningCertificateInvalidError) {
      // One error line per refusal (not also "request failed"), and a counter an alert can watch.
      this.infra.metrics.signingCertificateRefusals.inc({ reason: /revoked/.test(exception.reason) ? 'revoked' : /expired/.test(exception.reason) ? 'expired' : /not yet valid/.test(exception.reason) ? 'not_yet_valid' : 'other' });
      this.infra.logger.error({ request_id: req.requestId, reason: exception.reason }, 'signing_certificate_invalid');
    } else if (error.code === 'service_unavailable') this.infra.logger.warn({ err: exception, request_id: req.requestId }, 'store unavailable');
    else if (error.status >= 500) this.infra.logger.error({ err: exception, request_id: req.requestId }, 'request failed');
    for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
    if (res.headersSent) return;
    res.status(error.status).json({
      error: {
        type: error.type,
        code: error.code,
        message: error.message,
        ...(error.param ? { param: error.param } : {}),
        request_id: req.requestId,
      },
    });
  }
}

export function toApiError(exception: unknown): ApiError {
  if (exception instanceof ApiError) return exception;
  if (exception instanceof DomainError) return fromDomainError(exception);
  if (exception instanceof ConcurrentModificationError) {
    return new ApiError(409, 'invalid_request_error', 'concurrent_modification', 'The resource was changed by other requests while this one was being applied; nothing was written. Retry the request.', undefined, { 'Retry-After': '1' });
  }
  if (exception instanceof AppendOutcomeUnknownError) {
    return new ApiError(
      503,
      'api_error',
      'write_outcome_unknown',
      'The store lost the answer to this write and could not be reached to check it: it may or may not have been applied. Check the resource before sending the request again with a new Idempotency-Key.',
    );
  }
  // Text the request guard let through (from a source it does not see): still the client's input,
  // refused before anything was written.
  if (exception instanceof UnstorableEventError) {
    return new ApiError(400, 'invalid_request_error', 'invalid_parameter', 'The request holds text that cannot be stored (a control character or an unpaired surrogate).', 'body');
  }
  // Not the client's doing, so a 5xx; but a named one, so an operator knows to restore the file.
  if (exception instanceof EvidenceIntegrityError) {
    return new ApiError(500, 'api_error', 'evidence_integrity_failure', 'A stored file failed its integrity check and was not served.');
  }
  // A removed seal or a lost file: refused by name, never made again or served without it.
  if (exception instanceof EvidenceIncompleteError) {
    return new ApiError(500, 'api_error', 'evidence_incomplete', `The document's evidence is incomplete and was not served: ${exception.missing}.`);
  }
  // The key that would sign (or the TSA's) is revoked, expired or not yet valid: nothing recorded.
  if (exception instanceof SigningCertificateInvalidError) {
    return new ApiError(503, 'api_error', 'signing_certificate_invalid', exception.message, undefined, { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
  }
  // The TSA, a revocation source or the signing key is away: nothing was recorded, retry later.
  if (exception instanceof SigningUnavailableError) {
    return new ApiError(503, 'api_error', 'signing_unavailable', exception.message, undefined, { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
  }
  // A PDF job past its time or heap limit, or content over a per-document budget: refused, nothing written.
  if (isPdfLimitError(exception)) return new ApiError(413, 'invalid_request_error', exception.code, exception.message, exception.param);
  const e = exception as { type?: string; status?: number; statusCode?: number; code?: string; message?: string };
  // body-parser failures arrive before any controller runs.
  if (e && e.type === 'entity.parse.failed') {
    return new ApiError(400, 'invalid_request_error', 'invalid_json', 'The request body is not valid JSON.');
  }
  if (e && e.type === 'entity.too.large') {
    return new ApiError(413, 'invalid_request_error', 'request_too_large', 'The request body is too large.');
  }
  if (e && e.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
    return new ApiError(415, 'invalid_request_error', 'unsupported_media_type', 'Unsupported request encoding.');
  }
  // Any other body-parser failure (a corrupt gzip stream, a Content-Length that does not match the
  // body, too many form fields) is the client's fault too: http-errors marks those `expose`.
  const raw = exception as { status?: unknown; expose?: unknown };
  if (!(exception instanceof HttpException) && raw && raw.expose === true && (raw.status === 400 || raw.status === 413)) {
    return raw.status === 413
      ? new ApiError(413, 'invalid_request_error', 'request_too_large', 'The request body is too large.')
      : new ApiError(400, 'invalid_request_error', 'invalid_request_body', 'The request body could not be read.');
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return new ApiError(404, 'invalid_request_error', 'resource_not_found', 'No such endpoint.');
    if (status === 405) return new ApiError(405, 'invalid_request_error', 'method_not_allowed', 'Method not allowed.');
    if (status < 500) return new ApiError(status, 'invalid_request_error', 'invalid_request', exception.message);
  }
  // The database is stopped, restarting, or dropped the connection: not a bug, and the same
  // request will succeed once it is back. A retry with the same Idempotency-Key is safe.
  if (isStoreUnavailable(exception)) return storeUnavailable();
  // A check that could not decide (the API key lookup, an Idempotency-Key's claim) fails closed.
  if (exception instanceof CheckUnavailableError) return storeUnavailable();
  return new ApiError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.');
}

/** Seconds a client should wait before retrying while a store is away. */
export const STORE_RETRY_AFTER_SECONDS = 5;

export function storeUnavailable(): ApiError {
  return new ApiError(
    503,
    'api_error',
    'service_unavailable',
    'The service cannot reach its store right now. Retry shortly (with the same Idempotency-Key).',
    undefined,
    { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * For failures handed to `next(err)` by the middleware that runs before Nest routes a request
 * (rate limits, idempotency): the same envelope and status as the exception filter gives, where
 * Express would otherwise answer with an HTML 500.
 */
export function apiErrorMiddleware(infra: Infrastructure) {
  return (err: unknown, req: Request & { requestId?: string }, res: Response, next: (err?: unknown) => void) => {
    if (res.headersSent) return next(err);
    const error = toApiError(err);
    if (error.status >= 500 && error.code !== 'service_unavailable') infra.logger.error({ err, request_id: req.requestId }, 'request failed');
    for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
    res.status(error.status).json({
      error: { type: error.type, code: error.code, message: error.message, ...(error.param ? { param: error.param } : {}), request_id: req.requestId },
    });
  };
}
