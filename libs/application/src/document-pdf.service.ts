import { BlobStore } from '@dojang/blob-store';
import { BlobPointer, DocumentState, ParticipantState } from '@dojang/domain';
import {
  PdfStamp,
  SigningIdentity,
  countersignPdf,
  evidenceKeyOf,
  inspectPdf,
  loadOrCreateSigningIdentity,
  renderDocumentPdf,
  sha256Hex,
  signPdf,
  stampPdf,
} from '@dojang/pdf';
import { WithBody, readBody } from './bodies';
import { AppConfig } from './config';
import { ChainHead, EvidenceKey } from './verification/chain-head-proof';

/**
 * A stored blob whose bytes no longer hash to the address it was stored under: evidence was
 * altered (or rotted) on disk. Serving it would hand out a PDF the log does not vouch for.
 */
export class EvidenceIntegrityError extends Error {
  constructor(
    readonly sha256: string,
    readonly actual: string,
  ) {
    super(`blob ${sha256} fails its integrity check: its bytes hash to ${actual}`);
    this.name = 'EvidenceIntegrityError';
  }
}

/** The `evidence` entry of a final PDF: the chain head its completion seals (see ChainHeadProof). */
export const CHAIN_HEAD_PDF_KEY = 'DojangChainHead';

/** What a document's PDF is made of at each stage: the original to read, then the signed final. */
export class DocumentPdfService {
  private identity: Promise<SigningIdentity> | null = null;

  constructor(
    private readonly blobs: BlobStore,
    private readonly config: AppConfig,
  ) {}

  /**
   * The PDF a participant reads: fixed at send; before that the uploaded file, or the body
   * rendered on the fly (deterministic for the same title, body and creation time).
   */
  async original(state: Pick<DocumentState, 'original_pdf' | 'file' | 'title' | 'content_format' | 'created_at'> & WithBody): Promise<Buffer> {
    if (state.original_pdf) return this.blob(state.original_pdf.sha256);
    if (state.file) return this.blob(state.file.sha256);
    return renderDocumentPdf({
      title: state.title,
      content: (await readBody(this.blobs, state)) ?? '',
      format: state.content_format === 'text' ? 'text' : 'html',
      created_at: state.created_at || undefined,
    });
  }

  /** Renders (or loads) the original, stores it, and counts its pages: what send fixes. */
  async fixOriginal(state: DocumentState): Promise<{ pointer: BlobPointer; page_count: number }> {
    const bytes = await this.original({ ...state, original_pdf: null });
    const inspection = await inspectPdf(bytes);
    if (!inspection.ok) throw new Error(`the document's PDF cannot be read: ${inspection.message}`);
    const ref = await this.blobs.put(bytes);
    return { pointer: { sha256: ref.sha256, byte_size: ref.byte_size }, page_count: inspection.page_count };
  }

  /**
   * Stamps every participant's signature and seal into their fields, then signs the whole file
   * (PAdES B-B, or B-T with TSA_URL). `pending` supplies the images of the signature being made now.
   */
  async buildFinal(
    state: DocumentState,
    pending: { participant_id: string; signature: BlobPointer | null; seal: BlobPointer | null },
    chainHead?: ChainHead,
  ): Promise<BlobPointer> {
    const original = await this.original(state);
    const images = new Map<string, { signature: BlobPointer | null; seal: BlobPointer | null }>();
    for (const p of state.participants as ParticipantState[]) {
      images.set(p.id, { signature: p.signature, seal: p.seal?.image ?? null });
    }
    images.set(pending.participant_id, { signature: pending.signature, seal: pending.seal });
    const stamps: PdfStamp[] = [];
    for (const f of state.fields) {
      const img = images.get(f.participant_id);
      const pointer = f.type === 'signature' ? img?.signature : img?.seal;
      if (!pointer) continue;
      stamps.push({ page: f.page, x: f.x, y: f.y, width: f.width, height: f.height, image: await this.blob(pointer.sha256) });
    }
    const stamped = stamps.length ? await stampPdf(original, stamps) : original;
    const identity = await this.signingIdentity();
    const signed = await signPdf(stamped, {
      p12: identity.p12,
      passphrase: identity.passphrase,
      reason: `Signed by all parties: ${state.title}`.slice(0, 200),
      name: 'Dojang',
      location: 'Dojang e-signature service',
      ...(this.config.tsaUrl ? { tsaUrl: this.config.tsaUrl } : {}),
      ...(chainHead ? { evidence: { [CHAIN_HEAD_PDF_KEY]: JSON.stringify({ document_id: state.id, ...chainHead }) } } : {}),
    });
    const ref = await this.blobs.put(signed);
    return { sha256: ref.sha256, byte_size: ref.byte_size };
  }

  signingIdentity(): Promise<SigningIdentity> {
    this.identity ??= loadOrCreateSigningIdentity({
      dataDir: this.config.dataDir,
      ...(this.config.signingP12 ? { p12Path: this.config.signingP12 } : {}),
      ...(this.config.signingP12Password ? { p12Password: this.config.signingP12Password } : {}),
    });
    return this.identity;
  }

  /**
   * Signs a bundle (final PDF + audit certificate) once more, in an incremental update: the
   * contract's own signature stays valid for its revision and this one covers the whole file.
   */
  async countersign(bundle: Buffer, reason: string): Promise<Buffer> {
    const identity = await this.signingIdentity();
    return countersignPdf(bundle, {
      p12: identity.p12,
      passphrase: identity.passphrase,
      reason: reason.slice(0, 200),
      name: 'Dojang',
      location: 'Dojang e-signature service',
      ...(this.config.tsaUrl ? { tsaUrl: this.config.tsaUrl } : {}),
    });
  }

  async evidenceKey(): Promise<EvidenceKey> {
    return evidenceKeyOf(await this.signingIdentity());
  }

  /** A stored blob, checked against the SHA-256 it is addressed by before anyone gets it. */
  async blob(sha256: string): Promise<Buffer> {
    const bytes = await this.blobs.get(sha256);
    if (!bytes) throw new Error(`blob ${sha256} is missing from the blob store`);
    const actual = sha256Hex(bytes);
    if (actual !== sha256) throw new EvidenceIntegrityError(sha256, actual);
    return bytes;
  }
}
