export * from './projection';
export * from './projection-runner';
export * from './upcasters';
export * from './document.projection';
export * from './organization.projection';
export * from './public-event.mapping';
export * from './public-event.projection';
export * from './audit-trail.projection';
export * from './signing-token.projection';
export * from './webhook-endpoint.projection';
export * from './file.projection';
export * from './template.projection';
export * from './seal.projection';
export * from './issued-pdf.projection';
export * from './bulk-send.projection';
import { auditTrailProjection } from './audit-trail.projection';
import { bulkSendProjection } from './bulk-send.projection';
import { documentProjection } from './document.projection';
import { fileProjection } from './file.projection';
import { issuedPdfProjection } from './issued-pdf.projection';
import { apiKeyProjection, organizationProjection } from './organization.projection';
import { Projection } from './projection';
import { publicEventProjection } from './public-event.projection';
import { sealProjection } from './seal.projection';
import { signingTokenProjection } from './signing-token.projection';
import { templateProjection } from './template.projection';
import { webhookEndpointProjection } from './webhook-endpoint.projection';

/** Every projection the service runs; later slices register theirs here. */
export const ALL_PROJECTIONS: Projection[] = [
  documentProjection,
  organizationProjection,
  apiKeyProjection,
  publicEventProjection,
  auditTrailProjection,
  signingTokenProjection,
  webhookEndpointProjection,
  fileProjection,
  templateProjection,
  sealProjection,
  issuedPdfProjection,
  bulkSendProjection,
];
export * from './coalescing-pass';
export * from './apply-events';
export * from './projection-status';
export * from './event-actor';
