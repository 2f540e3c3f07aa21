import { createHash } from 'crypto';

/** The hash a stream's first event chains from. */
export const GENESIS_HASH = '0'.repeat(64);

/** JSON with object keys sorted at every level, so the same event always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  // As JSON.stringify does, so a Date hashes as the string that is stored, not as {}.
  if (value && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sortKeys((value as { toJSON(): unknown }).toJSON());
  }
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export interface HashableEvent {
  event_id: string;
  stream_id: string;
  stream_revision: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/**
 * SHA-256 over the canonical JSON of the event (metadata without its own hashes) and the previous
 * hash. Position in the stream is included so that reordering events breaks the chain too.
 */
export function eventHash(event: HashableEvent, prevHash: string): string {
  const { hash: _h, prev_hash: _p, ...metadata } = event.metadata;
  const body = canonicalJson({
    event_id: event.event_id,
    stream_id: event.stream_id,
    stream_revision: event.stream_revision,
    type: event.type,
    data: event.data,
    metadata,
    prev_hash: prevHash,
  });
  return createHash('sha256').update(body).digest('hex');
}

export type ChainVerdict =
  | { intact: true; events: number; head_hash: string }
  | { intact: false; events: number; broken_at_revision: number; reason: string };

/** Walks a stream's events in order and reports the first place the chain breaks. */
export function verifyChain(events: HashableEvent[]): ChainVerdict {
  let prev = GENESIS_HASH;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e.stream_revision !== i) {
      return { intact: false, events: events.length, broken_at_revision: i, reason: `revision ${e.stream_revision} found where ${i} was expected (event missing or reordered)` };
    }
    if (e.metadata.prev_hash !== prev) {
      return { intact: false, events: events.length, broken_at_revision: i, reason: 'prev_hash does not match the hash of the previous event' };
    }
    const expected = eventHash(e, prev);
    if (e.metadata.hash !== expected) {
      return { intact: false, events: events.length, broken_at_revision: i, reason: 'hash does not match the event content (event altered)' };
    }
    prev = expected;
  }
  return { intact: true, events: events.length, head_hash: prev };
}
