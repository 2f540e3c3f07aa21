import { DomainEvent } from '../shared/decider';

/**
 * A webhook endpoint's signing secret is needed again for every delivery, so unlike API keys it
 * cannot be kept as a hash. The event stores it encrypted (`secret_ciphertext`, AES-256-GCM under a
 * key derived from the server secret, see libs/application/src/webhooks/webhook-secret-box.ts):
 * the event log, its exports and the read models never hold a usable secret, and the plaintext is
 * shown to the integrator exactly once, in the creation response.
 */
export type WebhookEndpointCreated = DomainEvent<
  'WebhookEndpointCreated',
  {
    endpoint_id: string;
    organization_id: string;
    livemode: boolean;
    url: string;
    /** Public event types, or ['*'] for all of them. */
    events: string[];
    description: string | null;
    secret_ciphertext: string;
    created_at: string;
  }
>;
export type WebhookEndpointUpdated = DomainEvent<
  'WebhookEndpointUpdated',
  { url?: string; events?: string[]; description?: string | null; updated_at: string }
>;
export type WebhookDisableReason = 'requested' | 'gone';
export type WebhookEndpointDisabled = DomainEvent<
  'WebhookEndpointDisabled',
  {
    /** `requested` by the integrator, or `gone`: a delivery was answered with 410 Gone. */
    reason: WebhookDisableReason;
    delivery_id: string | null;
    disabled_at: string;
  }
>;
export type WebhookEndpointEnabled = DomainEvent<'WebhookEndpointEnabled', { enabled_at: string }>;
export type WebhookEndpointDeleted = DomainEvent<'WebhookEndpointDeleted', { deleted_at: string }>;
/**
 * A new signing secret. The previous one keeps signing next to it until `previous_secret_expires_at`
 * (Standard Webhooks allows several signatures in one header), so a receiver can switch without
 * dropping deliveries.
 */
export type WebhookEndpointSecretRotated = DomainEvent<
  'WebhookEndpointSecretRotated',
  { secret_ciphertext: string; previous_secret_ciphertext: string; previous_secret_expires_at: string; rotated_at: string }
>;
/** The integrator asked for a `webhook.test` delivery; its position orders that delivery in the log. */
export type WebhookEndpointTestRequested = DomainEvent<'WebhookEndpointTestRequested', { event_id: string; requested_at: string }>;

export type WebhookEndpointEvent =
  | WebhookEndpointCreated
  | WebhookEndpointUpdated
  | WebhookEndpointDisabled
  | WebhookEndpointEnabled
  | WebhookEndpointDeleted
  | WebhookEndpointSecretRotated
  | WebhookEndpointTestRequested;

export const WEBHOOK_ENDPOINT_EVENT_TYPES: readonly WebhookEndpointEvent['type'][] = [
  'WebhookEndpointCreated',
  'WebhookEndpointUpdated',
  'WebhookEndpointDisabled',
  'WebhookEndpointEnabled',
  'WebhookEndpointDeleted',
  'WebhookEndpointSecretRotated',
  'WebhookEndpointTestRequested',
];

export const WEBHOOK_ENDPOINT_STREAM_PREFIX = 'webhook_endpoint-';
export const webhookEndpointStreamId = (endpointId: string) => `${WEBHOOK_ENDPOINT_STREAM_PREFIX}${endpointId}`;
