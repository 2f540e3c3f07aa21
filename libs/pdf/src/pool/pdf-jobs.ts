import type { SigningKeySpec } from '../../../evidence/src/signing-key';
import type { RevocationSources } from '../../../evidence/src/revocation-check';
import type { SigningCertificateSummary, SigningP12Problem } from '../../../evidence/src/organization-certificate';
import * as path from 'path';
import type { AuditCertificateInput } from '../audit-certificate';
import type { PlaceholderBox, TextAnchorQuery, TextAnchorResult } from '../anchors';
import type { PdfValue } from '../draw-values';
import type { PdfInspection } from '../inspect-pdf';
import type { StampImageType } from '../image-type';
import type { TableProblem } from '../../../application/src/bulk-send/parse-table';
import type { RenderDocumentInput } from '../render-document';
import type { SignatureBlock, SignatureBlockInput } from '../signature-placement';
import type { PdfJobRefusal } from './pdf-limit.error';
import type { PdfSignaturesReport } from '../../../verifier/src/pdf-signatures';

/**
 * A kind of PDF work that runs in the pool: an id, a version (part of every cache key made from
 * its output, so a change to what the handler produces invalidates what was cached) and the file
 * of its handler. `I` and `O` only type `PdfPool.run`.
 */
export interface PdfJob<I, O> {
  readonly id: string;
  readonly version: number;
  readonly filename: string;
  /** Phantom: never set. */
  readonly __io?: (input: I) => O;
}

// Compiled, a handler is a .js file beside this one; under ts-jest and ts-node it is the .ts
// source, which a worker thread loads through ts-node (see pdf-pool.ts).
const EXT = path.extname(__filename);
const handler = (name: string) => path.join(__dirname, `${name}.handler${EXT}`);

/** Bytes cross the thread boundary as Uint8Array (a Buffer arrives as one). */
export type Bytes = Uint8Array;

export interface RenderDocumentJobInput extends RenderDocumentInput {
  /** More pages than this are refused (the document's budget). */
  max_pages: number;
  /** More image pixels in total than this are refused. */
  max_image_pixels: number;
}
export interface RenderedPdf {
  pdf: Bytes;
  page_count: number;
  /** Where the body's field placeholders (`{{signature:employee}}`) went; absent when it has none. */
  anchors?: PlaceholderBox[];
}
export const RENDER_DOCUMENT: PdfJob<RenderDocumentJobInput, RenderedPdf | PdfJobRefusal> = {
  id: 'pdf.render-document',
  // 2: field placeholders render as blank room and come back as anchors.
  // 3: a placeholder that starts or ends a line keeps its room (it was cut, and its box moved left).
  version: 3,
  filename: handler('render-document'),
};

/**
 * Where the recipient's signature box goes at the end of a body (POST /signature_requests): lays
 * the document out at least twice, so it runs here under the job time limit like any render.
 */
export const PLACE_SIGNATURE: PdfJob<SignatureBlockInput, SignatureBlock> = {
  id: 'pdf.place-signature',
  version: 1,
  filename: handler('place-signature'),
};

export interface JoinPdfsInput {
  pdfs: Bytes[];
  /** The joined file's title (the document's). */
  title?: string;
  max_pages: number;
}
export interface JoinedPdf {
  pdf: Bytes;
  page_counts: number[];
}
/** A document's parts as one PDF, in order (join-pdfs.ts). */
export const JOIN_PDFS: PdfJob<JoinPdfsInput, JoinedPdf | PdfJobRefusal> = { id: 'pdf.join', version: 1, filename: handler('join-pdfs') };

export interface FindAnchorsInput {
  pdf: Bytes;
  queries: TextAnchorQuery[];
}
/** Finds anchor texts ("(인)") in a PDF's text layer with PDFium: each occurrence's box in percent of its page. */
export const FIND_ANCHORS: PdfJob<FindAnchorsInput, TextAnchorResult[]> = { id: 'pdf.find-anchors', version: 1, filename: handler('find-anchors') };
/** The baselines of each page's text lines (anchors.ts findTextLines): where the editor snaps fields (issue 34). */
export const FIND_TEXT_LINES: PdfJob<Bytes, number[][]> = { id: 'pdf.find-text-lines', version: 1, filename: handler('find-text-lines') };

export const INSPECT_PDF: PdfJob<Bytes, PdfInspection> = { id: 'pdf.inspect', version: 1, filename: handler('inspect-pdf') };

export interface BuildFinalJobInput {
  original: Bytes;
  stamps: Array<{ page: number; x: number; y: number; width: number; height: number; image: Bytes }>;
  /** Field values drawn into the pages (text in the Korean font, checkboxes, radio buttons). */
  values?: PdfValue[];
  sign: SignJobOptions;
}

/** What a signing job needs; `evidence` goes into the information dictionary under the signature. */
export interface SignJobOptions {
  /** The file identity; absent when `key` is given (a token or remote signer: no software key exists). */
  p12?: Bytes;
  passphrase?: string;
  /** A key elsewhere (PKCS#11 token, remote signer): used instead of `p12`, see signing-key.ts. */
  key?: SigningKeySpec;
  reason: string;
  name: string;
  location: string;
  tsaUrl?: string;
  /**
   * With `tsaUrl`: B-T (the default) or B-LT / B-LTA (DSS with chain and revocation data, then a
   * document timestamp), see pades-ltv.ts.
   */
  level?: 'B-T' | 'B-LT' | 'B-LTA';
  evidence?: Record<string, string>;
  /** REVOCATION_OCSP_URLS / REVOCATION_CRL_URLS: asked after a certificate's own sources (revocation-check.ts). */
  revocation_sources?: RevocationSources;
}
/** Stamps every signature and seal, draws the field values, flattens any form, then signs the whole file (PAdES). */
export const BUILD_FINAL: PdfJob<BuildFinalJobInput, Bytes> = { id: 'pdf.build-final', version: 2, filename: handler('build-final') };

export interface ArchiveTimestampJobInput {
  pdf: Bytes;
  tsa_url: string;
  /** Re-timestamp only when the newest timestamp's certificate expires before this (ISO 8601). */
  due_before: string;
  revocation_sources?: RevocationSources;
}
export type ArchivedPdf =
  | { extended: false; reason: 'no_timestamp' | 'not_due'; expires_at: string | null }
  | { extended: true; pdf: Bytes; previous_expires_at: string; expires_at: string; timestamped_at: string };
/** The archive job's step: a new DSS round and document timestamp on a B-LTA file when due. */
export const ARCHIVE_TIMESTAMP: PdfJob<ArchiveTimestampJobInput, ArchivedPdf> = { id: 'pdf.archive-timestamp', version: 1, filename: handler('archive-timestamp') };

export interface InspectSigningP12Input {
  p12: Bytes;
  password: string;
  /** The certificate must be valid at this time (ISO 8601). */
  now: string;
}
export type InspectedSigningP12 =
  | { ok: true; certificate: SigningCertificateSummary }
  | { ok: false; code: SigningP12Problem; message: string };
/** An organization's uploaded .p12/.pfx: opened, checked, summarised (organization-certificate.ts). */
export const INSPECT_SIGNING_P12: PdfJob<InspectSigningP12Input, InspectedSigningP12> = { id: 'pdf.inspect-signing-p12', version: 1, filename: handler('inspect-signing-p12') };

/** The certificates a PDF's first signature carries, its signer's first (DER); null: none (signer-chain.handler.ts). */
export const SIGNER_CHAIN: PdfJob<Bytes, Uint8Array[] | null> = { id: 'pdf.signer-chain', version: 1, filename: handler('signer-chain') };

export interface SignDigestInput {
  key: SigningKeySpec;
  /** SHA-256, 32 bytes. */
  digest: Bytes;
}
/** Signs a digest with the key behind the signing-key port: evidence (chain heads, seals, manifests) from a token or remote signer. */
export const SIGN_DIGEST: PdfJob<SignDigestInput, Bytes> = { id: 'pdf.sign-digest', version: 1, filename: handler('sign-digest') };

/** Opens a PKCS#11 or remote signing key and signs a probe digest (the boot check). */
export const PROBE_SIGNING_KEY: PdfJob<SigningKeySpec, null> = { id: 'pdf.probe-signing-key', version: 1, filename: handler('probe-signing-key') };

export interface CountersignJobInput {
  pdf: Bytes;
  sign: SignJobOptions;
}
/** Signs a whole file once more in an incremental update (the audit version's bundle). */
export const COUNTERSIGN: PdfJob<CountersignJobInput, Bytes> = { id: 'pdf.countersign', version: 1, filename: handler('countersign') };

export interface AuditCertificateJobInput {
  /** The PDF the certificate is appended to. */
  base: Bytes;
  certificate: AuditCertificateInput;
}
export const AUDIT_CERTIFICATE: PdfJob<AuditCertificateJobInput, Bytes> = {
  id: 'pdf.audit-certificate',
  version: 1,
  filename: handler('audit-certificate'),
};

/** An image's check: decodable, within the pixel limit, so the stamper will accept it. */
export type ImageCheck = { ok: true; type: StampImageType } | { ok: false; message: string };
/**
 * Decodes a signature or seal image as the stamper will at completion (sanitizeImage): a PNG of
 * 10 megapixels takes about a second to decode and re-encode, so it is checked here, not on the
 * API's event loop.
 */
export const CHECK_IMAGE: PdfJob<Bytes, ImageCheck> = { id: 'image.check', version: 1, filename: handler('check-image') };

export interface CheckLogoInput {
  image: Bytes;
  /** The most pixels a side may have. */
  max_side: number;
}
/**
 * A logo as it will be stored and served: a PNG decoded by our strict decoder and re-encoded, or a
 * JPEG decoded whole by resvg (so a truncated or corrupt one is refused, not shown broken in every
 * e-mail). `unsupported_type`: neither PNG nor JPEG (an SVG is refused: it can carry script and
 * external references). `invalid_image`: the bytes do not decode, or it has too many pixels.
 */
export type LogoCheck =
  | { ok: true; type: StampImageType; width: number; height: number; bytes: Bytes }
  | { ok: false; reason: 'unsupported_type' | 'invalid_image'; message: string };
export const CHECK_LOGO: PdfJob<CheckLogoInput, LogoCheck> = { id: 'image.logo', version: 1, filename: handler('check-logo') };
export interface ParseTableInput {
  bytes: Bytes;
  /** utf-8 or euc-kr; absent: UTF-8 (with or without BOM), else EUC-KR. */
  encoding?: string;
  /** Data rows read at most (the job's row limit): a longer file is refused without reading the rest. */
  max_records: number;
}
export type ParsedTableResult = { ok: true; header: string[]; records: string[][] } | { ok: false; problems: TableProblem[] };
/**
 * An uploaded bulk-send CSV (UTF-8 or EUC-KR) or XLSX read into a header and records: 10 MB of CSV
 * or a workbook's unzip and XML take seconds, so they run here, not on the API's event loop.
 */
export const PARSE_TABLE: PdfJob<ParseTableInput, ParsedTableResult> = { id: 'table.parse', version: 1, filename: handler('parse-table') };

export interface RenderSvgInput {
  svg: string;
  /** Font files the SVG's text is set in (no system fonts: the same image on every machine). */
  font_files: string[];
  default_font_family: string;
}
export interface SanitizeHtmlInput {
  html: string;
}
/** A body's HTML as the PDF renderer reads it (the allow-list of sanitize-content-html.ts), for the signing page's reading view. */
export const SANITIZE_HTML: PdfJob<SanitizeHtmlInput, string> = { id: 'html.sanitize', version: 1, filename: handler('sanitize-html') };
/** Renders an SVG (a generated seal) to a PNG with resvg. */
export const RENDER_SVG: PdfJob<RenderSvgInput, Bytes> = { id: 'image.render-svg', version: 1, filename: handler('render-svg') };

export interface ZipFile {
  name: string;
  bytes: Bytes;
  /** Deflate it (text); false stores it as it is (PDFs and images are compressed inside). */
  compress: boolean;
}
export interface ZipJobInput {
  files: ZipFile[];
  /** Every entry's modification time: a fixed one keeps the ZIP a function of its content. */
  mtime: string;
}
/** A ZIP of the given files (the evidence bundle): 40 MB of PDFs took seconds to deflate on the event loop. */
export const ZIP_FILES: PdfJob<ZipJobInput, Bytes> = { id: 'zip', version: 1, filename: handler('zip') };

export interface RenderPageInput {
  pdf: Bytes;
  /** The PDF's SHA-256 (its blob address): the worker keeps it open for the next page. */
  pdf_sha256?: string;
  /** 1-based, as fields number pages. */
  page: number;
  /** Pixels; the height follows the page's shape. */
  width: number;
  /**
   * Encode the page as PNG (default true). False with `webp`: the WebP alone. At send only the WebP
   * is made (every browser the signing page targets asks for it); a PNG costs more CPU than the
   * render and the WebP together, so it is encoded when a client first asks for one.
   */
  png?: boolean;
  /** Also encode the page as lossless WebP (sharp), from the same render. */
  webp?: boolean;
}
export interface RenderedPage {
  page_count: number;
  /** Null when the document has no such page; absent when not asked for (`png: false`). */
  png?: Bytes | null;
  /** The same pixels as lossless WebP, when asked for (null when the document has no such page). */
  webp?: Bytes | null;
  width: number;
  height: number;
}
/** One page of a PDF as a PNG (and lossless WebP), rendered by PDFium (WebAssembly): the signing page's page images. */
export const RENDER_PAGE: PdfJob<RenderPageInput, RenderedPage> = { id: 'pdf.render-page', version: 2, filename: handler('render-page') };

/**
 * A PDF dropped on the public verify page (POST /v1/verify): its hash and signatures, or why it is
 * refused. Reads the bytes only; the input is never stored.
 */
export type VerifiedPdf =
  | ({ ok: true; sha256: string; byte_size: number } & PdfSignaturesReport)
  | { ok: false; reason: 'not_pdf' | 'encrypted' | 'too_complex'; message: string };
export interface VerifyPdfInput {
  pdf: Bytes;
  /** The configured trust list (VERIFY_TRUST_ANCHORS, DER): each signature's chain must reach one. Empty: "untrusted issuer". */
  trust_anchors: Bytes[];
}
// 2: the input carries the configured trust anchors, and each signature says whether it reaches one.
export const VERIFY_PDF: PdfJob<VerifyPdfInput, VerifiedPdf> = { id: 'pdf.verify', version: 2, filename: handler('verify-pdf') };

/** Loaded by every worker as it starts: the libraries and the parsed fonts, before any job. */
export const WARM_UP_FILE = handler('warm-up');

/** Every worker's entry point: runs a job's handler and measures its CPU (run-job.ts). */
export const RUN_JOB_FILE = path.join(__dirname, `run-job${EXT}`);

export const bytes = (b: Bytes): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
