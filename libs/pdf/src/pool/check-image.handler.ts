import { sanitizeImage, UnsafeImageError } from '../image-type';
import { bytes, type Bytes, type ImageCheck } from './pdf-jobs';

/** Decodes the image as the stamper will; an image it would refuse comes back with the reason. */
export default function checkImageJob(input: Bytes): ImageCheck {
  try {
    return { ok: true, type: sanitizeImage(bytes(input)).type };
  } catch (err) {
    if (err instanceof UnsafeImageError) return { ok: false, message: err.message };
    throw err;
  }
}
