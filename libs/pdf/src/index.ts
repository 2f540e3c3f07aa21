/**
 * PDF work for Dojang: rendering contracts (pdfmake + Noto Sans KR),
 * checking uploads, stamping signature images, the audit certificate, and the
 * pool every costly job runs in. Pure functions: no Nest, no storage. Keys,
 * CMS, timestamps and PAdES signatures are libs/evidence's.
 *
 * Two entries. This one is what the API's main thread uses: the pool, its job names and limits,
 * and small helpers. The rendering code itself (pdfmake, pdf-lib, PDFium, sanitize-html,
 * fflate: about 500 modules and 8 MB of JavaScript) runs only in pool threads and is exported from
 * `@dojang/pdf/rendering`, so a process that never renders on its main thread never loads it: the
 * API starts faster and holds less memory, and each end-to-end test file loads a third less.
 * Its types are re-exported here (type-only, erased at run time).
 */
export type { AnchorBox, PlaceholderBox, TextAnchorQuery, TextAnchorResult } from './anchors';
export type { RenderDocumentInput, PageNumbers } from './render-document';
export type { PdfInspection, PdfPageInfo, PageRotation } from './inspect-pdf';
export type { ActiveContentKind } from './sanitize-pdf';
export { inspectPdfIsolated, type IsolatedInspectOptions } from './isolated-inspect';
export type { PdfStamp } from './stamp-pdf';
export type { PdfValue } from './draw-values';
export type {
  AuditCertificateInput,
  AuditFieldValue,
  AuditParticipant,
  AuditTimelineEntry,
  AuditConclusion,
  AuditDelivery,
} from './audit-certificate';
export { formatKst, formatCertificateTime, DEFAULT_CERTIFICATE_ZONE, type TimeFormat } from './certificate-time';
export { contentDispositionFor } from './content-disposition';
export { sniffImageType, readImageInfo, UnsafeImageError, MAX_IMAGE_PIXELS, type StampImageType } from './image-type';
export { encodePngPixels } from './png-encode';
export { inflationProblem, MAX_INFLATED_STREAM_BYTES, MAX_INFLATED_TOTAL_BYTES } from './inflate-budget';
export { PdfPool, sharedPdfPool, acquireSharedPdfPool, closeSharedPdfPools, onPdfJob, type PdfJobListener, type PdfJobOutcome, DEFAULT_PDF_JOB_TIMEOUT_MS, DEFAULT_PDF_JOB_MAX_HEAP_MB, type PdfPoolOptions, type PdfRunOptions, type PdfJobStats } from './pool/pdf-pool';
export {
  RENDER_DOCUMENT,
  PLACE_SIGNATURE,
  INSPECT_PDF,
  BUILD_FINAL,
  ARCHIVE_TIMESTAMP,
  INSPECT_SIGNING_P12,
  SIGNER_CHAIN,
  SIGN_DIGEST,
  type SignDigestInput,
  type InspectSigningP12Input,
  type InspectedSigningP12,
  type ArchiveTimestampJobInput,
  type ArchivedPdf,
  AUDIT_CERTIFICATE,
  COUNTERSIGN,
  PROBE_SIGNING_KEY,
  CHECK_IMAGE,
  CHECK_LOGO,
  type CheckLogoInput,
  type LogoCheck,
  PARSE_TABLE,
  type ParsedTableResult,
  RENDER_SVG,
  SANITIZE_HTML,
  RENDER_PAGE,
  ZIP_FILES,
  VERIFY_PDF,
  type VerifiedPdf,
  FIND_ANCHORS,
  FIND_TEXT_LINES,
  type FindAnchorsInput,
  JOIN_PDFS,
  type JoinPdfsInput,
  type JoinedPdf,
  type RenderPageInput,
  type RenderedPage,
  type ZipFile,
  type ZipJobInput,
  type ImageCheck,
  type RenderSvgInput,
  type SanitizeHtmlInput,
  type PdfJob,
  type SignJobOptions,
  type CountersignJobInput,
  type RenderDocumentJobInput,
  type RenderedPdf,
  type BuildFinalJobInput,
  type AuditCertificateJobInput,
} from './pool/pdf-jobs';
export { PdfLimitError, isPdfLimitError, PDF_LIMIT_CODES, type PdfLimit, type PdfLimitCode } from './pool/pdf-limit.error';
export { checkDocumentBudget, countImagePixels, DOCUMENT_BUDGETS } from './content-budget';
export type { SignatureBlock, SignatureBlockInput } from './signature-placement';
export {
  forbidPdfWorkOnMainThread,
  pdfWorkRefusedOnMainThread,
  runPdfWorkOnThisThread,
  MainThreadPdfWorkError,
} from './main-thread-guard';
export { threadCpuMs, taskCpuMs, jobPhase } from './pool/thread-cpu';
