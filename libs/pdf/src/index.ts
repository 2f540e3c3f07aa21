/**
 * PDF work for Dojang: rendering contracts (pdfmake + Noto Sans KR),
 * checking uploads, stamping signature images, the audit certificate, and the
 * pool every costly job runs in. Pure functions: no Nest, no storage. Keys,
 * CMS, timestamps and PAdES signatures are libs/evidence's.
 */
export { sanitizeContentHtml } from './sanitize-content-html';
export { FIELD_PLACEHOLDER, findTextAnchors, findTextLines, markPlaceholders, type AnchorBox, type PlaceholderBox, type TextAnchorQuery, type TextAnchorResult } from './anchors';
export {
  buildDocDefinition,
  renderDocDefinition,
  renderDocumentPdf,
  type RenderDocumentInput,
  type PageNumbers,
} from './render-document';
export { inspectPdf, MAX_PDF_OBJECTS, type PdfInspection, type PdfPageInfo, type PageRotation } from './inspect-pdf';
export { sanitizePdf, removeActiveContent, type ActiveContentKind } from './sanitize-pdf';
export { inspectPdfIsolated, type IsolatedInspectOptions } from './isolated-inspect';
export { stampPdf, type PdfStamp } from './stamp-pdf';
export { drawValues, flattenForm, fitText, wrapLines, type PdfValue } from './draw-values';
export {
  renderAuditCertificate,
  buildAuditCertificateDefinition,
  timelineWithDeliveries,
  formatKst,
  formatCertificateTime,
  DEFAULT_CERTIFICATE_ZONE,
  type TimeFormat,
  type AuditCertificateInput,
  type AuditFieldValue,
  type AuditDelivery,
  type AuditParticipant,
  type AuditTimelineEntry,
  type AuditConclusion,
} from './audit-certificate';
export { appendPdfs } from './append-pdfs';
export { joinPdfs } from './join-pdfs';
export { contentDispositionFor } from './content-disposition';
export { decodeTable, parseCsvTable, parseXlsxTable, parseTable, isXlsxBytes, TableInputError, type TableProblem, type ParsedTable } from './parse-table';
export { sanitizeImage, sniffImageType, readImageInfo, UnsafeImageError, MAX_IMAGE_PIXELS, type StampImageType } from './image-type';
export { KOREAN_FONT_FAMILY, KOREAN_FONT_PACKAGE, KOREAN_FONT_LICENSE } from './fonts';
export { encodePngPixels } from './png-encode';
export { zipFiles } from './zip-files';
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
export { SIGNATURE_BOX, type SignatureBlock, type SignatureBlockInput } from './signature-placement';
export {
  forbidPdfWorkOnMainThread,
  pdfWorkRefusedOnMainThread,
  runPdfWorkOnThisThread,
  MainThreadPdfWorkError,
} from './main-thread-guard';
export { threadCpuMs, taskCpuMs, jobPhase } from './pool/thread-cpu';
