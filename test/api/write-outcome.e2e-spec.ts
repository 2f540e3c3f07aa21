import { OrganizationSigningKeys } from '@dojang/application';
import { AppendOutcomeUnknownError, EventStore } from '@dojang/event-store';
import { bearer, TestOrg, useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, client, expectError, expectStatus } from '../support/api-helpers';
import { sentWith, signer, solidPng } from '../support/lifecycle';
import { droppedConnection } from '../support/idempotency-faults';
import { SigningService } from '../../apps/api/src/signing/signing.service';

/**
 * A write whose answer the store lost (its connection died around the commit): the request must
 * never be applied twice, whether the service can learn the outcome (it answers as for any write)
 * or not (503 write_outcome_unknown, kept for the Idempotency-Key so a retry cannot write again).
 * The store's own settling is tested per adapter; here the store reports the loss at its port.
 */
describe('a write whose outcome the store lost', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
  });
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

  /**
   * Issue 33 finding 5: a signature that landed was answered 503 when the read after it failed, and
   * the signer's retry then got 409 document_not_signable (signing links are never replayed).
   */
  describe('a signature that landed', () => {
    const signedEvents = async (id: string) => (await t.infra.events.readStream(`document-${id}`)).filter((e) => e.type === 'ParticipantSigned').length;
    const viewFailsOnce = () => jest.spyOn(SigningService.prototype, 'view').mockRejectedValueOnce(droppedConnection());

    it.each([
      ['the last signature (completes the document)', false],
      ['a signature before another signer', true],
    ])('%s: the read after it failing answers 503 saying it landed; the retry answers 200 with the signed state, one signature', async (_, second) => {
      const c = client(t, org.test);
      const d = await sentWith(c, second ? [{ name: '갑', auth: 'none' }, { name: '을', auth: 'none' }] : [{ name: '갑', auth: 'none' }]);
      const s = signer(t, d.p['갑'].token);
      viewFailsOnce();
      expectError(await s.sign(), 503, 'service_unavailable');
      const first = await s.sign();
      expect(first.status).toBe(200);
      expect(first.body.participant.status).toBe('signed');
      expect(first.body.document.status).toBe(second ? 'sent' : 'completed');
      expect(await signedEvents(d.id)).toBe(1);
      // Not a retry of it (another signature image): still refused, nothing written.
      const other = await s.sign({ consent: true, signature: solidPng(40, 20, [200, 0, 0, 255]) });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe(second ? 'participant_already_signed' : 'document_not_signable');
      expect(await signedEvents(d.id)).toBe(1);
    });

    it('the 503 after a landed signature carries Retry-After and Write-Landed: true', async () => {
      const d = await sentWith(client(t, org.test), [{ name: '갑', auth: 'none' }]);
      viewFailsOnce();
      const res = await signer(t, d.p['갑'].token).sign();
      expectError(res, 503, 'service_unavailable');
      expect(res.headers['write-landed']).toBe('true');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(await signedEvents(d.id)).toBe(1);
    });

    it('a dropped connection while the final signature looks up the organization\'s key is a store outage, not a KEY_ENCRYPTION_KEY problem (the organization has no key of its own)', async () => {
      const d = await sentWith(client(t, org.test), [{ name: '갑', auth: 'none' }]);
      const lookup = jest.spyOn(OrganizationSigningKeys.prototype, 'keyFor').mockRejectedValueOnce(droppedConnection());
      const res = await signer(t, d.p['갑'].token).sign();
      expect(lookup).toHaveBeenCalled();
      expectError(res, 503, 'service_unavailable');
      expect(res.body.error.message).not.toMatch(/KEY_ENCRYPTION_KEY/);
      expect(await signedEvents(d.id)).toBe(0);
      jest.restoreAllMocks();
      expect((await signer(t, d.p['갑'].token).sign()).body.document.status).toBe('completed');
    });
  });
});
