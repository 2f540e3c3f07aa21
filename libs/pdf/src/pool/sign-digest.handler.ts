import { signerFromSpec } from '../../../evidence/src/signing-key';
import { asSigningUnavailable } from './signing-unavailable';
import { bytes, type Bytes, type SignDigestInput } from './pdf-jobs';

/**
 * A SHA-256 digest signed with a key behind the signing-key port (RSA PKCS #1 v1.5): how chain
 * heads, seals and bundle manifests are signed when the installation's key is in a PKCS#11 token
 * or a remote signer. In a worker, where the token's session lives; the signature is checked
 * against the certificate before it leaves (signing-key.ts). A key away is signing_unavailable.
 */
export default async function signDigestJob(input: SignDigestInput): Promise<Bytes> {
  try {
    const signer = signerFromSpec(input.key);
    const digest = Buffer.from(bytes(input.digest));
    if (signer.signDigest) return await signer.signDigest(digest);
    if (!signer.privateKey) throw new Error('sign-digest: the key signs nothing');
    // A file key: RSA over the DigestInfo, as the token does (same bytes as sign('sha256', data)).
    const { privateEncrypt, constants } = await import('node:crypto');
    return privateEncrypt({ key: signer.privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), digest]));
  } catch (error) {
    throw asSigningUnavailable(error);
  }
}
