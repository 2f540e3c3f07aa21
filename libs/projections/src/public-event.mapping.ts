import { StoredEvent } from '@dojang/event-store';
import { FieldValueEntry, FormDataEntry, withFormDataDefaults } from '@dojang/domain';

/** Public event types: what GET /events shows and webhooks deliver. */
export const PUBLIC_EVENT_TYPES = [
  'document.sent',
  'document.viewed',
  'participant.signed',
  'participant.declined',
  'document.completed',
  'document.declined',
  'document.canceled',
  'document.expired',
  'bulk_send.completed',
] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

const MAPPING: Record<string, PublicEventType> = {
  DocumentSent: 'document.sent',
  SigningLinkOpened: 'document.viewed',
  ParticipantSigned: 'participant.signed',
  ParticipantDeclined: 'participant.declined',
  DocumentCompleted: 'document.completed',
  DocumentDeclined: 'document.declined',
  DocumentCanceled: 'document.canceled',
  DocumentExpired: 'document.expired',
  BulkSendCompleted: 'bulk_send.completed',
};

/** What an event's data can carry; which fields each type has is in the OpenAPI document's webhooks. */
export interface PublicEventData {
  /** Every document.* and participant.* event; absent from bulk_send.completed (a job, not a document). */
  document_id?: string;
  /** Every document.* and participant.* event: the document's metadata ({} when none), to map it back. */
  metadata?: Record<string, string>;
  /** Every document.* and participant.* event: the integrator's id for the document, or null. */
  external_id?: string | null;
  participant_id?: string;
  expires_at?: string | null;
  signed_at?: string;
  reason?: string;
  completed_at?: string;
  /** participant.signed: the participant's field values (evidence recorded with the signature). */
  values?: PublicFieldValue[];
  /** document.completed: every participant's values ([] when none), each with its template field key, group, option and choice. */
  form_data?: Array<PublicFieldValue & Omit<FormDataEntry, keyof FieldValueEntry>>;
  /** bulk_send.completed: the job (bulk_…), its template, its rows per state and when its last row finished. */
  bulk_send_id?: string;
  template_id?: string | null;
  template_version?: number | null;
  row_count?: number | null;
  counts?: { pending: number; sent: number; failed: number; canceled: number };
  finished_at?: string;
}

/** A recorded value as events publish it: signature and seal record images, never values. */
export type PublicFieldValue = Omit<FieldValueEntry, 'type'> & { type: Exclude<FieldValueEntry['type'], 'signature' | 'seal'> };

export interface PublicEvent {
  id: string;
  object: 'event';
  type: PublicEventType;
  created_at: string;
  livemode: boolean;
  data: PublicEventData;
}

/** evt_ ids derive from the domain event id, so every replay and every webhook retry agree. */
export const publicEventId = (eventId: string) => `evt_${eventId.replace(/-/g, '')}`;

/** A job's completion: the job's id comes from its stream, everything else from the one event. */
function bulkSendCompletedData(event: StoredEvent): PublicEventData {
  const d = event.data as { sent: number; failed: number; completed_at: string; template_id?: string; template_version?: number; row_count?: number };
  return {
    bulk_send_id: event.stream_id.slice('bulk-send-'.length),
    // Completions recorded before they carried the template read null rather than a guess.
    template_id: d.template_id ?? null,
    template_version: d.template_version ?? null,
    row_count: d.row_count ?? null,
    // Completed means no row is pending; a canceled job never completes (it ends as canceled).
    counts: { pending: 0, sent: d.sent, failed: d.failed, canceled: 0 },
    finished_at: d.completed_at,
  };
}

/** What every public event about a document repeats of it (the public events projection keeps it per document). */
export interface PublicDocumentRef {
  metadata: Record<string, string>;
  external_id: string | null;
}

/**
 * The public event for a stored one. `document`: the document's metadata and external id as they
 * stood at the event (absent: `{}` and null, for a document the caller knows nothing of).
 */
export function toPublicEvent(event: StoredEvent, document?: PublicDocumentRef | null): PublicEvent | null {
  const type = MAPPING[event.type];
  if (!type) return null;
  if (type === 'bulk_send.completed') {
    return {
      id: publicEventId(event.event_id),
      object: 'event',
      type,
      created_at: String(event.metadata.occurred_at),
      livemode: Boolean(event.metadata.livemode),
      data: bulkSendCompletedData(event),
    };
  }
  const document_id = event.stream_id.slice('document-'.length);
  const d = event.data as Record<string, unknown>;
  const data: PublicEventData = { document_id, metadata: document?.metadata ?? {}, external_id: document?.external_id ?? null };
  if (typeof d.participant_id === 'string') data.participant_id = d.participant_id;
  if (event.type === 'DocumentSent') data.expires_at = (d.expires_at as string | null | undefined) ?? null;
  if (event.type === 'ParticipantSigned') data.signed_at = d.signed_at as string;
  if (event.type === 'ParticipantSigned' && Array.isArray(d.values)) data.values = d.values as PublicFieldValue[];
  // Always there: an empty list when no participant had a value field; older entries with defaults.
  if (event.type === 'DocumentCompleted') data.form_data = (Array.isArray(d.form_data) ? d.form_data : []).map(withFormDataDefaults) as PublicEventData['form_data'];
  if (event.type === 'ParticipantDeclined') data.reason = d.reason as string;
  if (event.type === 'DocumentCanceled' && typeof d.reason === 'string') data.reason = d.reason;
  if (event.type === 'DocumentCompleted') data.completed_at = d.completed_at as string;
  return {
    id: publicEventId(event.event_id),
    object: 'event',
    type,
    created_at: String(event.metadata.occurred_at),
    livemode: Boolean(event.metadata.livemode),
    data,
  };
}

export const PUBLIC_SOURCE_TYPES = new Set(Object.keys(MAPPING));

/** Events that set what public events repeat of their document (its metadata, its external id). */
export const PUBLIC_DOCUMENT_SOURCE_TYPES = new Set(['DocumentCreated', 'DocumentUpdated']);
