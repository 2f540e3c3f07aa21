/**
 * Codes match the public API's error codes, so a controller can pass `code` and `param`
 * straight through to the error body without a translation table.
 */
export type SealInputErrorCode = 'invalid_parameter' | 'file_too_large' | 'unsupported_file_type' | 'seal_text_invalid';

/** Bad caller input (never a server fault): a controller should answer it with a 4xx. */
export class SealInputError extends Error {
  readonly code: SealInputErrorCode;
  /** Name of the request parameter at fault, e.g. `company_name` or `image`. */
  readonly param: string;

  constructor(code: SealInputErrorCode, param: string, message: string) {
    super(message);
    this.name = 'SealInputError';
    this.code = code;
    this.param = param;
  }
}
