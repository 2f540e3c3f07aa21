import { createHash, KeyObject, sign } from 'crypto';
import { promisify } from 'util';
import { ChainHeadProof } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ChainHeadStatement, chainHeadProofProblem, statementBytes } from '@dojang/verifier/chain-head-proof';

/** The head a completion is about to seal: the stream as the deciding command read it. */
export interface ChainHead {
  revision: number;
  hash: string;
  event_count: number;
  completed_event_count: number;
}

// The statement's format is frozen and lives with the offline verifier, so the server signs exactly
// what an auditor's `dojang-verify` rebuilds from a bundle.
export { completingSignatureOf, statementBytes, type ChainHeadStatement, type CompletingSignature } from '@dojang/verifier/chain-head-proof';

/**
 * The installation's key that signs evidence (chain heads, seals, bundle manifests), through the
 * signing-key port: a private key in this process (the file identity), or `signDigest`, which
 * hands only a SHA-256 digest to a key elsewhere (a PKCS#11 token, a remote signer, via the PDF
 * pool) and answers the RSA PKCS #1 v1.5 signature, exactly what `sign('sha256', …)` makes.
 */
export interface EvidenceKey {
  privateKey?: KeyObject;
  signDigest?: (digest: Buffer) => Promise<Buffer>;
  /** DER of the certificate that goes with the key. */
  certificate: Buffer;
  /** The rest of its chain (DER), for the bundle's signing-chain.pem. */
  chain?: Buffer[];
}

/**
 * `crypto.sign` with a callback: OpenSSL signs on libuv's thread pool. An RSA-2048 signature is
 * 0.3–1 ms of CPU, and a completion makes two (the certification and the chain-head seal); done
 * synchronously they held the API's event loop for that long.
 */
const signOffLoop = promisify(sign) as (algorithm: string, data: Buffer, key: KeyObject) => Promise<Buffer>;

/** RSA-SHA256 (PKCS #1 v1.5) over `data` with the evidence key, wherever it lives. */
export async function signWithEvidenceKey(key: EvidenceKey, data: Buffer): Promise<Buffer> {
  if (key.privateKey) return signOffLoop('sha256', data, key.privateKey);
  if (!key.signDigest) throw new Error('evidence key: neither a private key nor a digest signer');
  return key.signDigest(createHash('sha256').update(data).digest());
}

/**
 * `history` is the stream as read for the decision; `appending` the number of events the decision
 * adds (the last signature and the completion).
 */
export function chainHeadOf(history: StoredEvent[], appending: number): ChainHead {
  const last = history[history.length - 1];
  if (!last) throw new Error('chain head of an empty stream');
  return {
    revision: last.stream_revision,
    hash: String(last.metadata.hash),
    event_count: history.length,
    completed_event_count: history.length + appending,
  };
}

export const certificateSha256 = (der: Buffer) => createHash('sha256').update(der).digest('hex');

export function signChainHead(statement: ChainHeadStatement, key: EvidenceKey): ChainHeadProof {
  if (!key.privateKey) throw new Error('signChainHead needs a key in this process; use sealChainHead');
  return {
    ...statement.head,
    algorithm: 'RSA-SHA256',
    certificate_sha256: certificateSha256(key.certificate),
    signature: sign('sha256', statementBytes(statement), key.privateKey).toString('base64'),
  };
}

/** signChainHead through the signing-key port: the same proof, made by a key in a token or a remote signer too. */
export async function sealChainHead(statement: ChainHeadStatement, key: EvidenceKey): Promise<ChainHeadProof> {
  return {
    ...statement.head,
    algorithm: 'RSA-SHA256',
    certificate_sha256: certificateSha256(key.certificate),
    signature: (await signWithEvidenceKey(key, statementBytes(statement))).toString('base64'),
  };
}

/**
 * True when `proof.signature` is the key of `certificate` signing exactly this statement. The
 * statement is rebuilt from the log by the verifier, so any edit to the facts it covers (or a
 * proof copied from another document) fails here.
 */
export function chainHeadSignatureValid(statement: ChainHeadStatement, proof: ChainHeadProof, certificate: Buffer): boolean {
  return chainHeadProofProblem(statement, proof, certificate) === null;
}
