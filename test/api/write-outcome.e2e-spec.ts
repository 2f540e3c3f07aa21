import { AppendOutcomeUnknownError, EventStore } from '@dojang/event-store';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { API_TEST_OPTIONS, expectError, expectStatus } from '../support/api-helpers';

/**
 * A write whose answer the store lost (its connection died around the commit): the request must
 * never be applied twice, whether the service can learn the outcome (it answers as for any write)
 * or not (503 write_outcome_unknown, kept for the Idempotency-Key so a retry cannot write again).
 * The store's own settling is tested per adapter; here the store reports the loss at its port.
 */
describe('a write whose outcome the store lost', () => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    t = await startTestApp(API_TEST_OPTIONS);
    org = await t.createOrg();
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const create = (key: string, title: string) =>
    t.http.post('/v1/documents').set(bearer(org.test)).set('Idempotency-Key', key).send({ title, content: '<p>본문</p>' });
  const titled = async (title: string) =>
    (expectStatus(await t.http.get('/v1/documents?limit=100').set(bearer(org.test)), 200).body.data as Array<{ title: string }>).filter((d) => d.title === title);

  /** The next document append lands and then reports its outcome unknown, `times` times over. */
  function loseAnswers(mode: 'land-once' | 'never-land', times: number) {
    const events: EventStore = t.infra.events;
    const append = events.append.bind(events);
    let left = times;
    return jest.spyOn(events, 'append').mockImplementation(async (streamId, batch, expected) => {
      if (!streamId.startsWith('document-') || left <= 0) return append(streamId, batch, expected);
      left--;
      if (mode === 'land-once' && left === times - 1) await append(streamId, batch, expected);
      throw new AppendOutcomeUnknownError(streamId, new Error('Connection terminated unexpectedly'));
    });
  }

  it('answers 201 once for a creation that landed with its answer lost, and stores one document', async () => {
    loseAnswers('land-once', 2);
    const res = expectStatus(await create('lost-1', 'lost answer, landed'), 201);
    jest.restoreAllMocks();
    const docs = await titled('lost answer, landed');
    expect(docs.map((d) => (d as unknown as { id: string }).id)).toEqual([res.body.id]);
    // The same key replays that answer.
    const again = expectStatus(await create('lost-1', 'lost answer, landed'), 201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(res.body.id);
    expect(await titled('lost answer, landed')).toHaveLength(1);
  });

  it('answers 503 write_outcome_unknown when the outcome stays unknown, and a retry with the key never writes again', async () => {
    // Lands on the first try; every later look is lost too.
    loseAnswers('land-once', 50);
    jest.spyOn(t.infra.events, 'readStream').mockRejectedValue(new Error('Connection terminated unexpectedly'));
    expectError(await create('lost-2', 'outcome unknown'), 503, 'write_outcome_unknown');
    jest.restoreAllMocks();
    const retry = await create('lost-2', 'outcome unknown');
    // The first answer, replayed (its request id included).
    expect(retry.status).toBe(503);
    expect(retry.body.error.code).toBe('write_outcome_unknown');
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await titled('outcome unknown')).toHaveLength(1);
  });
});
