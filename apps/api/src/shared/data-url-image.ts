import { DocumentPdfService } from '@dojang/application';
import { inspectSealImage, SealInputError } from '@dojang/seals';
import { ApiError } from './api-error';

/**
 * The checks the PDF stamper makes when a document completes, made when the image arrives: a
 * pixel count over the stamper's limit or a PNG whose pixel data does not decode would otherwise
 * be accepted here and fail the signature that completes the document. Decoding runs in the PDF
 * pool: a 10-megapixel PNG takes about a second, which on the event loop stalled every request.
 */
export async function assertStampable(pdf: DocumentPdfService, bytes: Buffer, param: string): Promise<void> {
  const check = await pdf.checkStampImage(bytes);
  if (!check.ok) throw ApiError.invalid(param, `${param}: ${check.message}.`);
}

/** A PNG or JPEG data URL (≤ 1 MB), judged by its bytes; errors name the parameter. */
export async function decodeImageDataUrl(pdf: DocumentPdfService, value: string, param: string): Promise<Buffer> {
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
  await assertStampable(pdf, bytes, param);
  return bytes;
}
