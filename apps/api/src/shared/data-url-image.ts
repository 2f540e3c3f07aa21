import { sanitizeImage, UnsafeImageError } from '@dojang/pdf';
import { inspectSealImage, SealInputError } from '@dojang/seals';
import { ApiError } from './api-error';

/**
 * The checks the PDF stamper makes when a document completes, made when the image arrives: a
 * pixel count over the stamper's limit (read from the header, before any decoding) or a PNG whose
 * pixel data does not decode would otherwise be accepted here and fail the signature that
 * completes the document.
 */
export function assertStampable(bytes: Buffer, param: string): void {
  try {
    sanitizeImage(bytes);
  } catch (err) {
    if (err instanceof UnsafeImageError) throw ApiError.invalid(param, `${param}: ${err.message}.`);
    throw err;
  }
}

/** A PNG or JPEG data URL (≤ 1 MB), judged by its bytes; errors name the parameter. */
export function decodeImageDataUrl(value: string, param: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = inspectSealImage(value).bytes;
  } catch (err) {
    if (err instanceof SealInputError) {
      const status = err.code === 'file_too_large' ? 413 : err.code === 'unsupported_file_type' ? 415 : 400;
      throw new ApiError(status, 'invalid_request_error', err.code, `${param}: ${err.message}`, param);
    }
    throw err;
  }
  assertStampable(bytes, param);
  return bytes;
}
