import { StoredEvent } from '@dojang/event-store';
import { webhookDeliveryId } from './webhook-deliveries';
import { PUBLIC_EVENT_DOCUMENTS, WEBHOOK_ENDPOINTS } from '@dojang/projections';
import { Infrastructure } from '../runtime/infrastructure';
import { webhookPayload, WebhookDeliveryReactor } from './webhook-delivery.reactor';

const event = (type: string, data: Record<string, unknown>): StoredEvent => ({
  event_id: '0b9d5e3c-1f7a-4c2e-9a51-3f0e8d6c2b11',
  type,
  data,
  stream_id: 'document-7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  stream_revision: 3,
  global_position: 42,
  metadata: { occurred_at: '2026-03-02T09:00:00.000Z', actor: 'system', organization_id: 'org_1', livemode: true, schema_version: 1, prev_hash: 'a', hash: 'b' },
});

describe('webhook payload', () => {
  it('is the public event, serialised once with a stable key order', () => {
    const body = webhookPayload(event('DocumentExpired', { expired_at: '2026-03-03T09:00:00.000Z' }))!;
    expect(body).toBe(
      '{"id":"evt_0b9d5e3c1f7a4c2e9a513f0e8d6c2b11","object":"event","type":"document.expired","created_at":"2026-03-02T09:00:00.000Z","livemode":true,"data":{"document_id":"7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","metadata":{},"external_id":null}}',
    );
  });

  it('carries the document\'s metadata and external id (issue 32 item 3)', () => {
    const body = webhookPayload(event('DocumentExpired', { expired_at: '2026-03-03T09:00:00.000Z' }), { metadata: { 사번: 'E-0001' }, external_id: 'HR-1' })!;
    expect(JSON.parse(body).data).toEqual({ document_id: '7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', metadata: { 사번: 'E-0001' }, external_id: 'HR-1' });
  });

  it('is null for domain events that are not public', () => {
    expect(webhookPayload(event('PinIssued', { participant_id: 'p' }))).toBeNull();
    expect(webhookPayload(event('ReminderSent', { participant_ids: [] }))).toBeNull();
  });

  it('gets one delivery id per endpoint and event', () => {
    expect(webhookDeliveryId('whe_1', 'evt_1')).toMatch(/^del_[0-9a-f]{24}$/);
    expect(webhookDeliveryId('whe_1', 'evt_1')).toBe(webhookDeliveryId('whe_1', 'evt_1'));
    expect(webhookDeliveryId('whe_1', 'evt_1')).not.toBe(webhookDeliveryId('whe_2', 'evt_1'));
  });
});

describe('WebhookDeliveryReactor', () => {
  /** A read store that answers the endpoint query with `endpoints` and records every read and write. */
  function reactorWith(endpoints: Array<Record<string, unknown>>) {
    const reads: string[] = [];
    const written: Array<Record<string, unknown>> = [];
    const infra = {
      projections: { waitFor: async () => true },
      reads: {
        find: async (collection: string) => {
          reads.push(`find ${collection}`);
          return collection === WEBHOOK_ENDPOINTS ? endpoints : [];
        },
        get: async (collection: string) => {
          reads.push(`get ${collection}`);
          return collection === PUBLIC_EVENT_DOCUMENTS ? { id: 'd', metadata: { 사번: 'E-0001' }, external_id: 'HR-1' } : null;
        },
        putIfVersion: async (_collection: string, row: Record<string, unknown>) => {
          written.push(row);
          return true;
        },
      },
    } as unknown as Infrastructure;
    const reactor = new WebhookDeliveryReactor(infra, { now: () => new Date('2026-03-02T09:00:01.000Z') });
    return { reactor, reads, written };
  }
  const endpoint = (over: Record<string, unknown>) => ({ id: 'whe_1', organization_id: 'org_1', livemode: true, status: 'enabled', deleted: false, seq: 10, events: ['*'], ...over });

  it('reads neither the document nor builds a body when no enabled endpoint of the organization could get the event', async () => {
    for (const endpoints of [[], [endpoint({ status: 'disabled' })], [endpoint({ deleted: true })], [endpoint({ seq: 43 })]]) {
      const { reactor, reads, written } = reactorWith(endpoints);
      await reactor.react(event('DocumentExpired', { expired_at: '2026-03-03T09:00:00.000Z' }));
      expect(reads).toEqual([`find ${WEBHOOK_ENDPOINTS}`]);
      expect(written).toEqual([]);
    }
  });

  it('delivers to an enabled endpoint the public event with the document\'s metadata, registered before the event', async () => {
    const { reactor, written } = reactorWith([endpoint({}), endpoint({ id: 'whe_2', seq: 43 })]);
    await reactor.react(event('DocumentExpired', { expired_at: '2026-03-03T09:00:00.000Z' }));
    expect(written.map((r) => r.endpoint_id)).toEqual(['whe_1']);
    expect(JSON.parse(String(written[0].body)).data).toEqual({ document_id: '7f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b', metadata: { 사번: 'E-0001' }, external_id: 'HR-1' });
  });
});
