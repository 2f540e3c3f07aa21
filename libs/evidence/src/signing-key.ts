import { constants, createHash, privateEncrypt, publicDecrypt, X509Certificate } from 'node:crypto';
import type { CmsSigner } from './cades-cms';
import { signerFromP12 } from './signing-identity';

/**
 * The signing-key port: where the key that signs final PDFs lives. Every adapter yields a
 * CmsSigner; the CMS builder computes the SHA-256 of the signed attributes and hands the digest
 * to `signDigest`, so with a token or a remote signer the private key never enters this process.
 * - `file`: a PKCS#12 (the generated identity, SIGNING_P12, an organization's upload);
 * - `pkcs11`: a key in a PKCS#11 token (an HSM, SoftHSM2), through pkcs11js; CKM_RSA_PKCS over
 *   the DigestInfo, so the token signs exactly what RSA PKCS #1 v1.5 with SHA-256 signs;
 * - `remote`: `POST {url}` with `{ key_id, algorithm: "RSASSA_PKCS1_V1_5_SHA_256",
 *   message_type: "DIGEST", digest }` (base64), answered `{ signature }` (base64): the shape of
 *   cloud KMS Sign calls, behind whatever small proxy the operator runs.
 * The specs are plain data so they cross into the PDF pool's workers; the PIN arrives read from
 * its file by the process that loaded the configuration.
 */
export type SigningKeySpec =
  | { kind: 'file'; p12: Uint8Array; passphrase: string }
  | {
      kind: 'pkcs11';
      module: string;
      /** The slot by index in the list of slots with a token… */
      slot?: number;
      /** …or by its token's label (preferred: indexes move when tokens are added). */
      tokenLabel?: string;
      /** The private key's CKA_LABEL; the only private key when absent. */
      keyLabel?: string;
      pin: string;
      /** The signing certificate then its chain, DER. */
      certificates: Uint8Array[];
    }
  | { kind: 'remote'; url: string; keyId: string; authorization?: string; certificates: Uint8Array[]; timeoutMs?: number };

/** The key is away or refuses (wrong PIN, no such slot or key, signer unreachable). */
export class SigningKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningKeyError';
  }
}

/** DER DigestInfo prefix for SHA-256 (RFC 8017 §9.2, note 1). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

interface Pkcs11Module {
  load(path: string): void;
  C_Initialize(): void;
  C_Finalize(): void;
  C_GetSlotList(tokenPresent: boolean): Buffer[];
  C_GetTokenInfo(slot: Buffer): { label: string };
  C_OpenSession(slot: Buffer, flags: number): Buffer;
  C_Login(session: Buffer, userType: number, pin: string): void;
  C_CloseSession(session: Buffer): void;
  C_FindObjectsInit(session: Buffer, template: Array<{ type: number; value?: unknown }>): void;
  C_FindObjects(session: Buffer, count: number): Buffer[];
  C_FindObjectsFinal(session: Buffer): void;
  C_SignInit(session: Buffer, mechanism: { mechanism: number }, key: Buffer): void;
  C_Sign(session: Buffer, data: Buffer, out: Buffer): Buffer;
}

/** One open, logged-in session per token and key in this thread (PKCS#11 sessions are per-process state). */
const sessions = new Map<string, { module: string; signDigest: (digest: Buffer) => Promise<Buffer> }>();
const modules = new Map<string, { pkcs11: Pkcs11Module; constants: Record<string, number>; stale: boolean }>();

/**
 * Errors after which the library's own picture of its slots is wrong: the token was pulled (or
 * its store went away) and the library keeps failing, or keeps not listing it once it is back,
 * until it is finalized and initialized again (SoftHSM2 answers CKR_GENERAL_ERROR for ever
 * otherwise). Errors that only mean "this session is gone" (another thread re-initialized the
 * library, a logout) need a new session, not a new library: finalizing then would pull the
 * sessions of the other pool threads in turn.
 */
const LIBRARY_BROKEN = /GENERAL_ERROR|DEVICE_ERROR|DEVICE_REMOVED|TOKEN_NOT_PRESENT|TOKEN_NOT_RECOGNIZED|SLOT_ID_INVALID|FUNCTION_FAILED/;
/** The PIN is refused: never retried by itself, so that a wrong PIN cannot lock the token. */
const PIN_REFUSED = /PIN_INCORRECT|PIN_INVALID|PIN_LEN|PIN_LOCKED|PIN_EXPIRED/;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function pkcs11Module(path: string) {
  let loaded = modules.get(path);
  if (!loaded) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pkcs11js = require('pkcs11js') as { PKCS11: new () => Pkcs11Module } & Record<string, number>;
    const pkcs11 = new pkcs11js.PKCS11();
    try {
      pkcs11.load(path);
    } catch (error) {
      throw new SigningKeyError(`PKCS#11: cannot load ${path}: ${messageOf(error)}`);
    }
    loaded = { pkcs11, constants: pkcs11js, stale: false };
    modules.set(path, loaded);
    initialize(path, loaded.pkcs11);
  } else if (loaded.stale) {
    // The token was away: the library is made to look at its slots afresh.
    for (const [id, s] of sessions) if (s.module === path) sessions.delete(id);
    try {
      loaded.pkcs11.C_Finalize();
    } catch {
      // Not initialized (another thread finalized it first): initialized below all the same.
    }
    initialize(path, loaded.pkcs11);
    loaded.stale = false;
  }
  return loaded;
}

function initialize(path: string, pkcs11: Pkcs11Module): void {
  try {
    pkcs11.C_Initialize();
  } catch (error) {
    // Cryptoki is initialized once per process; another pool thread did it already.
    if (!/CRYPTOKI_ALREADY_INITIALIZED/.test(messageOf(error))) throw new SigningKeyError(`PKCS#11: cannot initialize ${path}: ${messageOf(error)}`);
  }
}

/** The next use of `path` finalizes and initializes the library again (see LIBRARY_BROKEN). */
function markStale(path: string): void {
  const loaded = modules.get(path);
  if (loaded) loaded.stale = true;
}

/**
 * Signs with the token's key through a cached session. A token that goes away at run time is a
 * SigningKeyError (503 signing_unavailable, never a 500 and never another key); the session is
 * dropped, the library re-initialized when it has to be, and the next signature opens a session
 * and logs in again by itself once the token is back, without a restart.
 */
function pkcs11Signer(spec: Extract<SigningKeySpec, { kind: 'pkcs11' }>): (digest: Buffer) => Promise<Buffer> {
  const id = JSON.stringify([spec.module, spec.slot ?? null, spec.tokenLabel ?? null, spec.keyLabel ?? null, createHash('sha256').update(spec.pin).digest('hex')]);
  const known = sessions.get(id);
  if (known) return known.signDigest;
  try {
    return openPkcs11Signer(spec, id);
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    // The token or the library failed while the session was being opened (pulled mid-run).
    if (!PIN_REFUSED.test(messageOf(error))) markStale(spec.module);
    throw new SigningKeyError(`PKCS#11: the token cannot be opened: ${messageOf(error)}`);
  }
}

function openPkcs11Signer(spec: Extract<SigningKeySpec, { kind: 'pkcs11' }>, id: string): (digest: Buffer) => Promise<Buffer> {
  const { pkcs11, constants: C } = pkcs11Module(spec.module);
  const slots = pkcs11.C_GetSlotList(true);
  let slot: Buffer | undefined;
  if (spec.tokenLabel !== undefined) {
    slot = slots.find((s) => pkcs11.C_GetTokenInfo(s).label.trim() === spec.tokenLabel);
  } else {
    slot = slots[spec.slot ?? 0];
  }
  if (!slot) {
    // Not there (yet, or any more): the library lists only what it saw at its initialization, so
    // the next attempt initializes it again and a token put back is found.
    markStale(spec.module);
    throw new SigningKeyError(
      spec.tokenLabel !== undefined
        ? `PKCS#11: no token labelled "${spec.tokenLabel}" in ${spec.module} (${slots.length} token(s) present)`
        : `PKCS#11: no token in slot ${spec.slot ?? 0} of ${spec.module} (${slots.length} token(s) present)`,
    );
  }
  const session = pkcs11.C_OpenSession(slot, C.CKF_SERIAL_SESSION);
  const close = () => {
    try {
      pkcs11.C_CloseSession(session);
    } catch {
      // already gone with the token
    }
  };
  // Login is per token for the whole process: another pool thread (or an earlier probe) may have
  // logged in already, with this configuration's PIN, checked then. Logging out here would pull
  // the key handles from under the other threads' sessions.
  try {
    pkcs11.C_Login(session, C.CKU_USER, spec.pin);
  } catch (error) {
    const message = messageOf(error);
    if (!/USER_ALREADY_LOGGED_IN/.test(message)) {
      close();
      if (PIN_REFUSED.test(message)) throw new SigningKeyError('PKCS#11: login refused (wrong PIN)');
      throw error;
    }
  }
  let keys: Buffer[];
  try {
    pkcs11.C_FindObjectsInit(session, [{ type: C.CKA_CLASS, value: C.CKO_PRIVATE_KEY }, ...(spec.keyLabel ? [{ type: C.CKA_LABEL, value: spec.keyLabel }] : [])]);
    keys = pkcs11.C_FindObjects(session, 2);
    pkcs11.C_FindObjectsFinal(session);
  } catch (error) {
    close();
    throw error;
  }
  if (keys.length === 0 || (keys.length > 1 && !spec.keyLabel)) close();
  if (keys.length === 0) throw new SigningKeyError(`PKCS#11: no private key${spec.keyLabel ? ` labelled "${spec.keyLabel}"` : ''} in the token`);
  if (keys.length > 1 && !spec.keyLabel) throw new SigningKeyError('PKCS#11: the token holds several private keys; name one (key label)');
  const key = keys[0];
  const signDigest = async (digest: Buffer, again = true): Promise<Buffer> => {
    try {
      pkcs11.C_SignInit(session, { mechanism: C.CKM_RSA_PKCS }, key);
      return Buffer.from(pkcs11.C_Sign(session, Buffer.concat([SHA256_DIGEST_INFO, digest]), Buffer.alloc(1024)));
    } catch (error) {
      sessions.delete(id);
      close();
      const message = messageOf(error);
      if (LIBRARY_BROKEN.test(message)) markStale(spec.module);
      // Logged out meanwhile, the library re-initialized by another thread, or the token pulled
      // and maybe back: private-key handles die with the session, so open a session and find the
      // key again, once. Still failing: 503, and the next signature tries again.
      if (again) return (pkcs11Signer(spec) as (d: Buffer, again: boolean) => Promise<Buffer>)(digest, false);
      throw new SigningKeyError(`PKCS#11: the token refused to sign: ${message}`);
    }
  };
  sessions.set(id, { module: spec.module, signDigest });
  return signDigest;
}

function remoteSigner(spec: Extract<SigningKeySpec, { kind: 'remote' }>): (digest: Buffer) => Promise<Buffer> {
  return async (digest) => {
    let response: Response;
    try {
      response = await fetch(spec.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(spec.authorization ? { Authorization: spec.authorization } : {}) },
        body: JSON.stringify({ key_id: spec.keyId, algorithm: 'RSASSA_PKCS1_V1_5_SHA_256', message_type: 'DIGEST', digest: digest.toString('base64') }),
        signal: AbortSignal.timeout(spec.timeoutMs ?? 15_000),
      });
    } catch (error) {
      throw new SigningKeyError(`remote signer ${spec.url} unreachable: ${(error as Error).message}`);
    }
    if (!response.ok) throw new SigningKeyError(`remote signer ${spec.url} answered HTTP ${response.status}`);
    const body = (await response.json().catch(() => null)) as { signature?: unknown } | null;
    if (typeof body?.signature !== 'string') throw new SigningKeyError(`remote signer ${spec.url} answered without a signature`);
    return Buffer.from(body.signature, 'base64');
  };
}

/** A signature made elsewhere is checked against the certificate before it goes into a PDF. */
function checked(certificate: Buffer, signDigest: (digest: Buffer) => Promise<Buffer>): (digest: Buffer) => Promise<Buffer> {
  const publicKey = new X509Certificate(certificate).publicKey;
  return async (digest) => {
    const signature = await signDigest(digest);
    // RSA PKCS #1 v1.5 over a precomputed digest: the public operation must give back the DigestInfo.
    let ok = false;
    try {
      ok = publicDecrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature).equals(Buffer.concat([SHA256_DIGEST_INFO, digest]));
    } catch {
      ok = false;
    }
    if (!ok) throw new SigningKeyError("the signing key's signature does not verify with the configured certificate (wrong key or certificate)");
    return signature;
  };
}

/** The CmsSigner for `spec`; opens the token or checks nothing remote until the first signature. */
export function signerFromSpec(spec: SigningKeySpec): CmsSigner {
  if (spec.kind === 'file') return signerFromP12(Buffer.from(spec.p12), spec.passphrase);
  const [certificate, ...chain] = spec.certificates.map((c) => Buffer.from(c));
  if (!certificate) throw new SigningKeyError(`${spec.kind} signing key: no certificate configured`);
  const signDigest = spec.kind === 'pkcs11' ? pkcs11Signer(spec) : remoteSigner(spec);
  return { certificate, chain, signDigest: checked(certificate, signDigest) };
}

/**
 * Boot check: opens the key and signs a probe digest, so a wrong PIN, a missing slot or key, an
 * unreachable signer or a key that does not match its certificate stops the process with a clear
 * message instead of failing the first completion.
 */
/**
 * A SHA-256 digest signed with the key `spec` names (RSA PKCS #1 v1.5): how chain heads, document
 * certifications and bundle manifests are signed when the installation's key is in a PKCS#11 token
 * or a remote signer. A file key signs the DigestInfo itself, as the token does (the same bytes as
 * sign('sha256', data)). The pool's `pdf.sign-digest` job runs it, where a token's session lives.
 */
export async function signDigestWithSpec(spec: SigningKeySpec, digest: Buffer): Promise<Buffer> {
  const signer = signerFromSpec(spec);
  if (signer.signDigest) return await signer.signDigest(digest);
  if (!signer.privateKey) throw new Error('sign-digest: the key signs nothing');
  return privateEncrypt({ key: signer.privateKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), digest]));
}

export async function probeSigningKey(spec: SigningKeySpec): Promise<void> {
  const signer = signerFromSpec(spec);
  if (signer.signDigest) await signer.signDigest(createHash('sha256').update('dojang signing-key probe').digest());
}
