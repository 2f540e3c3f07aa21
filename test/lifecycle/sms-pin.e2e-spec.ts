import { ManualClock } from '@dojang/application';
import { Client, client, expectStatus } from '../support/api-helpers';
import { Built, auditOf, expectApiError, outboxOf, sentWith, signer, solidPng } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** A six-digit code guaranteed to differ from `pin`. */
const wrong = (pin: string, k = 1) => pin.slice(0, 5) + String((Number(pin[5]) + k) % 10);

describe('SMS PIN', () => {
  let t: TestApp;
  let clock: ManualClock;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true });
    clock = t.clock!;
    c = client(t, (await t.createOrg()).test);
  });
  afterAll(() => t.close());

  /** Two PIN signers, so the first signature leaves the document sent. */
  const twoPinSigners = () =>
    sentWith(c, [
      { name: '김철수', auth: 'sms_pin', phone: '01012345678', email: 'kim@example.com' },
      { name: '이영희', auth: 'sms_pin', phone: '01087654321' },
    ]);

  /** The newest PIN SMS sent to a participant. */
  const latestPin = async (d: Built, name: string): Promise<{ pin: string; all: any[] }> => {
    const all = (await outboxOf(t, c, d.id, `&participant_id=${d.p[name].id}&channel=sms`)).filter((m) => m.kind === 'pin');
    if (all.length === 0) throw new Error(`no PIN sent to ${name}`);
    const newest = [...all].sort((a, b) => a.created_at.localeCompare(b.created_at)).pop();
    return { pin: newest.pin, all };
  };

  it('is 6 digits, sent by SMS to the participant phone, and must be verified before signing or declining', async () => {
    const d = await twoPinSigners();
    const s = signer(t, d.p['김철수'].token);
    const view = expectStatus(await s.view(), 200).body;
    expect(view).toMatchObject({ pin_required: true, pin_verified: false, can_sign: false, your_turn: true });
    expect(view.participant.phone_masked).toBe('010-****-5678');
    expectApiError(await s.verify('123456'), 409, 'pin_not_requested');
    expectApiError(await s.sign(), 409, 'pin_verification_required');
    expectApiError(await s.decline(), 409, 'pin_verification_required');

    const issued = expectStatus(await s.pin(), 200).body;
    const now = clock.now().getTime();
    expect(issued).toMatchObject({ object: 'pin', sent_to: '010-****-5678' });
    expect(Date.parse(issued.expires_at)).toBe(now + 10 * MINUTE);
    expect(Date.parse(issued.resend_available_at)).toBe(now + MINUTE);
    expect(JSON.stringify(issued)).not.toContain('01012345678');

    const { pin, all } = await latestPin(d, '김철수');
    expect(pin).toMatch(/^\d{6}$/);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ channel: 'sms', to: '01012345678', kind: 'pin' });
    expect(all[0].body).toContain(pin);
    // the code goes by SMS only, never by e-mail, and never to the other participant
    const emails = await outboxOf(t, c, d.id, `&channel=email`);
    expect(emails.filter((m) => m.kind === 'pin' || m.pin !== null)).toEqual([]);
    expect((await outboxOf(t, c, d.id, `&participant_id=${d.p['이영희'].id}`)).filter((m) => m.kind === 'pin')).toEqual([]);

    // malformed codes are refused before they count as attempts
    for (const bad of ['12345', '1234567', 'abcdef', '12 456']) expectApiError(await s.verify(bad), 400, 'invalid_parameter');
    expect((await auditOf(c, d.id)).filter((e) => e.event === 'pin_failed')).toEqual([]);

    expect(expectStatus(await s.verify(pin), 200).body).toEqual({ object: 'pin_verification', verified: true });
    expect(expectStatus(await s.view(), 200).body).toMatchObject({ pin_verified: true, can_sign: true });
    expectStatus(await s.sign(), 200);
  });

  it('participants with auth none need (and get) no PIN', async () => {
    const d = await sentWith(c, [{ name: '무인증', auth: 'none', phone: '01011112222' }]);
    const s = signer(t, d.p['무인증'].token);
    expect(expectStatus(await s.view(), 200).body).toMatchObject({ pin_required: false, can_sign: true });
    expectApiError(await s.pin(), 409, 'pin_not_required');
  });

  it('lives 10 minutes: accepted at exactly 10:00, pin_expired at 10:01, a new one works', async () => {
    const d = await twoPinSigners();
    const kim = signer(t, d.p['김철수'].token);
    const lee = signer(t, d.p['이영희'].token);
    expectStatus(await kim.pin(), 200);
    expectStatus(await lee.pin(), 200);
    const kimPin = (await latestPin(d, '김철수')).pin;
    const leePin = (await latestPin(d, '이영희')).pin;

    clock.advance(10 * MINUTE);
    expectStatus(await lee.verify(leePin), 200);
    clock.advance(SECOND);
    expectApiError(await kim.verify(kimPin), 409, 'pin_expired');
    expectApiError(await kim.sign(), 409, 'pin_verification_required');

    expectStatus(await kim.pin(), 200);
    const fresh = (await latestPin(d, '김철수')).pin;
    expectStatus(await kim.verify(fresh), 200);
    expectStatus(await kim.sign(), 200);
  });

  it('is single use: consumed by the signature it authorised', async () => {
    const d = await twoPinSigners();
    const kim = signer(t, d.p['김철수'].token);
    expectStatus(await kim.pin(), 200);
    const { pin } = await latestPin(d, '김철수');
    expectStatus(await kim.verify(pin), 200);
    expectStatus(await kim.verify(pin), 200); // verifying again before use changes nothing
    expectStatus(await kim.sign(), 200);

    expectApiError(await kim.verify(pin), 409, 'pin_not_requested');
    // The same signature again (a retry whose answer was lost) is answered with the signed state,
    // writing nothing; another signature is refused.
    expect(expectStatus(await kim.sign(), 200).body.participant.status).toBe('signed');
    expectApiError(await kim.sign({ consent: true, signature: solidPng(40, 20, [0, 0, 200, 255]) }), 409, 'participant_already_signed');
    clock.advance(2 * MINUTE);
    expectApiError(await kim.pin(), 409, 'participant_already_signed');
    expect(expectStatus(await c.get(`/documents/${d.id}`), 200).body.status).toBe('sent');
    const signedEvents = (await t.infra.events.readStream(`document-${d.id}`)).filter((e) => e.type === 'ParticipantSigned');
    expect(signedEvents).toHaveLength(1);
  });

  it('a verification lets the signer act for 30 minutes; after that the page asks for a new PIN', async () => {
    const d = await twoPinSigners();
    const kim = signer(t, d.p['김철수'].token);
    expectStatus(await kim.pin(), 200);
    expectStatus(await kim.verify((await latestPin(d, '김철수')).pin), 200);
    clock.advance(30 * MINUTE);
    expect(expectStatus(await kim.view(), 200).body).toMatchObject({ pin_verified: true, can_sign: true });
    clock.advance(SECOND);
    expect(expectStatus(await kim.view(), 200).body).toMatchObject({ pin_verified: false, can_sign: false });
    const err = expectApiError(await kim.sign(), 409, 'pin_verification_required');
    expect(err.message).toMatch(/more than 30 minutes ago/);
    expectApiError(await kim.decline(), 409, 'pin_verification_required');

    expectStatus(await kim.pin(), 200);
    expectStatus(await kim.verify((await latestPin(d, '김철수')).pin), 200);
    expectStatus(await kim.sign(), 200);
  });

  it('locks after 5 wrong tries (409 pin_locked), even for the right code; a new PIN unlocks', async () => {
    const d = await twoPinSigners();
    const kim = signer(t, d.p['김철수'].token);
    expectStatus(await kim.pin(), 200);
    const { pin } = await latestPin(d, '김철수');
    for (let i = 1; i <= 4; i++) {
      const err = expectApiError(await kim.verify(wrong(pin, i)), 400, 'pin_incorrect');
      expect(err.message).toContain(`${5 - i} attempt`);
    }
    expectApiError(await kim.verify(wrong(pin, 5)), 409, 'pin_locked');
    expectApiError(await kim.verify(pin), 409, 'pin_locked');
    expectApiError(await kim.sign(), 409, 'pin_verification_required');
    expect(expectStatus(await kim.view(), 200).body.can_sign).toBe(false);

    clock.advance(MINUTE);
    expectStatus(await kim.pin(), 200);
    const fresh = (await latestPin(d, '김철수')).pin;
    expectStatus(await kim.verify(fresh), 200);
    expectStatus(await kim.sign(), 200);
  });

  it('can be resent only after a 60 s cooldown (429 pin_resend_cooldown); a refused resend sends nothing', async () => {
    const d = await twoPinSigners();
    const kim = signer(t, d.p['김철수'].token);
    expectStatus(await kim.pin(), 200);
    const refused = await kim.pin();
    const err = expectApiError(refused, 429, 'pin_resend_cooldown', 'rate_limit_error');
    expect(err.message).toMatch(/60 seconds/);
    expect(refused.headers['retry-after']).toBe('60');
    clock.advance(59 * SECOND);
    const later = await kim.pin();
    expectApiError(later, 429, 'pin_resend_cooldown');
    expect(later.headers['retry-after']).toBe('1');
    expect((await latestPin(d, '김철수')).all).toHaveLength(1);

    clock.advance(SECOND);
    expectStatus(await kim.pin(), 200);
    const { pin, all } = await latestPin(d, '김철수');
    expect(all).toHaveLength(2);
    // the cooldown is per participant: the other signer is not held back
    expectStatus(await signer(t, d.p['이영희'].token).pin(), 200);
    expectStatus(await kim.verify(pin), 200);
  });

  it('every issue, failure and verification is audited, with the participant as actor and the phone masked', async () => {
    const d = await twoPinSigners();
    const kim = signer(t, d.p['김철수'].token);
    expectStatus(await kim.view(), 200);
    expectStatus(await kim.pin(), 200);
    const first = (await latestPin(d, '김철수')).pin;
    expectApiError(await kim.verify(wrong(first)), 400, 'pin_incorrect');
    expectApiError(await kim.verify(wrong(first, 2)), 400, 'pin_incorrect');
    clock.advance(MINUTE);
    expectStatus(await kim.pin(), 200);
    const second = (await latestPin(d, '김철수')).pin;
    expectApiError(await kim.verify(wrong(second)), 400, 'pin_incorrect');
    expectStatus(await kim.verify(second), 200);
    expectStatus(await kim.sign(), 200);

    const audit = await auditOf(c, d.id);
    expect(audit.map((e) => e.event)).toEqual(['created', 'sent', 'viewed', 'pin_sent', 'pin_failed', 'pin_failed', 'pin_sent', 'pin_failed', 'pin_verified', 'signed']);
    const pinEntries = audit.filter((e) => e.event.startsWith('pin_'));
    for (const e of pinEntries) expect(e.actor).toBe('김철수');
    expect(pinEntries.filter((e) => e.event === 'pin_sent').map((e) => e.detail)).toEqual(['PIN sent to 010-****-5678', 'PIN sent to 010-****-5678']);
    expect(pinEntries.filter((e) => e.event === 'pin_failed').map((e) => e.detail)).toEqual(['wrong PIN (1 failed)', 'wrong PIN (2 failed)', 'wrong PIN (1 failed)']);
    for (const e of pinEntries.filter((x) => x.event !== 'pin_sent')) expect(e.ip).toEqual(expect.any(String));
    expect(JSON.stringify(audit)).not.toContain('01012345678');
    // neither the code nor its hash is ever part of the trail
    for (const e of audit) {
      expect(Object.keys(e).filter((k) => /pin/.test(k))).toEqual([]);
      for (const code of [first, second]) expect(e.detail ?? '').not.toContain(code);
    }
  });
});
