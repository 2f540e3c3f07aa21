import { probeSigningKey, type SigningKeySpec } from '../../../evidence/src/signing-key';

/** The boot check of a PKCS#11 or remote key: in a worker, where the key will sign. */
export default async function probeSigningKeyJob(spec: SigningKeySpec): Promise<null> {
  await probeSigningKey(spec);
  return null;
}
