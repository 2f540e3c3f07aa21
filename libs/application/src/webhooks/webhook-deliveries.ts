import { createHash } from 'crypto';
import type { PublicEventType } from '@dojang/projections';
import { CollectionSpec, ReadDoc } from '@dojang/read-store';

export const WEBHOOK_DELIVERIES = 'webhook_deliveries';

export const WEBHOOK_DELIVERIES_COLLECTION: CollectionSpec = {
  name: WEBHOOK_DELIVERIES,
  indexes: [
    ['status', 'next_attempt_at'],
    ['endpoint_id', 'seq'],
    ['endpoint_id', 'status', 'seq'],
  ],
};

export type WebhookDeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed' | 'canceled';

export interface WebhookAttempt {
  attempt: number;
  started_at: string;
  finished_at: string | null;
  /** HTTP status of the answer, or null when none came (refused, timeout, interrupted). */
  status_code: number | null;
  /** deliverWebhook's error codes, plus `interrupted` when the worker died mid-attempt. */
  error_code: string | null;
  error: string | null;
  duration_ms: number | null;
  response_body: string | null;
}

/**
 * One event for one endpoint. The body is serialised once, when the row is created, and never
 * again: every retry, and every worker after a restart, sends these exact bytes under the same
 * webhook-id (the event id), so a receiver may deduplicate on webhook-id safely. Rows change only
 * through `putIfVersion`, which is what makes a claim exclusive among workers.
 */
export interface WebhookDeliveryRow extends ReadDoc {
  object: 'webhook_delivery';
  /** Maintained by ReadStore.putIfVersion. */
  _version?: number;
  endpoint_id: string;
  organization_id: string;
  livemode: boolean;
  event_id: string;
  /** A public event type, or `webhook.test` for a delivery made by the endpoint's test route. */
  event_type: PublicEventType | 'webhook.test';
  /** = event_id; kept apart so the header's source is explicit. */
  webhook_id: string;
  body: string;
  status: WebhookDeliveryStatus;
  attempts: WebhookAttempt[];
  attempt_count: number;
  /** When a worker may pick it up next: the retry time, or the end of a running attempt's lease. */
  next_attempt_at: string | null;
  lease_owner: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** Why a delivery was dropped unsent: its endpoint was disabled or deleted in the meantime. */
  canceled_reason?: 'endpoint_disabled' | 'endpoint_deleted';
  /** Global position of the source event: orders the delivery log. */
  seq: number;
}

/** Deterministic, so a reactor replay after a crash finds the row instead of creating another. */
export const webhookDeliveryId = (endpointId: string, eventId: string) =>
  `del_${createHash('sha256').update(`${endpointId}:${eventId}`).digest('hex').slice(0, 24)}`;
