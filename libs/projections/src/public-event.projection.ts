import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection } from './projection';
import { PUBLIC_SOURCE_TYPES, PublicEvent, publicEventId, toPublicEvent } from './public-event.mapping';

export const PUBLIC_EVENTS = 'public_events';

/** document_id is null for a job's event (bulk_send.completed): GET /events?document_id= never lists it. */
export type PublicEventRow = ReadDoc & PublicEvent & { organization_id: string; document_id: string | null; seq: number };

export const publicEventProjection: Projection = {
  name: 'public_events',
  collections: [
    {
      name: PUBLIC_EVENTS,
      indexes: [
        ['organization_id', 'livemode', 'seq'],
        ['organization_id', 'livemode', 'document_id', 'seq'],
        ['organization_id', 'livemode', 'type', 'seq'],
      ],
    },
  ],
  handles: PUBLIC_SOURCE_TYPES,
  keys: (event) => [{ collection: PUBLIC_EVENTS, id: publicEventId(event.event_id) }],
  evolve(event: StoredEvent): Write[] {
    const pub = toPublicEvent(event);
    if (!pub) return [];
    const row: PublicEventRow = {
      ...pub,
      organization_id: String(event.metadata.organization_id),
      document_id: pub.data.document_id ?? null,
      seq: event.global_position,
    };
    return [{ op: 'put', collection: PUBLIC_EVENTS, doc: row }];
  },
};
