import { createHash, randomUUID } from 'crypto';
import { derivedUuid } from '@dojang/application';

/**
 * What the idempotency middleware hands a route that runs under a claimed Idempotency-Key: a seed
 * from which every id the request makes up is derived, and a way to say that the answer is a
 * replay of what an earlier attempt with the same key already wrote.
 *
 * Why derived ids: a claim is settled after the write, in another store, and the two can come
 * apart (a connection dropped between the append and the settle, a COMMIT whose reply was lost, a
 * read after the write that failed and released the key). A retry with the same key then runs
 * the route again. With a random id that second run created a second document; with an id
 * derived from the key it names the same stream, its `no_stream` append collides with the first
 * one, and the route answers with what is stored instead of writing again.
 */
export interface IdempotentRequest {
  /** SHA-256 of the key's scope (organization, mode, API key), the key, its generation and the request's fingerprint. */
  readonly seed: string;
  /** Marks the answer as a replay (`Idempotent-Replayed: true`): nothing was written by this attempt. */
  replayed(): void;
}

/**
 * The seed of a request: scoped like the stored responses (one API key's keys never meet
 * another's), and bound to the request itself, so a key that was given back (a 5xx) and then
 * reused for a different body makes different ids rather than answering with the other request's
 * document. A key used again once expired (24 hours after its first use) is a new use: its
 * generation (when that use began, kept by the key's row) changes the ids. A streamed body (multipart) is not fingerprinted yet when the route starts: its seed
 * is the key's alone, as its stored response would be compared later.
 */
export function idempotencySeed(scope: string, key: string, generation: string, fingerprint: string | null): string {
  return createHash('sha256')
    .update(`${scope}\n${key}\n${generation}\n${fingerprint ?? 'streamed'}`)
    .digest('hex');
}

/**
 * The id of something a request creates (`what` names it within the request: 'document',
 * 'participant', …): derived from the request's Idempotency-Key when it has one, random otherwise.
 */
export function creationId(idempotency: IdempotentRequest | undefined, what: string): string {
  return idempotency ? derivedUuid('idempotency', idempotency.seed, what) : randomUUID();
}
