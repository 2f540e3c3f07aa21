import { eventHash, GENESIS_HASH, HashableEvent, verifyChain } from '@dojang/event-store/hash-chain';
import { DeliveryHead, deliveryStreamOf } from './bundle-format';

export type DeliveryChainVerdict =
  | { intact: true; events: number; head_hash: string | null }
  | { intact: false; events: number; broken_at: number; reason: string };

/** Why an event is not one of this document's deliveries, or null. */
function foreignProblem(documentId: string, e: HashableEvent): string | null {
  const stream = deliveryStreamOf(documentId);
  if (e.stream_id !== stream) return `the event belongs to stream ${e.stream_id}, not ${stream}`;
  if (e.type !== 'MessageDelivered' && e.type !== 'MessageDeliveryFailed') return `a ${e.type} event in a delivery stream`;
  const about = (e.data as { document_id?: unknown } | null)?.document_id;
  if (about !== documentId) return `the delivery is about document ${String(about)}, not ${documentId}`;
  return null;
}

/**
 * A document's delivery stream (`delivery-<document_id>`), checked with nothing but its events:
 * every event is a `MessageDelivered` (or a `MessageDeliveryFailed`: a KakaoTalk attempt replaced by SMS) of that stream about that document, revisions run 0..n-1,
 * each `prev_hash` is the previous `hash` and each `hash` recomputes from the event. The one walk
 * behind the offline verifier and `cli verify`; the first problem by position is reported.
 */
export function verifyDeliveryChain(documentId: string, events: HashableEvent[]): DeliveryChainVerdict {
  const chain = verifyChain(events);
  const foreignAt = events.findIndex((e) => foreignProblem(documentId, e) !== null);
  if (foreignAt >= 0 && (chain.intact || foreignAt <= chain.broken_at_revision)) {
    return { intact: false, events: events.length, broken_at: foreignAt, reason: foreignProblem(documentId, events[foreignAt]) as string };
  }
  if (!chain.intact) return { intact: false, events: events.length, broken_at: chain.broken_at_revision, reason: chain.reason };
  return { intact: true, events: events.length, head_hash: events.length ? chain.head_hash : null };
}

/**
 * Whether `events` are the deliveries a sealed head (the audit certificate's `DojangDeliveryHead`)
 * names: the same document and stream, as many events, and the events hash, recomputed from their
 * content, to the sealed head. A log re-hashed after an edit, or with a delivery dropped or added,
 * fails here even when its own links are consistent. Null when they match.
 */
export function deliveryHeadProblem(head: DeliveryHead, documentId: string, events: HashableEvent[]): string | null {
  if (head.document_id !== documentId || head.stream_id !== deliveryStreamOf(documentId)) {
    return `the sealed delivery head is for ${head.stream_id} (document ${head.document_id}), not ${deliveryStreamOf(documentId)}`;
  }
  if (head.event_count !== events.length) return `the sealed delivery head counts ${head.event_count} deliveries, the log holds ${events.length}`;
  let prev = GENESIS_HASH;
  for (const e of events) prev = eventHash(e, prev);
  const recomputed = events.length ? prev : null;
  if (recomputed !== head.head_hash) {
    return `the deliveries hash to ${recomputed ?? 'nothing'}, not the sealed head ${head.head_hash} (a delivery was changed and the chain re-hashed)`;
  }
  return null;
}
