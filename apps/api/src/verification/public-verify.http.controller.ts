import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ChainHead, DocumentPdfService, Infrastructure, verifyDocumentEvidence } from '@dojang/application';
import { documentStreamId, maskEmail, maskPhone } from '@dojang/domain';
import { isPdfLimitError, VERIFY_PDF, VerifiedPdf } from '@dojang/pdf';
import { DOCUMENTS, DocumentRow, ISSUED_PDF_HEADS, ISSUED_PDFS, IssuedPdfHeadRow, IssuedPdfRow } from '@dojang/projections';
import { createHash, X509Certificate } from 'crypto';
import { Request } from 'express';
import { readFilePart } from '../files/multipart-file';
import { PdfVerificationResponse } from '../openapi/response-schemas';
import { ApiError } from '../shared/api-error';
import { Public } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';

/**
 * Largest file POST /v1/verify reads. A final PDF is an upload (at most 20 MB) with signatures,
 * seals and values stamped on it and a signature appended, so it may be somewhat larger.
 */
export const PUBLIC_VERIFY_MAX_BYTES = 32 * 1024 * 1024;
const LIMITS = { field: 'file', maxBytes: PUBLIC_VERIFY_MAX_BYTES, maxLabel: '32 MB' } as const;

type Read = Extract<VerifiedPdf, { ok: true }>;

/**
 * `POST /v1/verify`: anyone drops a PDF (no API key) and learns whether this installation issued
 * exactly that file, whether its signatures and timestamps hold, whether its document's log
 * verifies, when it concluded and who took part (masked as the audit certificate masks them),
 * and nothing else: no document or organization id, no other row. The bytes are read in the PDF
 * pool and dropped; only their SHA-256 is answered, nothing is stored. Counted per client address
 * in a bucket of its own (verify-rate-limit.middleware.ts).
 */
@Public()
@Controller('verify')
export class PublicVerifyHttpController {
  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  @Post()
  @HttpCode(200)
  async verify(@Req() req: Request): Promise<PdfVerificationResponse> {
    const part = await readFilePart(req, LIMITS);
    if (part.bytes.length === 0) throw new ApiError(415, 'invalid_request_error', 'unsupported_file_type', 'The file is empty; send a PDF.', 'file');
    let read: VerifiedPdf;
    try {
      read = await this.pdf.pool.run(VERIFY_PDF, { pdf: part.bytes, trust_anchors: this.trustAnchors() }, { timeoutMs: this.infra.config.pdfReadTimeoutMs });
    } catch (err) {
      if (!isPdfLimitError(err)) throw err;
      // Past the read's time or memory limit: the file is refused like one with too many objects.
      throw new ApiError(413, 'invalid_request_error', 'file_too_complex', `The PDF could not be checked within the limits for one file: ${err.message}`, 'file');
    }
    if (!read.ok) {
      if (read.reason === 'too_complex') throw new ApiError(413, 'invalid_request_error', 'file_too_complex', read.message, 'file');
      const message = read.reason === 'encrypted' ? read.message : `Only PDF files can be verified (judged by their bytes): ${read.message}`;
      throw new ApiError(415, 'invalid_request_error', 'unsupported_file_type', message, 'file');
    }
    return this.judge(read);
  }

  /** The configured trust list (VERIFY_TRUST_ANCHORS, read and checked at boot); none: every signature says "untrusted issuer". */
  private trustAnchors(): Buffer[] {
    return this.infra.config.verifyTrustAnchors?.certificates ?? [];
  }

  private async judge(read: Read): Promise<PdfVerificationResponse> {
    // The installation's evidence key, wherever it lives (the file identity, a token, a remote signer).
    const certificate = (await this.pdf.evidenceKey()).certificate;
    const ours = createHash('sha256').update(certificate).digest('hex');
    const signatures = read.signatures.map((s) => ({
      kind: s.kind,
      valid: s.valid,
      covers_whole_file: s.covers_whole_file,
      signer: s.signer,
      by_this_service: s.certificate_sha256 === ours,
      timestamp: s.timestamp ? { valid: s.timestamp.valid, time: s.timestamp.time, authority: s.timestamp.authority } : null,
      certificate_sha256: s.certificate_sha256,
      chain: s.chain,
      proven_at: s.proven_at,
      revocation: s.revocation,
      standing_problem: s.standing_problem,
      trusted: s.trusted,
      trust: s.trust,
    }));
    // The file's own signature (the last one, not a document timestamp) and whether it holds: an
    // issued file whose signer was revoked at the signature's time is not "unchanged and good".
    const own = signatures.filter((s) => s.kind === 'signature').pop();
    const holds = !own || own.valid;
    const issuedVerdict = holds ? ('issued_unchanged' as const) : ('issued_signature_invalid' as const);
    const ltv = { dss: read.dss.present, revocation_data: read.dss.revocation_data, document_timestamp: read.signatures.some((s) => s.kind === 'document_timestamp') };
    const trust_anchors = this.trustAnchors().map((a) => ({ subject: new X509Certificate(a).subject.replace(/\n/g, ', '), sha256: createHash('sha256').update(a).digest('hex') }));
    const base = { object: 'pdf_verification' as const, sha256: read.sha256, signatures, trust_anchors, ltv };

    const byHash = await this.infra.reads.get<IssuedPdfRow>(ISSUED_PDFS, read.sha256);
    if (byHash) {
      return { ...base, verdict: issuedVerdict, issued: true, unchanged: true, matched_by: 'final_pdf_hash', document: await this.document(byHash, certificate, read) };
    }
    // Not a file recorded as issued: is it one of ours that was changed, or one we signed whole?
    const head = read.chain_head ? await this.infra.reads.get<IssuedPdfHeadRow>(ISSUED_PDF_HEADS, read.chain_head.hash) : null;
    const claimed = head ? await this.infra.reads.get<IssuedPdfRow>(ISSUED_PDFS, head.final_sha256) : null;
    const last = signatures.filter((s) => s.kind === 'signature').pop();
    // Its bytes verify (a standing problem, such as a revoked certificate, is not an alteration).
    const sealedWhole = !!last && last.by_this_service && (last.valid || !!last.standing_problem) && last.covers_whole_file;
    if (sealedWhole) {
      // Our key signed these very bytes (an audit certificate version, for one): issued and unchanged.
      const document = claimed ? await this.document(claimed, certificate, null) : null;
      return { ...base, verdict: issuedVerdict, issued: true, unchanged: true, matched_by: claimed ? 'chain_head_proof' : 'signature', document };
    }
    if (claimed || signatures.some((s) => s.by_this_service)) {
      return { ...base, verdict: 'altered', issued: false, unchanged: false, matched_by: null, document: null };
    }
    return { ...base, verdict: 'not_issued', issued: false, unchanged: null, matched_by: null, document: null };
  }

  /** What the audit certificate prints about the document, masked the same way; its log checked as `cli verify` does. */
  private async document(issued: IssuedPdfRow, certificate: Buffer, read: Read | null): Promise<PdfVerificationResponse['document']> {
    const row = await this.infra.reads.get<DocumentRow>(DOCUMENTS, issued.document_id);
    if (!row) return null;
    const events = await this.infra.events.readStream(documentStreamId(issued.document_id));
    // The final PDF's bytes were matched by hash already: the witness check ties them to the log
    // without loading the stored copy (nothing is hashed on this thread).
    const verification = await verifyDocumentEvidence({
      events,
      certificate,
      blob: async () => null,
      // The witness check reads the head's revision, hash and count; the PDF's entry carries those.
      witness: read ? { head: read.chain_head ? ({ event_count: read.chain_head.completed_event_count, ...read.chain_head } as ChainHead) : null, sha256: read.sha256 } : null,
    });
    const chainVerified = verification.checks.every((c) => c.check === 'final_pdf' || c.status !== 'failed');
    return {
      title: row.title,
      livemode: issued.livemode,
      completed_at: issued.completed_at,
      chain_verified: chainVerified,
      participants: row.participants.map((p) => ({
        name: p.name,
        role: p.role,
        phone_masked: maskPhone(p.phone),
        email_masked: maskEmail(p.email),
        signed_at: p.signed_at ?? null,
      })),
    };
  }
}
