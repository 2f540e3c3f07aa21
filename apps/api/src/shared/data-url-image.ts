import { inspectSealImage, SealInputError } from '@dojang/seals';
import { ApiError } from './api-error';

/** A PNG or JPEG data URL (≤ 1 MB), judged by its bytes; errors name the parameter. */
export function decodeImageDataUrl(value: string, param: string): Buffer {
  try {
    return inspectSealImage(value).bytes;
  } catch (err) {
    if (err instanceof SealInputError) {
      const status = err.code === 'file_too_large' ? 413 : err.code === 'unsupported_file_type' ? 415 : 400;
      throw new ApiError(status, 'invalid_request_error', err.code, `${param}: ${err.message}`, param);
    }
    throw err;
  }
}
