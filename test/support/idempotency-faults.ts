import { ReadDoc } from '@dojang/read-store';
import { IDEMPOTENCY_KEYS, IdempotencyRow } from '../../apps/api/src/idempotency/idempotency.store';
import { TestApp } from './test-app';

/**
 * Faults between a write and the Idempotency-Key's record of it, injected at the read-store port
 * (the same on the embedded store and on PostgreSQL). Callers restore them with
 * `jest.restoreAllMocks()`.
 */

/** What node-postgres says when a backend is terminated under a query: a store outage (503). */
export const droppedConnection = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });

/** The next read of a `collection` row fails as a dropped connection would: after the append, before the answer. */
export function failNextRead(t: TestApp, collection: string) {
  const reads = t.infra.reads;
  const get = reads.get.bind(reads);
  let armed = true;
  return jest.spyOn(reads, 'get').mockImplementation(async <T extends ReadDoc>(target: string, id: string) => {
    if (armed && target === collection) {
      armed = false;
      throw droppedConnection();
    }
    return get<T>(target, id);
  });
}

/** Every settle of a claim (complete or release) is lost: the key stays in flight until its lease lapses. */
export function loseSettles(t: TestApp) {
  const reads = t.infra.reads;
  const put = reads.putIfVersion.bind(reads);
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  return jest.spyOn(reads, 'putIfVersion').mockImplementation(async <T extends ReadDoc>(collection: string, doc: T, expected: number | null) => {
    if (collection === IDEMPOTENCY_KEYS && (doc as unknown as IdempotencyRow).state !== 'in_flight') throw new Error('disk I/O error');
    return put(collection, doc, expected);
  });
}
