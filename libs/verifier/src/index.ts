export * from './bundle-format';
export { DeliveryChainVerdict, deliveryHeadProblem, verifyDeliveryChain } from './delivery-chain';
export { BundleCheck, BundleVerdict, UnreadableBundleError, verifyBundle } from './verify-bundle';
export { formatVerdict, main, EXIT } from './main';
export { documentFacts, DocumentFacts, factDifferences, describeDifferences, implausibleFacts, SEAL_EVENT, TERMINAL_EVENTS } from './document-facts';
export { DocumentSealProof, SealStatement, sealStatementBytes, sealSignatureProblem, checkTimestampToken } from './document-seal';
export { AUDIT_FACTS_PDF_KEY, AuditFactsEntry, CrossCheck, verifyCertificateFacts, verifyDeliveriesAgree, verifyPlausible, verifySeal } from './cross-checks';
export { MANIFEST_SIGNATURE_FILE, manifestSignatureProblem, signManifest } from './manifest-signature';
