import { StoredEvent } from '@dojang/event-store';
import { FieldValueEntry } from '@dojang/domain';

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
  participant_id?: string;
  expires_at?: string | null;
  signed_at?: string;
  reason?: string;
  completed_at?: string;
  /** participant.signed: the participant's field values (evidence recorded with the signature). */
  values?: PublicFieldValue[];
  /** document.completed: every participant's values. */
  form_data?: Array<PublicFieldValue & { participant_id: string }>;
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

export function toPublicEvent(event: StoredEvent): PublicEvent | null {
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
  const data: PublicEventData = { document_id };
  if (typeof d.participant_id === 'string') data.participant_id = d.participant_id;
  if (event.type === 'DocumentSent') data.expires_at = (d.expires_at as string | null | undefined) ?? null;
  if (event.type === 'ParticipantSigned') data.signed_at = d.signed_at as string;
  if (event.type === 'ParticipantSigned' && Array.isArray(d.values)) data.values = d.values as PublicFieldValue[];
  if (event.type === 'DocumentCompleted' && Array.isArray(d.form_data)) data.form_data = d.form_data as PublicEventData['form_data'];
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
