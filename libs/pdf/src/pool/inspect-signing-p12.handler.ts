import { inspectSigningP12, SigningP12Error } from '../../../evidence/src/organization-certificate';
import { assertOffMainThread } from '../main-thread-guard';
import { bytes, type InspectSigningP12Input, type InspectedSigningP12 } from './pdf-jobs';

/**
 * An uploaded .p12/.pfx opened and checked in the pool (forge's PBKDF2 is JavaScript and slow).
 * A refusal comes back as data: an error's class does not survive the thread boundary.
 */
export default async function inspectSigningP12Job(input: InspectSigningP12Input): Promise<InspectedSigningP12> {
  assertOffMainThread('inspectSigningP12');
  try {
    return { ok: true, certificate: inspectSigningP12(Buffer.from(bytes(input.p12)), input.password, new Date(input.now)) };
  } catch (error) {
    if (error instanceof SigningP12Error) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
