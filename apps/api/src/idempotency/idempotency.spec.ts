import express, { json } from 'express';
import request from 'supertest';
import { Infrastructure, ManualClock } from '@dojang/application';
import { ReadStore } from '@dojang/read-store';
import { startTestApp, TestApp, TestOrg } from '../../../../test/support/test-app';
import { idempotencyMiddleware } from './idempotency.middleware';
import { IDEMPOTENCY_KEYS, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, IdempotencyRow, IdempotencyStore } from './idempotency.store';

/**
 * The idempotency keys when their store misbehaves: an outage while the keys collection is being
 * prepared, and a sweep racing a request that takes an expired key again. Runs on the embedded
 * stores with failures and interleavings injected at the read-store port.
 */

let t: TestApp;
let org: TestOrg;
beforeAll(async () => {
  t = await startTestApp({ worker: false });
  org = await t.createOrg();
});
afterAll(() => t.close());

/** A promise that remembers whether anyone handles its rejection (a process dies on one nobody does). */
class Watched<T> extends Promise<T> {
  static made: Array<Watched<unknown>> = [];
  handled = false;
  then<A = T, B = never>(onFulfilled?: ((value: T) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null) {
    if (onRejected) this.handled = true;
    return super.then(onFulfilled, onRejected);
  }
}

/** The real read store, with `ensureCollection` of the keys failing the first `failures` times. */
function flakyKeys(reads: ReadStore, failures: number): ReadStore & { attempts: number; failed: Array<Watched<void>> } {
  const wrapper = Object.create(reads) as ReadStore & { attempts: number; failed: Array<Watched<void>> };
  wrapper.attempts = 0;
  wrapper.failed = [];
  wrapper.ensureCollection = (spec) => {
    if (spec.name === IDEMPOTENCY_KEYS && wrapper.attempts++ < failures) {
      const failed = new Watched<void>((_, reject) => reject(new Error('MongoServerSelectionError: connect ECONNREFUSED')));
      wrapper.failed.push(failed);
      return failed;
    }
    return reads.ensureCollection(spec);
  };
  return wrapper;
}

describe('idempotency middleware with its store down', () => {
  it('survives a failure to prepare the keys at boot, answers 503 in the envelope while it lasts, and recovers', async () => {
    const reads = flakyKeys(t.infra.reads, 2);
      const infra = { ...t.infra, reads } as Infrastructure;
      const app = express()
        .use((req: express.Request & { requestId?: string }, _res, next) => {
          req.requestId = 'req_test';
          next();
        })
        .use(json())
        .use(idempotencyMiddleware(infra, new ManualClock(new Date('2026-03-02T09:00:00.000Z'))))
        .post('/v1/documents', (_req, res) => res.status(201).json({ object: 'document' }));
      // The boot-time attempt failed; left unhandled, that rejection would end the process.
      expect(reads.failed).toHaveLength(1);
      expect(reads.failed[0].handled).toBe(true);

      const during = await request(app).post('/v1/documents').set('Authorization', `Bearer ${org.test}`).set('Idempotency-Key', 'k1').send({ title: 'x' });
      expect(during.status).toBe(503);
      expect(during.body).toEqual({
        error: { type: 'api_error', code: 'service_unavailable', message: expect.any(String), request_id: 'req_test' },
      });

      const after = await request(app).post('/v1/documents').set('Authorization', `Bearer ${org.test}`).set('Idempotency-Key', 'k1').send({ title: 'x' });
      expect(after.status).toBe(201);
      expect(reads.attempts).toBe(3);
      const replay = await request(app).post('/v1/documents').set('Authorization', `Bearer ${org.test}`).set('Idempotency-Key', 'k1').send({ title: 'x' });
      expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe('IdempotencyStore.sweep', () => {
  it('does not delete a key that a request took again between the sweep finding it expired and deleting it', async () => {
    const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
    const store = new IdempotencyStore(t.infra.reads, clock);
    const first = await store.begin('org:test', 'race', 'fp-1');
    if (first.kind !== 'proceed') throw new Error(`unexpected ${first.kind}`);
    await store.complete(first, 'fp-1', { status: 201, content_type: 'application/json', body_base64: '' });
    clock.advance(IDEMPOTENCY_TTL_MS + 1);

    // The sweep's read returns; before it writes, a new request takes the expired key.
    let retaken: Awaited<ReturnType<IdempotencyStore['begin']>> | null = null;
    const reads = Object.create(t.infra.reads) as ReadStore;
    reads.find = async (collection, query) => {
      const rows = await t.infra.reads.find(collection, query);
      if (collection === IDEMPOTENCY_KEYS && !retaken) retaken = await store.begin('org:test', 'race', 'fp-2');
      return rows as never;
    };
    await new IdempotencyStore(reads, clock).sweep();

    const claim = retaken as Awaited<ReturnType<IdempotencyStore['begin']>> | null;
    if (claim?.kind !== 'proceed') throw new Error(`the second request did not get the key: ${claim?.kind}`);
    const row = await t.infra.reads.get<IdempotencyRow>(IDEMPOTENCY_KEYS, store.rowId('org:test', 'race'));
    expect(row).toMatchObject({ state: 'in_flight', lock: claim.lock, fingerprint: 'fp-2' });
    // Its owner can still store its result, and a repeat replays it.
    expect(await store.complete(claim, 'fp-2', { status: 201, content_type: 'application/json', body_base64: '' })).toBe(true);
    expect((await store.begin('org:test', 'race', 'fp-2')).kind).toBe('replay');
  });

  it('still deletes keys past their 24 hours that nobody took again', async () => {
    const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
    const store = new IdempotencyStore(t.infra.reads, clock);
    const claim = await store.begin('org:test', 'old', 'fp');
    if (claim.kind !== 'proceed') throw new Error(`unexpected ${claim.kind}`);
    await store.complete(claim, 'fp', { status: 201, content_type: null, body_base64: '' });
    clock.advance(IDEMPOTENCY_TTL_MS + 1);
    expect(await store.sweep()).toBeGreaterThanOrEqual(1);
    expect(await t.infra.reads.get(IDEMPOTENCY_KEYS, store.rowId('org:test', 'old'))).toBeNull();
  });
});

describe('IdempotencyStore leases and generations', () => {
  const begun = async (store: IdempotencyStore, key: string, fp = 'fp') => {
    const claim = await store.begin('org:test', key, fp);
    if (claim.kind !== 'proceed') throw new Error(`unexpected ${claim.kind}`);
    return claim;
  };

  it('a renewed claim stays held past its first lease; one not renewed is taken over, keeping its generation', async () => {
    const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
    const store = new IdempotencyStore(t.infra.reads, clock);
    const claim = await begun(store, 'renewed');
    clock.advance(IDEMPOTENCY_LEASE_MS - 1000);
    expect(await store.renew(claim)).toBe(true);
    clock.advance(IDEMPOTENCY_LEASE_MS - 1000);
    const busy = await store.begin('org:test', 'renewed', 'fp');
    expect(busy).toEqual({ kind: 'in_flight', retryAfterMs: 1000 });
    // The holder is gone (its settle and release lost): past the lease the key is taken over, as
    // the same use of the key, so a creation retried now derives the same ids.
    clock.advance(1000);
    const taken = await begun(store, 'renewed');
    expect(taken.generation).toBe(claim.generation);
    // The first holder no longer owns it: neither its renewal nor its settle lands.
    expect(await store.renew(claim)).toBe(false);
    expect(await store.complete(claim, 'fp', { status: 201, content_type: null, body_base64: '' })).toBe(false);
    expect(await store.complete(taken, 'fp', { status: 201, content_type: null, body_base64: '' })).toBe(true);
  });

  it('a key given back keeps its generation; a key used again after its 24 hours starts a new one', async () => {
    const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
    const store = new IdempotencyStore(t.infra.reads, clock);
    const first = await begun(store, 'generations');
    await store.release(first);
    clock.advance(60_000);
    const again = await begun(store, 'generations');
    expect(again.generation).toBe(first.generation);
    await store.complete(again, 'fp', { status: 201, content_type: null, body_base64: '' });
    clock.advance(IDEMPOTENCY_TTL_MS);
    const anew = await begun(store, 'generations');
    expect(anew.generation).not.toBe(first.generation);
  });

  it('settles against the row as it is: a renewal whose reply was lost does not cost the claim its answer', async () => {
    const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
    const store = new IdempotencyStore(t.infra.reads, clock);
    const claim = await begun(store, 'renewal-reply-lost');
    // The renewal landed; its caller never learned it (the version it remembers is stale).
    expect(await store.renew({ ...claim })).toBe(true);
    expect(await store.complete(claim, 'fp', { status: 201, content_type: null, body_base64: '' })).toBe(true);
    expect((await store.begin('org:test', 'renewal-reply-lost', 'fp')).kind).toBe('replay');
  });
});
