import { createHash, X509Certificate } from 'crypto';
import { BlobStore } from '@dojang/blob-store';
import { BlobPointer, DocumentPart, DocumentState, FieldValueEntry, FileRef, ParticipantState, PartPages, absolutePage, displayValue, layParts, oneLineDistinguishedName } from '@dojang/domain';
import {
  AUDIT_CERTIFICATE,
  AuditCertificateInput,
  BUILD_FINAL,
  ARCHIVE_TIMESTAMP,
  BuildFinalJobInput,
  CHECK_IMAGE,
  CHECK_LOGO,
  type LogoCheck,
  PARSE_TABLE,
  ParsedTableResult,
  ImageCheck,
  COUNTERSIGN,
  DOCUMENT_BUDGETS,
  PdfJob,
  PdfPool,
  PLACE_SIGNATURE,
  type PageNumbers,
  RENDER_DOCUMENT,
  RENDER_PAGE,
  SignatureBlock,
  SignatureBlockInput,
  RENDER_SVG,
  SANITIZE_HTML,
  RenderSvgInput,
  ZIP_FILES,
  ZipFile,
  PdfValue,
  PlaceholderBox,
  FIND_ANCHORS,
  FIND_TEXT_LINES,
  JOIN_PDFS,
  TextAnchorQuery,
  TextAnchorResult,
  checkDocumentBudget,
  isPdfLimitError,
  PdfLimitError,
  acquireSharedPdfPool,
  PROBE_SIGNING_KEY,
  INSPECT_SIGNING_P12,
  SIGNER_CHAIN,
  SIGN_DIGEST,
  type InspectedSigningP12,
} from '@dojang/pdf';
import {
  SigningIdentity,
  evidenceKeyOf,
  loadOrCreateSigningIdentity,
  sha256Hex,
  type SigningKeySpec,
} from '@dojang/evidence';
import { readFile } from 'fs/promises';
import { ReadDoc, ReadStore } from '@dojang/read-store';
import { WithBody, readBody } from './bodies';
import { EvidenceIncompleteError, EvidenceIntegrityError } from './evidence-integrity.error';
import { AppConfig } from './runtime/config';
import { SigningCertificateInvalidError, SigningUnavailableError, signingUnavailableOf } from './signing-unavailable.error';
import { ChainHead, EvidenceKey } from './verification/chain-head-proof';
import { ORGANIZATION_CERTIFICATE_REMEDY, SigningKeyEnvelopeError, type OrganizationSigningKeys } from './organization-signing-keys';
import { isStoreUnavailable } from './runtime/store-unavailable';
import { pemCertificates } from '@dojang/verifier/pades';

const certificatePem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;

/** Bytes back from a worker (a Uint8Array) as a Buffer over the same memory. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The `evidence` entry of a final PDF: the chain head its completion seals (see ChainHeadProof). */
export const CHAIN_HEAD_PDF_KEY = 'DojangChainHead';

/** Rendered drafts by the hash of what they are rendered from (see `renderKey`). */
export const RENDERED_PDFS = 'rendered_pdfs';

export interface RenderedPdfRow extends ReadDoc {
  id: string;
  sha256: string;
  byte_size: number;
  page_count: number;
  /** Where the body's field placeholders went (anchors.ts); absent when it has none. */
  anchors?: PlaceholderBox[];
}

/** Page images by the hash of what they are rendered from (see `pageImage`). */
export const PAGE_IMAGES = 'page_images';

/**
 * The widths page images come in (pixels): a phone's screen at 1×, at 1.75–2× (a 360–412 px wide
 * phone shows the page about 380 CSS px wide: 660–760 device pixels), and a 3× phone, zoomed or wide
 * one. Without 720 those 2× phones took the 960 px image: 1.8 times the pixels, about 1.45 times the bytes.
 */
export const PAGE_IMAGE_WIDTHS: readonly number[] = [480, 720, 960];

/**
 * The widths rendered when a document is sent (PageImagesReactor): those a phone's first view asks
 * for. The page shows a page image 92 % of the screen wide (`sizes`), so a 360–412 px phone at
 * 1.75–2× takes 720 (Lighthouse's mobile device too) and at 2.6–3.5× (most phones sold now) 960; a
 * desktop's 560 px column takes 720 at 1× and 960 at 2×. 480 is only for a 1× screen under 522 px
 * wide: it is rendered on its first request instead (once per PDF, in the pool), where rendering it
 * at send took 14 % of the pixels, and of the CPU, every sent document paid for (issue 35 item 5).
 */
export const PAGE_IMAGE_WIDTHS_AT_SEND: readonly number[] = [720, 960];

/**
 * How many pages of a document get their images ahead of being asked for: page 1 at send, pages
 * 2… once a signer's page 1 is asked for (`warmFollowingPages`); a later page of a longer
 * document when it is first asked for.
 */
export const PRERENDERED_PAGES = 20;

/** The encodings page images are served in: WebP to browsers that accept it, PNG to the rest. */
export const PAGE_IMAGE_FORMATS = ['png', 'webp'] as const;
export type PageImageFormat = (typeof PAGE_IMAGE_FORMATS)[number];

/** A page image's `page_images` key. A PNG's is the key it had before WebP came, so stored ones stay found. */
function pageImageKey(pdfSha256: string, page: number, width: number, format: PageImageFormat): string {
  const inputs: unknown[] = [RENDER_PAGE.id, RENDER_PAGE.version, pdfSha256, page, width];
  if (format !== 'png') inputs.push(format);
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
}

interface PageImageRow extends ReadDoc {
  id: string;
  sha256: string;
  byte_size: number;
}

type RenderSource = Pick<DocumentState, 'title' | 'content_format' | 'created_at'> & { show_title?: boolean; page_numbers?: PageNumbers } & Partial<Pick<DocumentState, 'organization_id'>> & WithBody;

/** What a document's PDF is made from: its body or file, or its parts (document-parts.ts). */
type PdfSource = Pick<DocumentState, 'original_pdf' | 'file' | 'title' | 'content_format' | 'created_at'> & {
  show_title?: boolean;
  parts?: DocumentPart[] | null;
} & Partial<Pick<DocumentState, 'organization_id'>> &
  WithBody;

/** One part's PDF: stored (its hash), its pages, and for a rendered body where its placeholders went. */
export type PartPdf = Pick<RenderedPdfRow, 'sha256' | 'byte_size' | 'page_count' | 'anchors'>;

/**
 * How part `index` of a document is rendered: part 0 under the document's title (shown as
 * show_title says, like a one-part body), any later part under its own title when it has one.
 */
export function partRenderSource(doc: PdfSource, part: DocumentPart, index: number): RenderSource {
  const title = part.title ?? doc.title;
  const showTitle = index === 0 ? doc.show_title !== false : part.title !== null;
  return {
    title,
    content_format: part.content_format,
    created_at: doc.created_at,
    content_blob: part.content_blob,
    ...(showTitle ? {} : { show_title: false }),
    ...(doc.organization_id ? { organization_id: doc.organization_id } : {}),
  };
}

/** Entries of the in-process render cache; the rows and the blobs themselves are not bounded. */
const MEMORY_CACHE_ENTRIES = 10_000;

/**
 * How long a refused render is answered from memory instead of rendered again. A budget refusal
 * is a property of the content (forever would do; the entry only makes room); a time or memory
 * refusal may owe something to a busy machine, so it is retried after a while.
 */
const REFUSAL_MEMORY_MS = { budget: 24 * 60 * 60 * 1000, limit: 10 * 60 * 1000 };
const REFUSAL_ENTRIES = 10_000;

/**
 * What a document's PDF is made of at each stage: the original to read, then the signed final.
 * Every PDF job runs in the worker pool (never on the event loop), with the config's time limit
 * and the pool's heap limit; a job over a limit or a budget throws PdfLimitError before anything
 * is appended, so the document is left as it was.
 *
 * A draft is rendered once per content: the PDF goes to the blob store under its own hash, and
 * `rendered_pdfs` maps the hash of the render's inputs (renderer version, title, body, format,
 * creation time) to it. Every `GET /file`, the signing page and send reuse it, and so does any
 * document with the same inputs.
 */
export class DocumentPdfService {
  private identity: Promise<SigningIdentity> | null = null;
  private keySpec: Promise<SigningKeySpec | null> | null = null;
  private readonly renders = new Map<string, RenderedPdfRow>();
  private readonly inFlight = new Map<string, Promise<RenderedPdfRow>>();
  private collection: Promise<void> | null = null;
  private readonly pageImages = new Map<string, string>();
  private readonly lineCache = new Map<string, number[][]>();
  private readonly pagesInFlight = new Map<string, Promise<Buffer | null>>();
  /** PDF, width and format whose following pages were warmed (`warmFollowingPages`), oldest first. */
  private readonly warmed = new Set<string>();
  /** Set by `close()`: a warm-up in progress stops at its next page. */
  private closed = false;
  private pageCollection: Promise<void> | null = null;

  readonly pool: PdfPool;
  /** Set when this service holds the process's shared pool (given none): `close()` lets go of it. */
  private readonly lease: { release(): Promise<void> } | null = null;
  /** Refused renders and placements by the hash of their inputs: a refusal is not paid for twice. */
  private readonly refusals = new Map<string, { error: PdfLimitError; until: number; timeoutMs: number }>();
  /** Refusals answered from memory (tests and metrics). */
  refusalsRemembered = 0;
  /** Organizations' own signing keys (PUT /v1/organization/signing_certificate); unset: the platform's key signs every PDF. */
  organizationKeys: OrganizationSigningKeys | null = null;

  constructor(
    private readonly blobs: BlobStore,
    private readonly config: AppConfig,
    private readonly reads: ReadStore | null = null,
    pool?: PdfPool,
  ) {
    if (pool) {
      this.pool = pool;
    } else {
      const held = acquireSharedPdfPool({ threads: config.pdfPoolThreads, maxHeapMb: config.pdfJobMaxHeapMb });
      this.pool = held.pool;
      this.lease = held;
    }
  }

  /** Lets go of the shared pool (its workers stop with its last holder); a given pool is the caller's. */
  async close(): Promise<void> {
    this.closed = true;
    await this.lease?.release();
  }

  /**
   * The PDF a participant reads: fixed at send; before that the uploaded file, or the body
   * rendered once (deterministic for the same title, body and creation time).
   */
  async original(state: PdfSource): Promise<Buffer> {
    if (state.original_pdf) return this.blob(state.original_pdf.sha256);
    if (state.parts) return this.blob((await this.joined(state)).row.sha256);
    if (state.file) return this.blob(state.file.sha256);
    return this.blob((await this.rendered(state)).sha256);
  }

  /** Each part's PDF, in order: an uploaded part as it was stored, a body rendered (cached) in the pool. */
  async partPdfs(state: PdfSource): Promise<PartPdf[]> {
    const parts = state.parts ?? [];
    return Promise.all(
      parts.map(async (part, i): Promise<PartPdf> => {
        if (part.file) return fileAsPart(part.file);
        return this.rendered(partRenderSource(state, part, i));
      }),
    );
  }

  /**
   * The parts as they are joined: each body rendered again with footers that number the whole
   * document (page 2 of part 1 after a 3-page part 0 says "5 / 7", not "2 / 4"), so the footers
   * count pages as the fields, the signing session and the page images do. An uploaded PDF part is
   * used as it is (nothing is printed on it) and counted. The footers sit in the bottom margin:
   * the numbered render has the part's pages exactly, which is checked.
   */
  private async numberedPartPdfs(state: PdfSource, layout: PartPages[]): Promise<PartPdf[]> {
    const parts = state.parts ?? [];
    const total = layout.reduce((sum, at) => sum + at.page_count, 0);
    return Promise.all(
      parts.map(async (part, i): Promise<PartPdf> => {
        if (part.file) return fileAsPart(part.file);
        const numbered = await this.rendered({ ...partRenderSource(state, part, i), page_numbers: { first: layout[i].first_page, total } });
        if (numbered.page_count !== layout[i].page_count) {
          throw new Error(`part ${i} renders to ${numbered.page_count} pages with document page numbers but ${layout[i].page_count} without`);
        }
        return numbered;
      }),
    );
  }

  /** One part's PDF bytes (anchors are searched in the part their field is on). */
  async partPdf(state: PdfSource, index: number): Promise<{ pdf: Buffer; part: PartPdf }> {
    const part = (await this.partPdfs(state))[index];
    return { pdf: await this.blob(part.sha256), part };
  }

  /**
   * The parts joined into one PDF (join-pdfs.ts), stored like a render: `rendered_pdfs` maps the
   * hash of (join version, title, every part's hash) to it, so the draft's GET /file, the
   * signing page and send all read the same bytes.
   */
  async joined(state: PdfSource): Promise<{ row: RenderedPdfRow; parts: PartPages[] }> {
    const layout = layParts((await this.partPdfs(state)).map((p) => p.page_count));
    const parts = await this.numberedPartPdfs(state, layout);
    const key = createHash('sha256').update(JSON.stringify([JOIN_PDFS.id, JOIN_PDFS.version, state.title, parts.map((p) => p.sha256)])).digest('hex');
    const known = this.renders.get(key) ?? (await this.storedRender(key));
    if (known) return { row: known, parts: layout };
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.remembering(key, async () => {
        const out = await this.job(
          JOIN_PDFS,
          { pdfs: await Promise.all(parts.map((p) => this.blob(p.sha256))), title: state.title, max_pages: DOCUMENT_BUDGETS.max_pages },
          state.organization_id || undefined,
        );
        return this.storeRender(key, out.pdf, out.page_counts.reduce((a, b) => a + b, 0));
      }).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return { row: await pending, parts: layout };
  }

  /** The stored render of a draft's body: from the cache, else rendered in the pool now. */
  async rendered(state: RenderSource): Promise<RenderedPdfRow> {
    const key = renderKey(state);
    const known = this.renders.get(key) ?? (await this.storedRender(key));
    if (known) return known;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.remembering(key, () => this.render(key, state)).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** The original fixed at send: the upload as it was read at upload, or the stored render. */
  async fixOriginal(state: DocumentState): Promise<{ pointer: BlobPointer; page_count: number; parts?: PartPages[] }> {
    if (state.parts) {
      // Every body is read (its hash checked) and every upload is there before the parts are joined.
      for (const part of state.parts) {
        if (part.file) {
          if (!(await this.blobs.has(part.file.sha256))) throw new Error(`blob ${part.file.sha256} is missing from the blob store`);
        } else await readBody(this.blobs, part);
      }
      const joined = await this.joined(state);
      return { pointer: { sha256: joined.row.sha256, byte_size: joined.row.byte_size }, page_count: joined.row.page_count, parts: joined.parts };
    }
    if (state.file) {
      if (!(await this.blobs.has(state.file.sha256))) throw new Error(`blob ${state.file.sha256} is missing from the blob store`);
      // Read (in the pool) and counted when it was uploaded; reading it again would only cost time.
      return { pointer: { sha256: state.file.sha256, byte_size: state.file.byte_size }, page_count: state.file.page_count };
    }
    // The body is read (its hash checked, once per process) even when its render is stored
    // already (PUT /fields renders the draft): a body corrupted in the store is never sent.
    await readBody(this.blobs, state);
    const render = await this.rendered(state);
    return { pointer: { sha256: render.sha256, byte_size: render.byte_size }, page_count: render.page_count };
  }

  /**
   * Stamps every participant's signature and seal into their fields, then signs the whole file
   * (PAdES B-B; with TSA_URL B-T, B-LT or B-LTA as PADES_LEVEL says). `pending` supplies the images of the signature being made now.
   */
  async buildFinal(
    state: DocumentState,
    pending: { participant_id: string; signature: BlobPointer | null; seal: BlobPointer | null; values?: FieldValueEntry[] },
    /** When the document is signed (the completing command's now): the organization's certificate must be valid then. */
    signingTime: Date,
    chainHead?: ChainHead,
  ): Promise<BlobPointer> {
    const original = await this.original(state);
    const images = new Map<string, { signature: BlobPointer | null; seal: BlobPointer | null }>();
    for (const p of state.participants as ParticipantState[]) {
      images.set(p.id, { signature: p.signature, seal: p.seal?.image ?? null });
    }
    images.set(pending.participant_id, { signature: pending.signature, seal: pending.seal });
    // A signing group's fields carry the image of the member who signed for it.
    const pendingGroup = state.participants.find((p) => p.id === pending.participant_id)?.group ?? null;
    for (const p of state.participants as ParticipantState[]) {
      const by = p.group_signed_by ?? (pendingGroup !== null && p.group === pendingGroup && p.id !== pending.participant_id ? pending.participant_id : null);
      if (by && images.get(by)) images.set(p.id, images.get(by) as { signature: BlobPointer | null; seal: BlobPointer | null });
    }
    const stamps: BuildFinalJobInput['stamps'] = [];
    for (const f of state.fields) {
      const img = images.get(f.participant_id);
      // Only image fields take an image: the value fields (text, date, checkbox, …) are drawn as values.
      const pointer = f.type === 'signature' ? img?.signature : f.type === 'seal' ? img?.seal : null;
      if (!pointer) continue;
      // A field's page counts within its part; the original joins the parts (absolutePage).
      stamps.push({ page: absolutePage(state, f), x: f.x, y: f.y, width: f.width, height: f.height, image: await this.blob(pointer.sha256) });
    }
    const values = pdfValuesOf(state, pending.participant_id, pending.values ?? []);
    // An organization that uploaded its own certificate signs its documents with it.
    // Its certificate not valid at the signing time, or its key unreadable (a blob store away,
    // KEY_ENCRYPTION_KEY changed): 503, nothing recorded; never signed with another key instead.
    const own = state.organization_id
      ? await this.organizationKeys?.keyFor(state.organization_id, signingTime).catch((error: unknown) => {
          // A store that failed under the lookup (a dropped connection) is an outage (503
          // service_unavailable), whatever key the organization has: the message names that.
          if (error instanceof SigningUnavailableError || error instanceof SigningCertificateInvalidError || isStoreUnavailable(error)) throw error;
          const remedy = error instanceof SigningKeyEnvelopeError ? `restore the KEY_ENCRYPTION_KEY it was stored with, or ${ORGANIZATION_CERTIFICATE_REMEDY}` : ORGANIZATION_CERTIFICATE_REMEDY;
          throw new SigningUnavailableError(`the organization's signing key cannot be opened (${(error as Error).message}); ${remedy}`);
        })
      : null;
    const key = own?.spec ?? (await this.signingKey());
    const signed = await this.job(
      BUILD_FINAL,
      {
        original,
        stamps,
        ...(values.length ? { values } : {}),
        sign: {
          ...(await this.keyOrIdentity(key)),
          reason: `Signed by all parties: ${state.title}`.slice(0, 200),
          name: 'Dojang',
          location: 'Dojang e-signature service',
          ...(this.config.tsaUrl ? { tsaUrl: this.config.tsaUrl, level: this.config.padesLevel === 'B-B' ? 'B-T' : this.config.padesLevel } : {}),
          ...this.revocationSources(),
          ...(chainHead ? { evidence: { [CHAIN_HEAD_PDF_KEY]: JSON.stringify({ document_id: state.id, ...chainHead }) } } : {}),
        },
      },
      state.organization_id || undefined,
    ).catch((error: unknown) => {
      // A TSA, responder or key away: 503 and nothing recorded (the completion is not appended).
      throw signingUnavailableOf(error);
    });
    const ref = await this.blobs.put(asBuffer(signed));
    return { sha256: ref.sha256, byte_size: ref.byte_size };
  }

  /**
   * The archive step on a stored final PDF (ARCHIVE_TIMESTAMP): when its newest timestamp's
   * certificate expires before `dueBefore`, a new DSS round and document timestamp, stored as a
   * blob. A TSA or responder away throws SigningUnavailableError (the timer tries again).
   */
  async archiveTimestamp(finalSha256: string, dueBefore: Date, tsaUrl: string, tenant?: string): Promise<
    | { extended: false; expires_at: string | null }
    | { extended: true; final_pdf: BlobPointer; previous_expires_at: string; expires_at: string; timestamped_at: string }
  > {
    const pdf = await this.blob(finalSha256);
    const out = await this.job(ARCHIVE_TIMESTAMP, { pdf, tsa_url: tsaUrl, due_before: dueBefore.toISOString(), ...this.revocationSources() }, tenant).catch((error: unknown) => {
      throw signingUnavailableOf(error);
    });
    if (!out.extended) return { extended: false, expires_at: out.expires_at };
    const ref = await this.blobs.put(asBuffer(out.pdf));
    return { extended: true, final_pdf: { sha256: ref.sha256, byte_size: ref.byte_size }, previous_expires_at: out.previous_expires_at, expires_at: out.expires_at, timestamped_at: out.timestamped_at };
  }

  /** Anchor texts located in a stored PDF, in the pool (PDFium's text layer; anchors.ts). */
  findAnchors(pdf: Buffer, queries: TextAnchorQuery[], tenant?: string): Promise<TextAnchorResult[]> {
    return this.job(FIND_ANCHORS, { pdf, queries }, tenant);
  }

  /**
   * The baselines of each page's text lines in the stored PDF `sha256` (the editor snaps fields to
   * them), found once in the pool and kept in memory by the PDF's hash: a PDF stored under a hash
   * never changes, and an editor asks for the same parts on every open. A bounded map (the oldest
   * entry goes first), as the lines of a 300-page contract are a few kilobytes.
   */
  async textLines(sha256: string, tenant?: string): Promise<number[][]> {
    const known = this.lineCache.get(sha256);
    if (known) return known;
    const lines = await this.job(FIND_TEXT_LINES, await this.blob(sha256), tenant);
    this.lineCache.set(sha256, lines);
    if (this.lineCache.size > 200) this.lineCache.delete(this.lineCache.keys().next().value as string);
    return lines;
  }

  /** `base` with the audit certificate appended, rendered in the pool. */
  async withAuditCertificate(base: Buffer, certificate: AuditCertificateInput, tenant?: string): Promise<Buffer> {
    return asBuffer(await this.job(AUDIT_CERTIFICATE, { base, certificate }, tenant));
  }

  /** Where the recipient's signature box goes at the end of a body: laid out in the pool. */
  placeSignature(input: SignatureBlockInput, tenant?: string): Promise<SignatureBlock> {
    const key = createHash('sha256').update(JSON.stringify([PLACE_SIGNATURE.id, PLACE_SIGNATURE.version, input])).digest('hex');
    return this.remembering(`place:${key}`, () => this.job(PLACE_SIGNATURE, input, tenant));
  }

  /** Runs `work` unless the same inputs were refused lately; remembers a refusal for next time. */
  private async remembering<T>(key: string, work: () => Promise<T>): Promise<T> {
    const known = this.refusals.get(key);
    // A time refusal holds only for the time limit it was given: with more time (an operator
    // raising PDF_JOB_TIMEOUT_MS) the work is tried again.
    if (known && known.until > Date.now() && (known.error.limit !== 'time' || this.config.pdfJobTimeoutMs <= known.timeoutMs)) {
      this.refusalsRemembered++;
      throw known.error;
    }
    try {
      return await work();
    } catch (err) {
      if (isPdfLimitError(err)) {
        if (this.refusals.size >= REFUSAL_ENTRIES) this.refusals.delete(this.refusals.keys().next().value as string);
        const ttl = err.code === 'document_budget_exceeded' ? REFUSAL_MEMORY_MS.budget : REFUSAL_MEMORY_MS.limit;
        this.refusals.set(key, { error: err, until: Date.now() + ttl, timeoutMs: this.config.pdfJobTimeoutMs });
      }
      throw err;
    }
  }

  /** An uploaded CSV/XLSX read as a table in the pool (the API thread only checks its rows). */
  parseTable(bytes: Buffer, options: { encoding?: string; maxRecords: number }, tenant?: string): Promise<ParsedTableResult> {
    return this.job(PARSE_TABLE, { bytes, ...(options.encoding ? { encoding: options.encoding } : {}), max_records: options.maxRecords }, tenant);
  }

  /** Whether the stamper will take this signature or seal image, decoded in the pool as it will be. */
  checkStampImage(image: Buffer): Promise<ImageCheck> {
    return this.job(CHECK_IMAGE, image);
  }

  /** An organization's logo checked (and a PNG re-encoded) in the pool, as it will be stored. */
  async checkLogo(image: Buffer, maxSide: number): Promise<LogoCheck> {
    const out = await this.job(CHECK_LOGO, { image, max_side: maxSide });
    return out.ok ? { ...out, bytes: asBuffer(out.bytes) } : out;
  }

  /** A contract body's HTML through the PDF renderer's allow-list, in the pool (the signing page's reading view). */
  async sanitizeHtml(html: string): Promise<string> {
    return this.job(SANITIZE_HTML, { html });
  }

  /** An SVG (a generated seal) rendered to PNG in the pool. */
  async renderSvg(input: RenderSvgInput): Promise<Buffer> {
    return asBuffer(await this.job(RENDER_SVG, input));
  }

  /** A ZIP of `files` (the evidence bundle), made in the pool. */
  async zip(files: ZipFile[], mtime: string): Promise<Buffer> {
    return asBuffer(await this.job(ZIP_FILES, { files, mtime }));
  }

  /**
   * Page `page` (1-based) of the stored PDF `pdfSha256` as a PNG, or as lossless WebP, `width`
   * pixels wide; null when the PDF has no such page. Rendered in the pool into the format asked
   * for (the WebP is encoded there too, never on this thread): it goes to the blob store and
   * `page_images` maps the hash of (renderer, PDF hash, page, width[, format]) to it, so every
   * signer of every document with this PDF, and every process, reuses it. Concurrent requests for
   * the same image share one render. Each format is rendered on its own first request: the send
   * renders the WebP alone (PageImagesReactor), as browsers ask for it, and a client that does not
   * accept WebP pays once for the PNG (a render and a PNG encode, more CPU than the WebP's).
   * `source`: the PDF's bytes (`pdfSource`), shared by a caller rendering several pages or widths.
   */
  async pageImage(pdfSha256: string, page: number, width: number, format: PageImageFormat = 'png', source = this.pdfSource(pdfSha256)): Promise<Buffer | null> {
    if (!PAGE_IMAGE_WIDTHS.includes(width)) throw new RangeError(`page image width ${width} is not one of ${PAGE_IMAGE_WIDTHS.join(', ')}`);
    const key = pageImageKey(pdfSha256, page, width, format);
    const known = this.pageImages.get(key) ?? (await this.storedPageImage(key));
    if (known) return this.blob(known);
    let pending = this.pagesInFlight.get(key);
    if (!pending) {
      pending = this.renderPage(pdfSha256, page, width, format, key, source).finally(() => this.pagesInFlight.delete(key));
      this.pagesInFlight.set(key, pending);
    }
    return pending;
  }

  /**
   * The stored PDF's bytes for `pageImage`, read and checked against their hash on first use and
   * then kept: several pages or widths rendered in turn read (and hash, on this thread) the PDF
   * once, and a caller whose images are all stored reads nothing.
   */
  pdfSource(pdfSha256: string): () => Promise<Buffer> {
    let bytes: Promise<Buffer> | null = null;
    return () => (bytes ??= this.blob(pdfSha256));
  }

  /**
   * Renders pages 2… (up to PRERENDERED_PAGES) of a PDF at one width and format in the background,
   * one after the other, for the signer whose page 1 was just asked for at that width: the page asks
   * for the next pages once page 1 is on screen, and finds them rendered. The send renders only
   * page 1 (PageImagesReactor), at the two widths phones ask for: rendering every page at both
   * there cost a 3-page contract three times the CPU, for every document, opened or not, where this
   * renders the rest at the one width a signer's screen uses (issue 35 item 5). Each PDF, width and
   * format is warmed once per process (a bounded memory); what is stored already costs a lookup.
   * Off with PAGE_IMAGES_AT_SEND=false, which leaves every page image to its own request. A render
   * that fails is reported to `onError`, and the pages after it are left to their own requests.
   */
  warmFollowingPages(pdfSha256: string, pageCount: number, width: number, format: PageImageFormat, onError: (err: unknown) => void): void {
    const last = Math.min(pageCount, PRERENDERED_PAGES);
    // PAGE_IMAGES_AT_SEND=false: nothing is rendered ahead of its request, here as at send.
    if (!this.config.pageImagesAtSend || last < 2 || !PAGE_IMAGE_WIDTHS.includes(width)) return;
    const key = `${pdfSha256}:${width}:${format}`;
    if (this.warmed.has(key)) return;
    if (this.warmed.size >= MEMORY_CACHE_ENTRIES) this.warmed.delete(this.warmed.values().next().value as string);
    this.warmed.add(key);
    const source = this.pdfSource(pdfSha256);
    void (async () => {
      for (let page = 2; page <= last && !this.closed; page++) await this.pageImage(pdfSha256, page, width, format, source);
    })().catch((err: unknown) => {
      this.warmed.delete(key);
      if (!this.closed) onError(err);
    });
  }

  private async renderPage(pdfSha256: string, page: number, width: number, format: PageImageFormat, key: string, source: () => Promise<Buffer>): Promise<Buffer | null> {
    const out = await this.job(RENDER_PAGE, { pdf: await source(), pdf_sha256: pdfSha256, page, width, png: format === 'png', webp: format === 'webp' });
    const bytes = out[format];
    if (!bytes) return null;
    const image = asBuffer(bytes);
    const ref = await this.blobs.put(image);
    this.rememberPage(key, ref.sha256);
    if (this.reads) {
      this.pageCollection ??= this.reads.ensureCollection({ name: PAGE_IMAGES });
      await this.pageCollection;
      // Another process may have stored the same image first: the same bytes, so either row does.
      await this.reads.putIfVersion(PAGE_IMAGES, { id: key, sha256: ref.sha256, byte_size: ref.byte_size }, null);
    }
    return image;
  }

  private async storedPageImage(key: string): Promise<string | null> {
    if (!this.reads) return null;
    this.pageCollection ??= this.reads.ensureCollection({ name: PAGE_IMAGES });
    await this.pageCollection;
    const row = await this.reads.get<PageImageRow>(PAGE_IMAGES, key);
    if (!row || !(await this.blobs.has(row.sha256))) return null;
    this.rememberPage(key, row.sha256);
    return row.sha256;
  }

  private rememberPage(key: string, sha256: string): void {
    if (this.pageImages.size >= MEMORY_CACHE_ENTRIES) this.pageImages.delete(this.pageImages.keys().next().value as string);
    this.pageImages.set(key, sha256);
  }

  /**
   * A job in the pool under the configured time limit (the pool's heap limit applies to all),
   * counted against `tenant` (the organization) so that one organization cannot hold every worker.
   */
  private job<I, O>(job: PdfJob<I, O>, input: I, tenant?: string) {
    return this.pool.run(job, input, { timeoutMs: this.config.pdfJobTimeoutMs, ...(tenant ? { tenant } : {}) });
  }

  /** The configured revocation sources for a pool job, when there are any (REVOCATION_OCSP_URLS, REVOCATION_CRL_URLS). */
  private revocationSources(): { revocation_sources?: { ocsp: string[]; crl: string[] } } {
    const sources = this.config.revocationSources;
    return sources && (sources.ocsp.length || sources.crl.length) ? { revocation_sources: sources } : {};
  }

  /**
   * What a signing job signs with: the key spec when one is configured (a token, a remote signer,
   * an organization's .p12), else the file identity. The file identity is loaded (and made, the
   * first time) only in that last case: with SIGNING_KEY=pkcs11 or remote no software key is ever
   * generated or written to DATA_DIR/signing (issue 31 item 3).
   */
  private async keyOrIdentity(key: SigningKeySpec | null): Promise<{ key: SigningKeySpec } | { p12: Buffer; passphrase: string }> {
    if (key) return { key };
    const identity = await this.signingIdentity();
    return { p12: identity.p12, passphrase: identity.passphrase };
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
   * contract's own signature stays valid for its revision and this one covers the whole file,
   * `evidence` entries (the certificate's `DojangDeliveryHead`) included.
   */
  async countersign(bundle: Buffer, reason: string, evidence?: Record<string, string>): Promise<Buffer> {
    const key = await this.signingKey();
    const out = await this.job(
      COUNTERSIGN,
      {
        pdf: bundle,
        sign: {
          ...(await this.keyOrIdentity(key)),
          reason: reason.slice(0, 200),
          name: 'Dojang',
          location: 'Dojang e-signature service',
          ...(this.config.tsaUrl ? { tsaUrl: this.config.tsaUrl } : {}),
          ...(evidence ? { evidence } : {}),
          ...this.revocationSources(),
        },
      },
    ).catch((error: unknown) => {
      throw signingUnavailableOf(error);
    });
    return asBuffer(out);
  }

  /**
   * The PDF-signing key when it lives outside a PKCS#12 (SIGNING_KEY=pkcs11 or remote): its PIN or
   * token read from its file and its certificate chain from SIGNING_CERTIFICATE, as plain data for
   * the pool's workers (which open the token themselves: the key never leaves it). Null: the file
   * identity signs.
   */
  signingKey(): Promise<SigningKeySpec | null> {
    this.keySpec ??= (async (): Promise<SigningKeySpec | null> => {
      const k = this.config.signingKey;
      if (!k) return null;
      const certificates = pemCertificates(await readFile(k.certificateFile, 'utf8'));
      if (!certificates.length) throw new Error(`SIGNING_CERTIFICATE ${k.certificateFile} holds no PEM certificate`);
      if (k.kind === 'pkcs11') {
        const pin = (await readFile(k.pinFile, 'utf8')).trim();
        return {
          kind: 'pkcs11',
          module: k.module,
          ...(k.slot !== null ? { slot: k.slot } : {}),
          ...(k.tokenLabel !== null ? { tokenLabel: k.tokenLabel } : {}),
          ...(k.keyLabel !== null ? { keyLabel: k.keyLabel } : {}),
          pin,
          certificates,
        };
      }
      const token = k.tokenFile ? (await readFile(k.tokenFile, 'utf8')).trim() : null;
      return { kind: 'remote', url: k.url, keyId: k.keyId, ...(token ? { authorization: `Bearer ${token}` } : {}), certificates };
    })();
    return this.keySpec;
  }

  /**
   * Boot check of a PKCS#11 or remote key, in the pool: opens it and signs a probe digest, so a
   * wrong PIN, a missing slot or key, an unreachable signer or a key not matching its certificate
   * stops the process with the reason instead of failing the first completion.
   */
  async checkSigningKey(): Promise<void> {
    const key = await this.signingKey();
    if (!key) return;
    await this.job(PROBE_SIGNING_KEY, key);
  }

  /**
   * SHA-256 of the certificate that signs final PDFs (DER): printed on the audit certificate. With
   * an organization: its own certificate when it uploaded one.
   */
  async signingCertificateSha256(organizationId?: string): Promise<string> {
    const own = organizationId ? await this.organizationKeys?.certificate(organizationId) : null;
    if (own) return own.sha256_fingerprint;
    const key = await this.signingKey();
    if (key && key.kind !== 'file') return sha256Hex(key.certificates[0]);
    return sha256Hex((await this.evidenceKey()).certificate);
  }

  /** Until when the certificate that signs this organization's final PDFs is valid (ISO 8601): printed on the audit certificate. */
  async signingCertificateNotAfter(organizationId?: string): Promise<string> {
    const own = organizationId ? await this.organizationKeys?.certificate(organizationId) : null;
    if (own) return own.not_after;
    const key = await this.signingKey();
    const der = key && key.kind !== 'file' ? Buffer.from(key.certificates[0]) : (await this.evidenceKey()).certificate;
    return new Date(new X509Certificate(der).validTo).toISOString();
  }

  /** The subject of the certificate that signs this organization's final PDFs, on one line: printed on the audit certificate. */
  async signingCertificateSubject(organizationId?: string): Promise<string> {
    const own = organizationId ? await this.organizationKeys?.certificate(organizationId) : null;
    if (own) return own.subject;
    const key = await this.signingKey();
    const der = key && key.kind !== 'file' ? Buffer.from(key.certificates[0]) : (await this.evidenceKey()).certificate;
    return oneLineDistinguishedName(new X509Certificate(der).subject);
  }

  /** SHA-256 (DER), end of validity and subject of the certificate that signed `pdf` (its first signature); null: unsigned. */
  async signingCertificateOf(pdf: Buffer, tenant?: string): Promise<{ sha256: string; not_after: string; subject: string } | null> {
    const chain = await this.signerChain(pdf, tenant);
    if (!chain?.length) return null;
    const x509 = new X509Certificate(chain[0]);
    return { sha256: sha256Hex(chain[0]), not_after: new Date(x509.validTo).toISOString(), subject: oneLineDistinguishedName(x509.subject) };
  }

  /** The certificates of a PDF's first signature, the signer's first (DER), read in the pool; null: unsigned. */
  async signerChain(pdf: Buffer, tenant?: string): Promise<Buffer[] | null> {
    const chain = await this.job(SIGNER_CHAIN, pdf, tenant);
    return chain ? chain.map(asBuffer) : null;
  }

  /** An uploaded .p12 opened and checked in the pool: its summary, or why it cannot sign (as data). */
  inspectSigningP12(p12: Buffer, password: string, now: Date, tenant?: string): Promise<InspectedSigningP12> {
    return this.job(INSPECT_SIGNING_P12, { p12, password, now: now.toISOString() }, tenant);
  }

  /**
   * The key that signs evidence (chain heads, seals, bundle manifests): the same installation key
   * that signs final PDFs, through the signing-key port. With SIGNING_KEY=pkcs11 or remote only a
   * digest goes to the key, in the pool (where the token's session lives); else the file identity.
   */
  async evidenceKey(): Promise<EvidenceKey> {
    const key = await this.signingKey();
    if (key && key.kind !== 'file') {
      const [certificate, ...chain] = key.certificates.map((c) => Buffer.from(c));
      return {
        certificate,
        chain,
        signDigest: async (digest) =>
          asBuffer(
            await this.job(SIGN_DIGEST, { key, digest }).catch((error: unknown) => {
              throw signingUnavailableOf(error);
            }),
          ),
      };
    }
    return evidenceKeyOf(await this.signingIdentity());
  }

  /** The evidence key's certificate then its chain, PEM: the bundle's signing-chain.pem. */
  async evidenceChainPem(): Promise<string> {
    const key = await this.evidenceKey();
    if (!key.chain) return (await this.signingIdentity()).certificatePem;
    return [key.certificate, ...key.chain].map(certificatePem).join('');
  }

  /** A stored blob, checked against the SHA-256 it is addressed by before anyone gets it. */
  async blob(sha256: string): Promise<Buffer> {
    const bytes = await this.blobs.get(sha256, { fresh: true });
    // Named, not a bare 500: a recorded file (a final PDF, an attachment) that is gone is evidence lost.
    if (!bytes) throw new EvidenceIncompleteError(`the stored file ${sha256} is missing from the blob store`);
    const actual = sha256Hex(bytes);
    if (actual !== sha256) throw new EvidenceIntegrityError(sha256, actual);
    return bytes;
  }

  private async render(key: string, state: RenderSource): Promise<RenderedPdfRow> {
    const format = state.content_format === 'text' ? 'text' : 'html';
    const content = (await readBody(this.blobs, state)) ?? '';
    // Content stored before the budgets existed is held to them here, before any work.
    checkDocumentBudget(content, format);
    const out = await this.job(
      RENDER_DOCUMENT,
      {
        title: state.title,
        content,
        format,
        ...(state.created_at ? { created_at: state.created_at } : {}),
        ...(state.show_title === false ? { show_title: false } : {}),
        ...(state.page_numbers ? { page_numbers: state.page_numbers } : {}),
        max_pages: DOCUMENT_BUDGETS.max_pages,
        max_image_pixels: DOCUMENT_BUDGETS.max_image_pixels,
      },
      state.organization_id || undefined,
    );
    return this.storeRender(key, out.pdf, out.page_count, out.anchors);
  }

  private async storeRender(key: string, pdf: Uint8Array, pageCount: number, anchors?: PlaceholderBox[]): Promise<RenderedPdfRow> {
    const ref = await this.blobs.put(asBuffer(pdf));
    const row: RenderedPdfRow = { id: key, sha256: ref.sha256, byte_size: ref.byte_size, page_count: pageCount, ...(anchors ? { anchors } : {}) };
    this.remember(row);
    if (this.reads) {
      await this.ensureCollection();
      // Another process may have stored the same render first: the same bytes, so either row does.
      await this.reads.putIfVersion(RENDERED_PDFS, { ...row }, null);
    }
    return row;
  }

  private async storedRender(key: string): Promise<RenderedPdfRow | null> {
    if (!this.reads) return null;
    await this.ensureCollection();
    const row = await this.reads.get<RenderedPdfRow>(RENDERED_PDFS, key);
    if (!row || !(await this.blobs.has(row.sha256))) return null;
    const found: RenderedPdfRow = { id: row.id, sha256: row.sha256, byte_size: row.byte_size, page_count: row.page_count, ...(row.anchors ? { anchors: row.anchors } : {}) };
    this.remember(found);
    return found;
  }

  private remember(row: RenderedPdfRow): void {
    if (this.renders.size >= MEMORY_CACHE_ENTRIES) this.renders.delete(this.renders.keys().next().value as string);
    this.renders.set(row.id, row);
  }

  private ensureCollection(): Promise<void> {
    this.collection ??= (this.reads as ReadStore).ensureCollection({ name: RENDERED_PDFS });
    return this.collection;
  }
}

/**
 * What the final PDF shows of the recorded values: each value field with its participant's value
 * (those who signed before, from the state; the signature being made now, from `pendingValues`),
 * text as the certificate writes it (dates per locale), checkboxes and radio buttons as marks.
 */
export function pdfValuesOf(state: DocumentState, pendingId: string, pendingValues: FieldValueEntry[]): PdfValue[] {
  const recorded = new Map<string, FieldValueEntry>();
  for (const p of state.participants as ParticipantState[]) {
    for (const v of p.id === pendingId ? pendingValues : (p.values ?? [])) recorded.set(v.field_id, v);
  }
  const out: PdfValue[] = [];
  for (const f of state.fields) {
    const v = recorded.get(f.id);
    if (!v) continue;
    const box = { page: absolutePage(state, f), x: f.x, y: f.y, width: f.width, height: f.height, font_size: f.font_size ?? null, multiline: f.multiline ?? false, label: f.label ?? v.label ?? null };
    if (f.type === 'checkbox' || f.type === 'radio') out.push({ ...box, kind: f.type, checked: v.value === true });
    else {
      // An attachment goes to the annex by name, size and hash; its box names the file and the entry.
      const file = v.attachment ? { filename: v.attachment.filename, sha256: v.attachment.sha256, byte_size: v.attachment.byte_size } : null;
      out.push({ ...box, kind: 'text', text: displayValue(f, v.value, v, state.date_format), ...(file ? { attachment: file } : {}) });
    }
  }
  return out;
}

function fileAsPart(file: FileRef): PartPdf {
  return { sha256: file.sha256, byte_size: file.byte_size, page_count: file.page_count };
}

/** Everything a render's bytes depend on, hashed with the renderer's version. */
export function renderKey(state: RenderSource): string {
  // The body by its hash (bodies are content-addressed blobs); an old inline body by its text.
  const body = state.content_blob ? (state.content_blob.inline ?? `sha256:${state.content_blob.sha256}`) : (state.content ?? '');
  const inputs = [RENDER_DOCUMENT.id, RENDER_DOCUMENT.version, state.title, body, state.content_format === 'text' ? 'text' : 'html', state.created_at || null];
  // Only a render without the heading adds an input: every existing key stays as it was.
  if (state.show_title === false) inputs.push('without-title');
  // Likewise a part numbered as a page range of a joined document.
  if (state.page_numbers) inputs.push(`pages-${state.page_numbers.first}-of-${state.page_numbers.total}`);
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
}
