import express, { json } from 'express';
import request from 'supertest';
import { Infrastructure, ManualClock } from '@dojang/application';
import { ReadStore } from '@dojang/read-store';
import { startTestApp, TestApp, TestOrg } from '../../../../test/support/test-app';
import { idempotencyMiddleware } from './idempotency.middleware';
import { IDEMPOTENCY_KEYS, IDEMPOTENCY_TTL_MS, IdempotencyRow, IdempotencyStore } from './idempotency.store';

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
