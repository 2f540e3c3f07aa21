import { createHash, randomUUID } from 'crypto';
import { derivedUuid, Infrastructure, prefixedId, RequestEventIds } from '@dojang/application';
import { Decider, DomainError } from '@dojang/domain';

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
  /** The ids of the events the request's commands write, derived from the seed (command-handler.ts). */
  readonly events: RequestEventIds & {
    /** How many of the request's commands so far were found already written by an earlier attempt. */
    readonly landedCount: number;
  };
}

/** A request's event ids: its n-th command on a stream gets the same ids on every retry of the request. */
export function requestEventIds(seed: string, replayed: () => void): IdempotentRequest['events'] {
  const commandsOn = new Map<string, number>();
  let landed = 0;
  return {
    next(streamId) {
      const n = commandsOn.get(streamId) ?? 0;
      commandsOn.set(streamId, n + 1);
      return (index) => derivedUuid('idempotency-event', seed, streamId, String(n), String(index));
    },
    replayed() {
      landed++;
      replayed();
    },
    get landedCount() {
      return landed;
    },
  };
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

/**
 * `creationId` for the resources with prefixed ids (templates, seals, webhook endpoints, files).
 * `what` tells apart what one request could make; a streamed upload, whose seed has no fingerprint,
 * names its bytes there so that another file sent with a key given back is not answered as this one.
 */
export function creationPrefixedId(idempotency: IdempotentRequest | undefined, prefix: Parameters<typeof prefixedId>[0], what = ''): string {
  if (!idempotency) return prefixedId(prefix);
  // The same shape as prefixedId's (24 hex digits), from the seed.
  return `${prefix}_${createHash('sha256').update(`idempotency\u0000${idempotency.seed}\u0000${prefix}\u0000${what}`).digest('hex').slice(0, 24)}`;
}

/**
 * Runs a creation whose id came from `creationId` / `creationPrefixedId`. When the request carries
 * an Idempotency-Key and the stream is already there, an earlier attempt with that key made it
 * (the id derives from the key, the API key's scope and the request): nothing is written again,
 * the answer is marked as a replay, and the route presents what is stored — re-read, not rebuilt,
 * so whatever ids the first attempt made up inside it (participants, fields) are the ones answered.
 * Returns whether this attempt created the stream.
 *
 * `create` throws the decider's `<thing>_exists` conflict when its append meets the stream, or
 * returns false when it decided nothing for an existing stream (a template send given its id).
 * `mine` says whether the stored state is the caller's (organization and mode): anything else is
 * refused as the conflict it is.
 */
export async function createOnce<State, Command, Event>(
  infra: Infrastructure,
  idempotency: IdempotentRequest | undefined,
  stream: { decider: Decider<State, Command, Event>; id: string; existsCode: string; mine: (state: State) => boolean },
  create: () => Promise<boolean | void>,
): Promise<boolean> {
  let conflict: unknown = null;
  const landedBefore = idempotency?.events.landedCount ?? 0;
  try {
    // Created now, unless the handler found the creation already written by an earlier attempt
    // of this request (its events' ids derive from the key): then it is answered as stored, like
    // a conflict, since what the route made up this time (a secret, a random value) was not kept.
    if ((await create()) !== false && (idempotency?.events.landedCount ?? 0) === landedBefore) return true;
  } catch (err) {
    if (!idempotency || !(err instanceof DomainError && err.code === stream.existsCode)) throw err;
    conflict = err;
  }
  const state = await projectedStream(infra, stream.decider, stream.id);
  if (!idempotency || !stream.mine(state)) throw conflict ?? new DomainError('conflict', stream.existsCode, 'It already exists.');
  idempotency.replayed();
  return false;
}

/**
 * A stream's state, once the read model shows all of it: read-your-writes for a replay, whose
 * writes an earlier attempt made (perhaps in another process) before the route presents them.
 */
export async function projectedStream<State, Command, Event>(infra: Infrastructure, decider: Decider<State, Command, Event>, streamId: string): Promise<State> {
  const { state, events } = await infra.commands.load(decider, streamId);
  const last = events[events.length - 1]?.global_position;
  if (last !== undefined && !(await infra.projections.waitFor(last))) await infra.projections.catchUp();
  return state;
}
