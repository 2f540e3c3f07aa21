import {
  WEBHOOK_ENDPOINT_EVENT_TYPES,
  WEBHOOK_ENDPOINT_STREAM_PREFIX,
  WebhookEndpointEvent,
  WebhookEndpointState,
  evolveWebhookEndpoint,
  initialWebhookEndpointState,
} from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowLookup } from './projection';

export const WEBHOOK_ENDPOINTS = 'webhook_endpoints';

/**
 * One row per endpoint, for the API (list, read) and the delivery worker (who wants an event, where
 * to send it, and the encrypted secret to sign with; the API never presents `secret_ciphertext`).
 * `seq` is the global position of the creation: it orders lists and tells the delivery reactor
 * whether an endpoint already existed when an event happened.
 */
export type WebhookEndpointRow = ReadDoc & Omit<WebhookEndpointState, 'exists'> & { seq: number };

const endpointIdOf = (event: StoredEvent) => event.stream_id.slice(WEBHOOK_ENDPOINT_STREAM_PREFIX.length);

export const webhookEndpointProjection: Projection = {
  name: 'webhook_endpoints',
  collections: [{ name: WEBHOOK_ENDPOINTS, indexes: [['organization_id', 'livemode', 'seq']] }],
  handles: new Set(WEBHOOK_ENDPOINT_EVENT_TYPES),
  keys: (event) => [{ collection: WEBHOOK_ENDPOINTS, id: endpointIdOf(event) }],
  evolve(event: StoredEvent, rows: RowLookup): Write[] {
    const id = endpointIdOf(event);
    const current = rows(WEBHOOK_ENDPOINTS, id) as WebhookEndpointRow | null;
    const before: WebhookEndpointState = current ? { ...current, exists: true } : initialWebhookEndpointState();
    const { exists: _exists, ...next } = evolveWebhookEndpoint(before, event as unknown as WebhookEndpointEvent);
    const row: WebhookEndpointRow = { ...next, id, seq: current?.seq ?? event.global_position };
    return [{ op: 'put', collection: WEBHOOK_ENDPOINTS, doc: row }];
  },
};
