import { DocumentCertifier, CertificationUnavailableError } from '@dojang/application';
import { ApiError } from '../shared/api-error';

/**
 * Certifies a concluded document before evidence about it leaves (the reactor has normally done
 * it): a timestamp authority that cannot be reached is a 503 to retry, never an uncertified bundle.
 */
export async function certifiedFirst(certifier: DocumentCertifier, documentId: string): Promise<void> {
  try {
    await certifier.ensureCertified(documentId);
  } catch (error) {
    if (error instanceof CertificationUnavailableError) throw new ApiError(503, 'api_error', 'service_unavailable', `The document's conclusion cannot be certified now: ${error.message}. Try again shortly.`);
    throw error;
  }
}
