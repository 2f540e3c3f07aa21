import { DocumentSealer, SealUnavailableError } from '@dojang/application';
import { ApiError } from '../shared/api-error';

/**
 * Seals a concluded document before evidence about it leaves (the reactor has normally done it):
 * a timestamp authority that cannot be reached is a 503 to retry, never an unsealed bundle.
 */
export async function sealedFirst(sealer: DocumentSealer, documentId: string): Promise<void> {
  try {
    await sealer.ensureSealed(documentId);
  } catch (error) {
    if (error instanceof SealUnavailableError) throw new ApiError(503, 'api_error', 'service_unavailable', `The document's conclusion cannot be sealed now: ${error.message}. Try again shortly.`);
    throw error;
  }
}
