import { createHash, KeyObject, sign, verify, X509Certificate } from 'crypto';
import { ChainHeadProof } from '@dojang/domain';
import { canonicalJson, StoredEvent } from '@dojang/event-store';

/** The head a completion is about to seal: the stream as the deciding command read it. */
export interface ChainHead {
  revision: number;
  hash: string;
  event_count: number;
  completed_event_count: number;
}

export interface CompletingSignature {
  participant_id: string;
  signature_sha256: string | null;
  seal_sha256: string | null;
  ip: string | null;
  user_agent: string | null;
}

/** The signer facts of a ParticipantSigned event's data (what the verifier rebuilds the statement from). */
export function completingSignatureOf(data: Record<string, unknown>): CompletingSignature {
  const signature = data.signature as { sha256: string } | null | undefined;
  const seal = data.seal as { image: { sha256: string } } | null | undefined;
  return {
    participant_id: String(data.participant_id ?? ''),
    signature_sha256: signature?.sha256 ?? null,
    seal_sha256: seal?.image?.sha256 ?? null,
    ip: (data.ip as string | null | undefined) ?? null,
    user_agent: (data.user_agent as string | null | undefined) ?? null,
  };
}

/** What the document-signing key signs: the head plus the facts the completion records. */
export interface ChainHeadStatement {
  document_id: string;
  head: ChainHead;
  /** The signature the completion follows, as its ParticipantSigned records it (all but the time). */
  signer: CompletingSignature;
  original_sha256: string | null;
  final_pdf_sha256: string | null;
}

export interface EvidenceKey {
  privateKey: KeyObject;
  /** DER of the certificate that goes with the key. */
  certificate: Buffer;
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

const statementBytes = (s: ChainHeadStatement) =>
  Buffer.from(
    canonicalJson({
      purpose: 'dojang-chain-head-v1',
      document_id: s.document_id,
      head: s.head,
      signer: s.signer,
      original_sha256: s.original_sha256,
      final_pdf_sha256: s.final_pdf_sha256,
    }),
    'utf8',
  );

export const certificateSha256 = (der: Buffer) => createHash('sha256').update(der).digest('hex');

export function signChainHead(statement: ChainHeadStatement, key: EvidenceKey): ChainHeadProof {
  return {
    ...statement.head,
    algorithm: 'RSA-SHA256',
    certificate_sha256: certificateSha256(key.certificate),
    signature: sign('sha256', statementBytes(statement), key.privateKey).toString('base64'),
  };
}

/**
 * True when `proof.signature` is the key of `certificate` signing exactly this statement. The
 * statement is rebuilt from the log by the verifier, so any edit to the facts it covers (or a
 * proof copied from another document) fails here.
 */
export function chainHeadSignatureValid(statement: ChainHeadStatement, proof: ChainHeadProof, certificate: Buffer): boolean {
  if (proof.algorithm !== 'RSA-SHA256' || proof.certificate_sha256 !== certificateSha256(certificate)) return false;
  try {
    return verify('sha256', statementBytes(statement), new X509Certificate(certificate).publicKey, Buffer.from(proof.signature, 'base64'));
  } catch {
    return false;
  }
}
