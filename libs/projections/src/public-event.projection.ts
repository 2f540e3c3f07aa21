import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowLookup } from './projection';
import { PUBLIC_DOCUMENT_SOURCE_TYPES, PUBLIC_SOURCE_TYPES, PublicDocumentRef, PublicEvent, publicEventId, toPublicEvent } from './public-event.mapping';

export const PUBLIC_EVENTS = 'public_events';

/** document_id is null for a job's event (bulk_send.completed): GET /events?document_id= never lists it. */
export type PublicEventRow = ReadDoc & PublicEvent & { organization_id: string; document_id: string | null; seq: number };

/**
 * Per document: what its public events repeat (metadata, external id), set by DocumentCreated and
 * DocumentUpdated. Only documents with either have a row: none means `{}` and null.
 */
export const PUBLIC_EVENT_DOCUMENTS = 'public_event_documents';
type PublicDocumentRow = ReadDoc & PublicDocumentRef;

const documentIdOf = (event: StoredEvent) => (event.stream_id.startsWith('document-') ? event.stream_id.slice('document-'.length) : null);

export const publicEventProjection: Projection = {
  name: 'public_events',
  // 2: every document event carries the document's metadata and external_id (issue 32 item 3).
  version: 2,
  collections: [
    {
      name: PUBLIC_EVENTS,
      indexes: [
        ['organization_id', 'livemode', 'seq'],
        ['organization_id', 'livemode', 'document_id', 'seq'],
        ['organization_id', 'livemode', 'type', 'seq'],
      ],
    },
    { name: PUBLIC_EVENT_DOCUMENTS, indexes: [] },
  ],
  handles: new Set([...PUBLIC_SOURCE_TYPES, ...PUBLIC_DOCUMENT_SOURCE_TYPES]),
  keys: (event) => {
    const documentId = documentIdOf(event);
    return [
      ...(PUBLIC_SOURCE_TYPES.has(event.type) ? [{ collection: PUBLIC_EVENTS, id: publicEventId(event.event_id) }] : []),
      ...(documentId ? [{ collection: PUBLIC_EVENT_DOCUMENTS, id: documentId }] : []),
    ];
  },
  evolve(event: StoredEvent, rows: RowLookup): Write[] {
    const documentId = documentIdOf(event);
    const known = documentId ? (rows(PUBLIC_EVENT_DOCUMENTS, documentId) as PublicDocumentRow | null) : null;
    const writes: Write[] = [];
    let ref: PublicDocumentRef | null = known && { metadata: known.metadata, external_id: known.external_id };
    if (documentId && PUBLIC_DOCUMENT_SOURCE_TYPES.has(event.type)) {
      const d = event.data as { metadata?: Record<string, string>; external_id?: string };
      // DocumentUpdated carries metadata only when it changed (the whole merged map).
      if (event.type === 'DocumentCreated' || d.metadata !== undefined) {
        const next = { metadata: d.metadata ?? ref?.metadata ?? {}, external_id: event.type === 'DocumentCreated' ? (d.external_id ?? null) : (ref?.external_id ?? null) };
        // No row is the defaults ({} and null): a document without either writes nothing more.
        const empty = Object.keys(next.metadata).length === 0 && next.external_id === null;
        if (JSON.stringify(next) !== JSON.stringify(ref ?? { metadata: {}, external_id: null })) {
          writes.push(empty ? { op: 'delete', collection: PUBLIC_EVENT_DOCUMENTS, id: documentId } : { op: 'put', collection: PUBLIC_EVENT_DOCUMENTS, doc: { id: documentId, ...next } });
        }
        ref = next;
      }
    }
    const pub = PUBLIC_SOURCE_TYPES.has(event.type) ? toPublicEvent(event, ref) : null;
    if (pub) {
      const row: PublicEventRow = {
        ...pub,
        organization_id: String(event.metadata.organization_id),
        document_id: pub.data.document_id ?? null,
        seq: event.global_position,
      };
      writes.push({ op: 'put', collection: PUBLIC_EVENTS, doc: row });
    }
    return writes;
  },
};
