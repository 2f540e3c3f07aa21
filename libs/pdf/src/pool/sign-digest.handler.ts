// libs/evidence by relative path: a worker thread resolves no @dojang/* alias.
import { signDigestWithSpec } from '../../../evidence/src/signing-key';
import { asSigningUnavailable } from './signing-unavailable';
import { bytes, type Bytes, type SignDigestInput } from './pdf-jobs';

/**
 * The pool's `pdf.sign-digest` job: a digest signed with a key behind the signing-key port
 * (libs/evidence signing-key.ts), in a worker, where a PKCS#11 token's session lives; the signature
 * is checked against the certificate before it leaves. A key away is signing_unavailable.
 */
export default async function signDigestJob(input: SignDigestInput): Promise<Bytes> {
  try {
    return await signDigestWithSpec(input.key, Buffer.from(bytes(input.digest)));
  } catch (error) {
    throw asSigningUnavailable(error);
  }
}
