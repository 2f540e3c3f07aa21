import { webhookEndpointWants } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { PUBLIC_EVENT_DOCUMENTS, PUBLIC_SOURCE_TYPES, PublicDocumentRef, toPublicEvent, WEBHOOK_ENDPOINTS, WebhookEndpointRow } from '@dojang/projections';
import { ReadDoc } from '@dojang/read-store';
import { Clock } from '../clock';
import { Infrastructure } from '../runtime/infrastructure';
import { NOTHING_DONE, Reactor } from '../reactors/reactor-runner';
import { WEBHOOK_DELIVERIES, WEBHOOK_DELIVERIES_COLLECTION, WebhookDeliveryRow, webhookDeliveryId } from './webhook-deliveries';

/**
 * The JSON every endpoint receives for a public event: the same object GET /v1/events/{id} shows
 * (`document`: the document's metadata and external id, which the public events projection keeps).
 */
export function webhookPayload(event: StoredEvent, document?: PublicDocumentRef | null): string | null {
  const pub = toPublicEvent(event, document);
  if (!pub) return null;
  return JSON.stringify({ id: pub.id, object: pub.object, type: pub.type, created_at: pub.created_at, livemode: pub.livemode, data: pub.data });
}

/**
 * Fans every public event out into one delivery row per matching endpoint of its organization and
 * mode (a test key's endpoints see only test events, a live key's only live ones). It runs on the
 * durable subscription, so an event is never skipped; rows are created insert-if-absent under a
 * deterministic id, so a replay never doubles a delivery. Sending is the dispatcher's job.
 */
export class WebhookDeliveryReactor implements Reactor {
  readonly name = 'webhook_deliveries';
  readonly handles = PUBLIC_SOURCE_TYPES;

  constructor(
    private readonly infra: Infrastructure,
    private readonly clock: Clock,
    private readonly onCreated: () => void = () => undefined,
  ) {}

  async init(): Promise<void> {
    await this.infra.reads.ensureCollection(WEBHOOK_DELIVERIES_COLLECTION);
  }

  async react(event: StoredEvent): Promise<void | typeof NOTHING_DONE> {
    const organizationId = event.metadata.organization_id;
    if (!PUBLIC_SOURCE_TYPES.has(event.type) || !organizationId) return NOTHING_DONE;
    // Endpoints come from a read model: make sure it has seen everything up to this event, so an
    // endpoint registered just before the event is not missed.
    if (!(await this.infra.projections.waitFor(event.global_position))) {
      throw new Error(`projections have not reached position ${event.global_position} yet`);
    }
    // The endpoints first (the public event's livemode is the event's): most organizations have
    // none, and then neither the document's row nor the payload is needed. Every public event of a
    // lifecycle came here, and each read the row and built the body for nobody.
    const endpoints = (
      await this.infra.reads.find<WebhookEndpointRow>(WEBHOOK_ENDPOINTS, {
        where: { organization_id: organizationId, livemode: Boolean(event.metadata.livemode) },
      })
    )
      // Registered after the event happened (e.g. while this reactor catches up a backlog): not its event.
      .filter((endpoint) => !endpoint.deleted && endpoint.status === 'enabled' && endpoint.seq <= event.global_position);
    // Replaying the event would find the same endpoints (those registered later are left out above).
    if (endpoints.length === 0) return NOTHING_DONE;
    // The document's metadata and external id as GET /v1/events shows them: kept per document by
    // the public events projection, which has seen this event (waited for above), so no row means
    // the document has neither.
    const documentId = event.stream_id.startsWith('document-') ? event.stream_id.slice('document-'.length) : null;
    const document = documentId ? await this.infra.reads.get<ReadDoc & PublicDocumentRef>(PUBLIC_EVENT_DOCUMENTS, documentId) : null;
    const body = webhookPayload(event, document && { metadata: document.metadata, external_id: document.external_id });
    const pub = toPublicEvent(event, document);
    if (!body || !pub) return;
    const now = this.clock.now().toISOString();
    let created = 0;
    for (const endpoint of endpoints) {
      if (!webhookEndpointWants(endpoint, pub.type)) continue;
      const row: WebhookDeliveryRow = {
        id: webhookDeliveryId(endpoint.id, pub.id),
        object: 'webhook_delivery',
        endpoint_id: endpoint.id,
        organization_id: organizationId,
        livemode: pub.livemode,
        event_id: pub.id,
        event_type: pub.type,
        webhook_id: pub.id,
        body,
        status: 'pending',
        attempts: [],
        attempt_count: 0,
        next_attempt_at: now,
        lease_owner: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
        seq: event.global_position,
      };
      if (await this.infra.reads.putIfVersion(WEBHOOK_DELIVERIES, row, null)) created++;
    }
    if (created > 0) this.onCreated();
  }
}
