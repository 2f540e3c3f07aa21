import { MessageSendAttempt, claimsThatSent, takeOverSends, withAttemptSettled, withAttemptStarted } from './message-claim.fence';

const T0 = '2026-03-02T09:00:00.000Z';
const T1 = '2026-03-02T09:00:05.000Z';
const T2 = '2026-03-02T09:02:10.000Z';
const inFlight = (claim: number, attempt: number): MessageSendAttempt => ({ claim, attempt, worker: 'w1:10', started_at: T0, outcome: 'sending', finished_at: null });

/** Issue 33 §3: the message log's attempts are the fence's record; these are its rules, given/when/then. */
describe('message claim fence', () => {
  it('counts the claims that sent something, not the claims taken (rows from before attempts were logged count every claim)', () => {
    expect(claimsThatSent(null)).toBe(0);
    expect(claimsThatSent({ claims: 2 })).toBe(2);
    expect(claimsThatSent({ claims: 2, sends: [] })).toBe(0);
    expect(claimsThatSent({ claims: 3, sends: [inFlight(1, 1), inFlight(1, 2), inFlight(3, 1)] })).toBe(2);
  });

  it('given attempts in flight, when the claim is taken over, then they become unanswered (the copy may have arrived) and answered ones stay', () => {
    const answered: MessageSendAttempt = { ...inFlight(1, 1), outcome: 'failed', finished_at: T1, error: '451' };
    expect(takeOverSends([answered, inFlight(1, 2)], T2)).toEqual([answered, { ...inFlight(1, 2), outcome: 'unanswered', finished_at: T2 }]);
    expect(takeOverSends(undefined, T2)).toEqual([]);
  });

  it('given an attempt of the claim in flight, when the next try starts, then the previous one failed with its error and the lease runs from now', () => {
    const row = { claims: 1, sends: [inFlight(1, 1)], attempts: 1, lease_until: T1 };
    const next = withAttemptStarted(row, { claim: 1, attempt: 2, worker: 'w1:10', at: T2, leaseUntil: '2026-03-02T09:04:10.000Z', previousError: '451 4.3.0 try later' });
    expect(next.sends).toEqual([
      { ...inFlight(1, 1), outcome: 'failed', finished_at: T2, error: '451 4.3.0 try later' },
      { claim: 1, attempt: 2, worker: 'w1:10', started_at: T2, outcome: 'sending', finished_at: null },
    ]);
    expect(next).toMatchObject({ attempts: 2, lease_until: '2026-03-02T09:04:10.000Z' });
    // The row given is not changed: the compare-and-swap may be refused and the old row kept.
    expect(row.sends).toEqual([inFlight(1, 1)]);
  });

  it('a new claim does not settle the attempts of the claim before it (they stay unanswered)', () => {
    const row = { claims: 2, sends: takeOverSends([inFlight(1, 1)], T1) };
    expect(withAttemptStarted(row, { claim: 2, attempt: 1, worker: 'w2:20', at: T2, leaseUntil: T2 }).sends?.map((s) => [s.claim, s.outcome])).toEqual([
      [1, 'unanswered'],
      [2, 'sending'],
    ]);
  });

  it('given an attempt in flight or unanswered, when its answer comes (even after a takeover), then it is settled; an answered one or an unknown one is left alone', () => {
    const sends = [{ ...inFlight(1, 1), outcome: 'unanswered' as const, finished_at: T1 }, inFlight(2, 1)];
    expect(withAttemptSettled(sends, { claim: 1, attempt: 1 }, { outcome: 'sent', at: T2, provider_id: '<msg_1@dojang.test>' })?.[0]).toEqual({
      ...inFlight(1, 1),
      outcome: 'sent',
      finished_at: T2,
      provider_id: '<msg_1@dojang.test>',
    });
    const settled = withAttemptSettled(sends, { claim: 2, attempt: 1 }, { outcome: 'failed', at: T2, error: 'ECONNRESET' });
    expect(settled?.[1]).toMatchObject({ outcome: 'failed', error: 'ECONNRESET' });
    expect(withAttemptSettled(settled!, { claim: 2, attempt: 1 }, { outcome: 'sent', at: T2 })).toBeNull();
    expect(withAttemptSettled(sends, { claim: 3, attempt: 1 }, { outcome: 'sent', at: T2 })).toBeNull();
  });
});
