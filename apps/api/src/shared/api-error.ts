import { DomainError, DomainErrorKind } from '@dojang/domain';
import { ErrorCode, ErrorType } from './error-codes';

export type { ErrorCode, ErrorType } from './error-codes';

/** An error with everything the envelope needs: `{error: {type, code, message, param?, request_id}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static missing(param: string, message = `${param} is required.`) {
    return new ApiError(400, 'invalid_request_error', 'missing_parameter', message, param);
  }
  static invalid(param: string, message: string) {
    return new ApiError(400, 'invalid_request_error', 'invalid_parameter', message, param);
  }
  static notFound(code: ErrorCode, message: string) {
    return new ApiError(404, 'invalid_request_error', code, message);
  }
  static documentNotFound() {
    return ApiError.notFound('document_not_found', 'No such document.');
  }
}

const STATUS: Record<DomainErrorKind, number> = {
  invalid: 400,
  precondition: 400,
  not_found: 404,
  conflict: 409,
  payment_required: 402,
  too_large: 413,
  too_many: 429,
  gone: 410,
};

export function fromDomainError(err: DomainError): ApiError {
  // Unmet send preconditions keep the type SPEC.md names (invalid_request_error) and carry the
  // code of the first unmet condition (document_has_no_participants, missing_phone, …).
  // The domain's codes are plain strings (no HTTP layer there); error-codes.spec.ts checks each
  // one the domain raises is in the catalogue.
  const code: ErrorCode = err.code as ErrorCode;
  const type: ErrorType = err.kind === 'too_many' ? 'rate_limit_error' : 'invalid_request_error';
  const headers: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'Retry-After': String(err.retryAfterSeconds) } : {};
  return new ApiError(STATUS[err.kind], type, code, err.message, err.param, headers);
}
