/**
 * The rendering side of libs/pdf, for pool threads, tests and benchmarks: everything that loads
 * pdfmake, pdf-lib, PDFium, sanitize-html or fflate. The API's main thread imports
 * `@dojang/pdf` only (index.ts says why); the pool's handlers import these files directly.
 */
export { sanitizeContentHtml } from './sanitize-content-html';
export { FIELD_PLACEHOLDER, findTextAnchors, findTextLines, markPlaceholders } from './anchors';
export { buildDocDefinition, renderDocDefinition, renderDocumentPdf } from './render-document';
export { inspectPdf, MAX_PDF_OBJECTS } from './inspect-pdf';
export { sanitizePdf, removeActiveContent } from './sanitize-pdf';
export { stampPdf } from './stamp-pdf';
export { drawValues, flattenForm, fitText, wrapLines } from './draw-values';
export { renderAuditCertificate, buildAuditCertificateDefinition, timelineWithDeliveries } from './audit-certificate';
export { appendPdfs } from './append-pdfs';
export { joinPdfs } from './join-pdfs';
export { sanitizeImage } from './image-type';
export { zipFiles } from './zip-files';
export { SIGNATURE_BOX } from './signature-placement';
export { KOREAN_FONT_FAMILY, KOREAN_FONT_PACKAGE, KOREAN_FONT_LICENSE } from './fonts';
