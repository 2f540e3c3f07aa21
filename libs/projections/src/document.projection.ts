import { DOCUMENT_EVENT_TYPES, DocumentEvent, DocumentState, evolveDocument, initialDocumentState } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowLookup } from './projection';

export const DOCUMENTS = 'documents';

/** The document row: the decider's state (minus secrets) plus what lists filter and sort on. */
export type DocumentRow = ReadDoc & DocumentState & { updated_at: string; sort_key: string };

export const documentIdOf = (event: StoredEvent) => event.stream_id.slice('document-'.length);

const NOTHING = Object.freeze({ ...initialDocumentState(), sort_key: '' }) as unknown as DocumentRow;

/**
 * Document list and detail. Reuses the domain's own evolve, so the read model can never disagree
 * with what the decider believes; PIN hashes are blanked because reads never need them.
 */
export const documentProjection: Projection = {
  name: 'documents',
  collections: [
    {
      name: DOCUMENTS,
      indexes: [
        ['organization_id', 'livemode', 'trashed', 'sort_key'],
        ['organization_id', 'livemode', 'trashed', 'status', 'sort_key'],
      ],
    },
  ],
  handles: new Set(DOCUMENT_EVENT_TYPES),
  keys: (event) => [{ collection: DOCUMENTS, id: documentIdOf(event) }],
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
    return [{ op: 'put', collection: DOCUMENTS, doc: row }];
  },
};
