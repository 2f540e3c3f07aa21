import { DocumentEvent, DocumentState, MessageDelivered, MessageDeliveryFailed, deliveryStreamId, documentStreamId, evolveDocument, initialDocumentState } from '@dojang/domain';
import { EventStore, StoredEvent, verifyChain } from '@dojang/event-store';
import { actorName, actorsOf, upcast } from '@dojang/projections';
import { maskEventData } from './history-masking';

/** One stored event as an auditor sees it over the API. */
export interface HistoryEntry {
  object: 'history_event';
  id: string;
  revision: number;
  type: string;
  occurred_at: string;
  actor: string;
  data: unknown;
  prev_hash: string;
  hash: string;
}

/** The verification result of a stream's stored hash chain. */
export interface ChainSummary {
  head_hash: string | null;
  event_count: number;
  verified: boolean;
  broken_at?: number;
  reason?: string;
}

/**
 * An ISO 8601 instant: a date (midnight UTC) or a date-time with `Z` or an offset. A date-time
 * without an offset is refused: it would mean the server's local time.
 */
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** Milliseconds since the epoch, or null when `raw` is not such an instant. */
export function parseInstant(raw: unknown): number | null {
  if (typeof raw !== 'string' || !INSTANT.test(raw)) return null;
  const t = Date.parse(raw);
  // Date.parse rolls 2026-02-30 over into March; a date that is not on the calendar is refused.
  const [y, m, d] = raw.slice(0, 10).split('-').map(Number);
  if (Number.isNaN(t) || m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) return null;
  return t;
}

/** The stored chain checked by the same walk as `cli verify`, on the raw (not upcast) events. */
export function summarizeChain(raw: StoredEvent[]): ChainSummary {
  const verdict = verifyChain(raw);
  if (verdict.intact) return { head_hash: raw.length ? verdict.head_hash : null, event_count: raw.length, verified: true };
  return {
    head_hash: raw.length ? raw[raw.length - 1].metadata.hash : null,
    event_count: raw.length,
    verified: false,
    broken_at: verdict.broken_at_revision,
    reason: verdict.reason,
  };
}

/** Upcast at the one boundary, then masked: never a PIN or token hash, never an unmasked contact. */
export function toHistoryEntry(stored: StoredEvent, actor: string = actorName(stored.metadata.actor, () => undefined)): HistoryEntry {
  const e = upcast(stored);
  return {
    object: 'history_event',
    id: e.event_id,
    revision: e.stream_revision,
    type: e.type,
    occurred_at: String(e.metadata.occurred_at),
    // As /audit and the certificate name it (actorsOf: a participant by name, a key by its id).
    actor,
    data: maskEventData(e.data),
    prev_hash: stored.metadata.prev_hash,
    hash: stored.metadata.hash,
  };
}

/**
 * The events that had happened by `asOf`: the longest prefix of the stream whose events occurred
 * by then. A prefix, not a filter, so a clock that stepped back between two writers can never make
 * the fold skip an event in the middle.
 */
export function eventsUpTo(events: StoredEvent[], asOf: number | null): StoredEvent[] {
  if (asOf === null) return events;
  const after = events.findIndex((e) => !(Date.parse(String(e.metadata.occurred_at)) <= asOf));
  return after === -1 ? events : events.slice(0, after);
}

/** The document's state folded by the domain's own evolve from the events up to `asOf` (all when null). */
export function foldDocument(events: StoredEvent[], asOf: number | null): { state: DocumentState; last: StoredEvent | null } {
  let state = initialDocumentState();
  let last: StoredEvent | null = null;
  for (const e of eventsUpTo(events, asOf)) {
    state = evolveDocument(state, upcast(e) as unknown as DocumentEvent);
    last = e;
  }
  return { state, last };
}

/** The facts of a delivery stream as read (oldest first), each with the hash that chains it. */
export type DeliveryFactView = MessageDelivered['data'] & {
  hash: string;
  /** `not_delivered`: a KakaoTalk attempt that failed (MessageDeliveryFailed; `delivered_at` is when it failed). */
  result: 'delivered' | 'not_delivered';
  reason?: string;
};

export function deliveryFacts(stored: StoredEvent[]): DeliveryFactView[] {
  return stored
    .filter((e) => e.type === 'MessageDelivered' || e.type === 'MessageDeliveryFailed')
    .map((e) => {
      if (e.type === 'MessageDelivered') return { ...(upcast(e).data as MessageDelivered['data']), hash: e.metadata.hash, result: 'delivered' as const };
      const { failed_at, provider_message_id, provider_status, reason, ...rest } = upcast(e).data as MessageDeliveryFailed['data'];
      return {
        ...rest,
        provider_message_id: provider_message_id ?? '',
        ...(provider_status ? { provider_status } : {}),
        delivered_at: failed_at,
        hash: e.metadata.hash,
        result: 'not_delivered' as const,
        reason,
      };
    });
}

export interface HistoryPage {
  entries: HistoryEntry[];
  has_more: boolean;
  chain: ChainSummary;
  /** The document as it stood at `as_of` (only when asked for). */
  state_as_of?: { state: DocumentState; updated_at: string } | null;
  deliveries?: { entries: HistoryEntry[]; chain: ChainSummary };
}

export interface HistoryQuery {
  limit: number;
  /** Revision cursor: entries after this revision. */
  starting_after?: number;
  /** Epoch ms: only events that occurred by then, and the state folded from them. */
  as_of?: number | null;
  include_deliveries?: boolean;
}

/**
 * A document's history for auditors: the stored events of `document-<id>` in order, masked, with
 * the chain's verification; optionally the state at an instant and the delivery evidence. The one
 * query behind `GET /v1/documents/{id}/history`, `?as_of=` and `cli stream show --as-of`.
 * Ownership is the caller's business (the API checks it before calling).
 */
export class DocumentHistory {
  constructor(private readonly events: EventStore) {}

  async read(documentId: string, query: HistoryQuery): Promise<HistoryPage> {
    const raw = await this.events.readStream(documentStreamId(documentId));
    const asOf = query.as_of ?? null;
    const visible = eventsUpTo(raw, asOf).filter((e) => query.starting_after === undefined || e.stream_revision > query.starting_after);
    const actors = new Map(actorsOf(raw).map((actor, i) => [raw[i].event_id, actor]));
    const page: HistoryPage = {
      entries: visible.slice(0, query.limit).map((e) => toHistoryEntry(e, actors.get(e.event_id))),
      has_more: visible.length > query.limit,
      chain: summarizeChain(raw),
    };
    if (asOf !== null) page.state_as_of = await this.stateAt(documentId, asOf, raw);
    if (query.include_deliveries) {
      const delivered = await this.events.readStream(deliveryStreamId(documentId));
      page.deliveries = { entries: eventsUpTo(delivered, asOf).map((e) => toHistoryEntry(e)), chain: summarizeChain(delivered) };
    }
    return page;
  }

  /**
   * The messages sent about a document, oldest first, each with the hash that chains it: what a
   * presentation such as the audit certificate lists. Recipients are stored masked already.
   */
  async deliveries(documentId: string): Promise<DeliveryFactView[]> {
    return deliveryFacts(await this.events.readStream(deliveryStreamId(documentId)));
  }

  /** The document at `asOf`, or null when it did not exist yet. */
  async stateAt(documentId: string, asOf: number, raw?: StoredEvent[]): Promise<{ state: DocumentState; updated_at: string } | null> {
    const events = raw ?? (await this.events.readStream(documentStreamId(documentId)));
    const { state, last } = foldDocument(events, asOf);
    if (!state.exists || !last) return null;
    return { state, updated_at: String(last.metadata.occurred_at) };
  }
}
