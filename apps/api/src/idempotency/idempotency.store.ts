import { createHash, randomBytes } from 'crypto';
import { Clock } from '@dojang/application';
import { ReadDoc, ReadStore } from '@dojang/read-store';

export const IDEMPOTENCY_KEYS = 'idempotency_keys';
/** Keys are kept 24 hours after their first use (by the injected clock). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim not renewed for this long is taken to belong to a request that is over (its process
 * died, or the store lost both its settle and its release): the next request with the key takes it
 * over. A request still running renews its claim every IDEMPOTENCY_RENEW_MS, so a slow one (a
 * final PDF with a timestamp) keeps it; short, so a client retrying after an outage waits seconds,
 * not minutes. A takeover of a request that is in fact still running (its renewals lost for the
 * whole lease) cannot create twice: creations derive their ids from the key (idempotent-creation.ts).
 */
export const IDEMPOTENCY_LEASE_MS = 20 * 1000;
export const IDEMPOTENCY_RENEW_MS = 5 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export interface StoredResponse {
  status: number;
  content_type: string | null;
  /** The body as sent, base64 (so any content type round-trips). */
  body_base64: string;
}

export interface IdempotencyRow extends ReadDoc {
  state: 'in_flight' | 'done' | 'released';
  /** method + path + canonical body, hashed; null until known (a streamed body is hashed as it is read). */
  fingerprint: string | null;
  lock: string;
  locked_until: number;
  expires_at: number;
  created_at: string;
  response: StoredResponse | null;
}

export type Begin =
  /** `generation`: when this use of the key began (its first request since it was new or expired). */
  | { kind: 'proceed'; id: string; lock: string; version: number; generation: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'reused' }
  /** `retryAfterMs`: until the holder's lease runs out, unless it settles or renews first. */
  | { kind: 'in_flight'; retryAfterMs: number }
  /** The stored result's fingerprint must be compared with this request's streamed body. */
  | { kind: 'compare'; fingerprint: string; response: StoredResponse };

export const fingerprintOf = (method: string, path: string, body: string | Buffer) =>
  createHash('sha256').update(`${method.toUpperCase()} ${path}\n`).update(body).digest('hex');

/** JSON with object keys sorted at every level: the same request always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * The version a claim's holder writes against: the row's as read, once its lock shows the claim is
 * still this request's (a lock is unique to one claim; a takeover writes a new one). Not a version
 * remembered from the claim: a renewal whose reply was lost on a dropped connection has moved it.
 */
const currentVersion = (row: IdempotencyRow) => Number(row._version ?? 0);

/**
 * Idempotency keys with Stripe's semantics, kept in the read store so that every API process on
 * the same store sees the same keys. Claims are compare-and-swap writes (putIfVersion): of many
 * concurrent requests with one key exactly one proceeds.
 */
export class IdempotencyStore {
  constructor(
    private readonly reads: ReadStore,
    private readonly clock: Clock,
  ) {}

  rowId(scope: string, key: string): string {
    return createHash('sha256').update(`${scope}\n${key}`).digest('hex');
  }

  async begin(scope: string, key: string, fingerprint: string | null): Promise<Begin> {
    const id = this.rowId(scope, key);
    for (let attempt = 0; attempt < 10; attempt++) {
      const now = this.clock.now().getTime();
      const lock = randomBytes(12).toString('hex');
      const claim: IdempotencyRow = {
        id,
        state: 'in_flight',
        fingerprint,
        lock,
        locked_until: now + IDEMPOTENCY_LEASE_MS,
        expires_at: now + IDEMPOTENCY_TTL_MS,
        created_at: new Date(now).toISOString(),
        response: null,
      };
      const existing = await this.reads.get<IdempotencyRow>(IDEMPOTENCY_KEYS, id);
      if (!existing) {
        if (await this.reads.putIfVersion(IDEMPOTENCY_KEYS, claim, null)) return { kind: 'proceed', id, lock, version: 1, generation: claim.created_at };
        continue;
      }
      const version = Number(existing._version ?? 0);
      const free =
        existing.expires_at <= now || existing.state === 'released' || (existing.state === 'in_flight' && existing.locked_until <= now);
      if (free) {
        // A key given back (a 5xx) or whose holder lapsed is the same use of the key: it keeps the
        // day that began with its first use, and so its generation (the ids its requests derive).
        // Only an expired key starts anew.
        const taken = existing.expires_at <= now ? claim : { ...claim, created_at: existing.created_at, expires_at: Math.max(existing.expires_at, claim.locked_until) };
        if (await this.reads.putIfVersion(IDEMPOTENCY_KEYS, taken, version)) return { kind: 'proceed', id, lock, version: version + 1, generation: taken.created_at };
        continue;
      }
      if (existing.state === 'in_flight') {
        if (fingerprint && existing.fingerprint && fingerprint !== existing.fingerprint) return { kind: 'reused' };
        return { kind: 'in_flight', retryAfterMs: Math.max(0, existing.locked_until - now) };
      }
      const response = existing.response as StoredResponse;
      if (fingerprint === null) return { kind: 'compare', fingerprint: existing.fingerprint ?? '', response };
      return fingerprint === existing.fingerprint ? { kind: 'replay', response } : { kind: 'reused' };
    }
    return { kind: 'in_flight', retryAfterMs: 1000 };
  }

  /**
   * Extends the lease of a claim still held by a running request; the claim's version follows the
   * write. False when the claim is no longer this request's (taken over after a lapse).
   */
  async renew(claim: { id: string; lock: string; version: number }): Promise<boolean> {
    const row = await this.reads.get<IdempotencyRow>(IDEMPOTENCY_KEYS, claim.id);
    if (!row || row.lock !== claim.lock || row.state !== 'in_flight') return false;
    return this.reads.putIfVersion(IDEMPOTENCY_KEYS, { ...row, locked_until: this.clock.now().getTime() + IDEMPOTENCY_LEASE_MS }, currentVersion(row));
  }

  /** Stores the result of the request that holds the claim (ignored if the claim was lost). */
  async complete(claim: { id: string; lock: string; version: number }, fingerprint: string, response: StoredResponse): Promise<boolean> {
    const row = await this.reads.get<IdempotencyRow>(IDEMPOTENCY_KEYS, claim.id);
    if (!row || row.lock !== claim.lock) return false;
    return this.reads.putIfVersion(IDEMPOTENCY_KEYS, { ...row, state: 'done', fingerprint, response }, currentVersion(row));
  }

  /** Gives the key back (a 5xx, or a request whose body could not be fingerprinted): a retry runs anew. */
  async release(claim: { id: string; lock: string; version: number }): Promise<void> {
    const row = await this.reads.get<IdempotencyRow>(IDEMPOTENCY_KEYS, claim.id);
    if (!row || row.lock !== claim.lock) return;
    await this.reads.putIfVersion(IDEMPOTENCY_KEYS, { ...row, state: 'released', response: null }, currentVersion(row));
  }

  /**
   * Deletes keys past their 24 hours. A key found expired may be taken again by a request before
   * the delete, so each is first claimed like a request would (compare-and-swap on the version
   * read): a retaken key keeps its new owner. While the sweep holds it (an unexpired lease, a
   * moment) a request with that key is told to retry (409); a sweep that dies there leaves a
   * lease that runs out by itself.
   */
  async sweep(limit = 500): Promise<number> {
    const now = this.clock.now().getTime();
    const old = await this.reads.find<IdempotencyRow>(IDEMPOTENCY_KEYS, { where: { expires_at: { $lte: now } }, limit });
    let removed = 0;
    for (const row of old) {
      const held: IdempotencyRow = {
        ...row,
        state: 'in_flight',
        fingerprint: null,
        lock: `sweep:${randomBytes(12).toString('hex')}`,
        locked_until: now + IDEMPOTENCY_LEASE_MS,
        expires_at: now + IDEMPOTENCY_LEASE_MS,
        response: null,
      };
      if (!(await this.reads.putIfVersion(IDEMPOTENCY_KEYS, held, Number(row._version ?? 0)))) continue;
      await this.reads.commit([{ op: 'delete', collection: IDEMPOTENCY_KEYS, id: row.id }], {});
      removed++;
    }
    return removed;
  }
}
