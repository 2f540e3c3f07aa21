export * from './bundle-format';
export { DeliveryChainVerdict, deliveryHeadProblem, verifyDeliveryChain } from './delivery-chain';
export { BundleCheck, BundleVerdict, UnreadableBundleError, verifyBundle } from './verify-bundle';
export { formatVerdict, main, EXIT } from './main';
export { readPdfSignatures, PdfSignatureReport, PdfSignaturesReport, TimestampReport } from './pdf-signatures';
export { verifyLtv, verifyTimestampToken, type LtvReport, type TimestampCheck } from './pades';
