import { createHash, verify, X509Certificate } from 'node:crypto';
import { canonicalJson } from '@dojang/event-store/hash-chain';

/**
 * The chain-head proof a DocumentCompleted carries, checked with nothing but the certificate in
 * the bundle. The statement is rebuilt here byte for byte as libs/application's
 * chain-head-proof.ts signs it ('dojang-chain-head-v1'); that format is frozen like the hash
 * chain's, and the end-to-end test signs through the server and verifies here.
 */
export interface ChainHeadProof {
  revision: number;
  hash: string;
  event_count: number;
  completed_event_count: number;
  algorithm: string;
  certificate_sha256: string;
  signature: string;
}

export interface CompletingSignature {
  participant_id: string;
  signature_sha256: string | null;
  seal_sha256: string | null;
  ip: string | null;
  user_agent: string | null;
}

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

export interface ChainHeadStatement {
  document_id: string;
  head: { revision: number; hash: string; event_count: number; completed_event_count: number };
  signer: CompletingSignature;
  original_sha256: string | null;
  final_pdf_sha256: string | null;
}

export function statementBytes(s: ChainHeadStatement): Buffer {
  return Buffer.from(
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
}

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Why the proof fails, or null when `certificate`'s key signed exactly this statement. */
export function chainHeadProofProblem(statement: ChainHeadStatement, proof: ChainHeadProof, certificate: Buffer): string | null {
  if (proof.algorithm !== 'RSA-SHA256') return `unknown algorithm ${String(proof.algorithm)}`;
  if (proof.certificate_sha256 !== sha256Hex(certificate)) {
    return `signed by certificate sha256 ${proof.certificate_sha256}, the bundle's certificate is ${sha256Hex(certificate)}`;
  }
  try {
    const ok = verify('sha256', statementBytes(statement), new X509Certificate(certificate).publicKey, Buffer.from(proof.signature, 'base64'));
    return ok ? null : 'the signature does not match the events (the completion, the signature it follows, or the PDF hashes were changed)';
  } catch (error) {
    return `the signature cannot be checked: ${(error as Error).message}`;
  }
}
