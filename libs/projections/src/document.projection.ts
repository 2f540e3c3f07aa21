import { DOCUMENT_EVENT_TYPES, DocumentEvent, DocumentState, MAX_METADATA_KEYS, evolveDocument, initialDocumentState } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowKey, RowLookup } from './projection';

export const DOCUMENTS = 'documents';

/** The document row: the decider's state (minus secrets) plus what lists filter and sort on. */
export type DocumentRow = ReadDoc & DocumentState & { updated_at: string; sort_key: string };

export const documentIdOf = (event: StoredEvent) => event.stream_id.slice('document-'.length);

/**
 * One row per metadata key of a document: GET /v1/documents?metadata[key]=value pages through
 * them (`pair`, newest first by the document's sort_key) instead of scanning documents. Written
 * when the metadata is (DocumentCreated, DocumentUpdated), in slots named by the key's place (at
 * most MAX_METADATA_KEYS), so keys() names every row an event can write without reading state.
 * What else the list filters on (trashed, status, external_id) is read from the document.
 */
export const DOCUMENT_METADATA = 'document_metadata';

export interface DocumentMetadataRow extends ReadDoc {
  document_id: string;
  organization_id: string;
  livemode: boolean;
  /** JSON of [key, value]: one string to compare, unambiguous whatever the key holds. */
  pair: string;
  sort_key: string;
}

export const metadataPair = (key: string, value: string) => JSON.stringify([key, value]);
const slotId = (documentId: string, slot: number) => `${documentId}|${slot}`;
const SLOTS = Array.from({ length: MAX_METADATA_KEYS }, (_, i) => i);

/** The metadata rows an event writes: every slot for a metadata change (a removed key's slot is deleted). */
function metadataKeys(event: StoredEvent): RowKey[] {
  const d = event.data as { metadata?: Record<string, string> };
  if (event.type !== 'DocumentCreated' && !(event.type === 'DocumentUpdated' && d.metadata !== undefined)) return [];
  return SLOTS.map((i) => ({ collection: DOCUMENT_METADATA, id: slotId(documentIdOf(event), i) }));
}

function metadataWrites(event: StoredEvent, before: DocumentRow | null, after: DocumentRow): Write[] {
  if (metadataKeys(event).length === 0) return [];
  const entries = Object.entries(after.metadata);
  const writes: Write[] = entries.map(([key, value], slot) => ({
    op: 'put',
    collection: DOCUMENT_METADATA,
    doc: { id: slotId(after.id, slot), document_id: after.id, organization_id: after.organization_id, livemode: after.livemode, pair: metadataPair(key, value), sort_key: after.sort_key } satisfies DocumentMetadataRow,
  }));
  for (let slot = entries.length; slot < Object.keys(before?.metadata ?? {}).length; slot++) writes.push({ op: 'delete', collection: DOCUMENT_METADATA, id: slotId(after.id, slot) });
  return writes;
}

const NOTHING = Object.freeze({ ...initialDocumentState(), sort_key: '' }) as unknown as DocumentRow;

/**
 * Document list and detail. Reuses the domain's own evolve, so the read model can never disagree
 * with what the decider believes; PIN hashes are blanked because reads never need them.
 */
export const documentProjection: Projection = {
  name: 'documents',
  // 2: external_id on the row and the metadata rows (issue 32 item 3), filled by a replay.
  version: 2,
  collections: [
    {
      name: DOCUMENTS,
      indexes: [
        ['organization_id', 'livemode', 'trashed', 'sort_key'],
        ['organization_id', 'livemode', 'trashed', 'status', 'sort_key'],
        ['organization_id', 'livemode', 'trashed', 'external_id', 'sort_key'],
      ],
    },
    { name: DOCUMENT_METADATA, indexes: [['organization_id', 'livemode', 'pair', 'sort_key']] },
  ],
  handles: new Set(DOCUMENT_EVENT_TYPES),
  keys: (event) => [{ collection: DOCUMENTS, id: documentIdOf(event) }, ...metadataKeys(event)],
  evolve(event: StoredEvent, rows: RowLookup): Write[] {
    const id = documentIdOf(event);
    // DocumentCreated builds its state from nothing: no blank row to make for it.
    const current =
      (rows(DOCUMENTS, id) as DocumentRow | null) ?? (event.type === 'DocumentCreated' ? NOTHING : ({ ...initialDocumentState(), id, sort_key: '' } as unknown as DocumentRow));
    const next = evolveDocument(current, event as unknown as DocumentEvent);
    const row: DocumentRow = {
      ...next,
      id,
      // A participant without a PIN hash is kept as it is (rows share what did not change).
      participants: next.participants.map((p) => (p.pin?.pin_hash ? { ...p, pin: { ...p.pin, pin_hash: '' } } : p)),
      updated_at: String(event.metadata.occurred_at),
      // Newest-first paging needs a total order that matches creation order even within one
      // millisecond: creation time, then the log position of DocumentCreated (fixed once).
      sort_key:
        event.type === 'DocumentCreated' || !current.sort_key
          ? `${next.created_at}|${String(event.global_position).padStart(16, '0')}|${id}`
          : current.sort_key,
    };
    return [{ op: 'put', collection: DOCUMENTS, doc: row }, ...metadataWrites(event, rows(DOCUMENTS, id) as DocumentRow | null, row)];
  },
};
