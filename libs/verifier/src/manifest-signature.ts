import { createHash, KeyObject, sign, verify, X509Certificate } from 'node:crypto';

/**
 * The bundle's manifest is signed with the installation's document-signing key: a JWS (RFC 7515,
 * RS256) in compact serialization with a detached payload (RFC 7515 appendix F), the payload
 * being the exact bytes of `manifest.json`. Stored as `manifest.json.jws`. Anyone with a JOSE
 * library and `signing-chain.pem` can check it too; the header names the certificate by its
 * SHA-256 thumbprint (`x5t#S256`).
 */
export const MANIFEST_SIGNATURE_FILE = 'manifest.json.jws';

const b64url = (b: Buffer) => b.toString('base64url');

const jwsHeader = (certificate: Buffer) =>
  b64url(Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'dojang-manifest+jws', 'x5t#S256': b64url(createHash('sha256').update(certificate).digest()) }), 'utf8'));

export function signManifest(manifest: Buffer, key: { privateKey: KeyObject; certificate: Buffer }): string {
  const header = jwsHeader(key.certificate);
  const signature = sign('sha256', Buffer.from(`${header}.${b64url(manifest)}`, 'ascii'), key.privateKey);
  return `${header}..${b64url(signature)}`;
}

/**
 * The same JWS with the signature made elsewhere: `signSha256` signs the signing input with
 * RSA-SHA256 (PKCS #1 v1.5), e.g. through the signing-key port in a PKCS#11 token.
 */
export async function signManifestWith(manifest: Buffer, certificate: Buffer, signSha256: (data: Buffer) => Promise<Buffer>): Promise<string> {
  const header = jwsHeader(certificate);
  const signature = await signSha256(Buffer.from(`${header}.${b64url(manifest)}`, 'ascii'));
  return `${header}..${b64url(signature)}`;
}

/** Why the detached JWS does not sign these manifest bytes with `certificate`'s key, or null. */
export function manifestSignatureProblem(jws: string, manifest: Buffer, certificate: Buffer): string | null {
  const parts = jws.trim().split('.');
  if (parts.length !== 3 || parts[1] !== '') return 'not a compact JWS with a detached payload';
  let header: { alg?: string; 'x5t#S256'?: string };
  try {
    header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
  } catch {
    return 'its header is not JSON';
  }
  if (header.alg !== 'RS256') return `unsupported algorithm ${String(header.alg)}`;
  const thumbprint = b64url(createHash('sha256').update(certificate).digest());
  if (header['x5t#S256'] !== thumbprint) return `signed by another certificate (x5t#S256 ${String(header['x5t#S256'])}, the bundle's is ${thumbprint})`;
  try {
    const ok = verify('sha256', Buffer.from(`${parts[0]}.${b64url(manifest)}`, 'ascii'), new X509Certificate(certificate).publicKey, Buffer.from(parts[2], 'base64url'));
    return ok ? null : 'the signature does not match manifest.json (the manifest was edited)';
  } catch (error) {
    return `cannot be checked: ${(error as Error).message}`;
  }
}
