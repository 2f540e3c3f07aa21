import { ManualClock } from '@dojang/application';
import { Client, client, expectStatus } from '../support/api-helpers';
import { Built, expectApiError, outboxOf, sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';

const MINUTE = 60_000;

/** A six-digit code guaranteed to differ from `pin`. */
const wrong = (pin: string, k = 1) => pin.slice(0, 5) + String((Number(pin[5]) + k) % 10);

/**
 * Issue 24 §21: five wrong tries locked a PIN and a new PIN came a minute later, without end —
 * about five guesses a minute for the link's whole life. After three locked PINs the link takes no
 * more until the sender reminds the participant (the reminder reaches their own phone or e-mail).
 */
describe('signing link locked after repeated PIN lockouts', () => {
  let t: TestApp;
  let clock: ManualClock;
  let c: Client;

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true, config: { signingRateLimit: { perToken: 0, perIp: 0 } } });
    clock = t.clock!;
    c = client(t, (await t.createOrg()).test);
  });
  afterAll(() => t.close());

  const latestPin = async (d: Built): Promise<string> => {
    const pins = (await outboxOf(t, c, d.id, `&participant_id=${d.p['김철수'].id}&channel=sms`)).filter((m) => m.kind === 'pin');
    return [...pins].sort((a, b) => a.created_at.localeCompare(b.created_at)).pop().pin;
  };

  /** Requests a PIN and spends its five attempts on wrong codes; returns the last answer. */
  async function lockOnePin(d: Built) {
    const kim = signer(t, d.p['김철수'].token);
    clock.advance(MINUTE);
    expectStatus(await kim.pin(), 200);
    const pin = await latestPin(d);
    for (let k = 1; k <= 4; k++) expectApiError(await kim.verify(wrong(pin, k)), 400, 'pin_incorrect');
    return { last: await kim.verify(wrong(pin, 5)), pin };
  }

  it('locks the link on the third locked PIN, tells the signer, and the sender’s reminder opens it again', async () => {
    const d = await sentWith(c, [{ name: '김철수', auth: 'sms_pin', phone: '01012345678', email: 'kim@example.com' }]);
    const kim = signer(t, d.p['김철수'].token);
    for (let n = 1; n <= 2; n++) expectApiError((await lockOnePin(d)).last, 409, 'pin_locked');
    expect(expectStatus(await kim.view(), 200).body.pin).toMatchObject({ locked: true, link_locked: false });

    const third = await lockOnePin(d);
    const err = expectApiError(third.last, 409, 'signing_link_locked', 'invalid_request_error');
    expect(err.param).toBe('pin');
    expect(err.message).toMatch(/sender/);
    // Neither the right code of the locked PIN nor a new PIN, however long one waits.
    expectApiError(await kim.verify(third.pin), 409, 'signing_link_locked');
    clock.advance(60 * MINUTE);
    expectApiError(await kim.pin(), 409, 'signing_link_locked');
    const pinsBefore = (await outboxOf(t, c, d.id, '&channel=sms')).filter((m) => m.kind === 'pin').length;
    expect(pinsBefore).toBe(3);
    const view = expectStatus(await kim.view(), 200).body;
    expect(view.pin).toMatchObject({ link_locked: true });
    expect(view.can_sign).toBe(false);

    // The sender reminds: the reminder goes to the participant and the link takes PINs again.
    expectStatus(await c.post(`/documents/${d.id}/remind`), 200);
    expect(expectStatus(await kim.view(), 200).body.pin.link_locked).toBe(false);
    expectStatus(await kim.pin(), 200);
    expectStatus(await kim.verify(await latestPin(d)), 200);
    expectStatus(await kim.sign(), 200);
  }, 180_000); // a send renders a PDF and the last signature stamps and signs one: slow on a busy machine

  it('says so in Korean and English on the signing page', async () => {
    const script = expectStatus(await t.http.get('/sign/assets/i18n.js'), 200).text;
    expect(script).toContain("err_signing_link_locked: '인증번호를 여러 번 잘못 입력해 이 서명 링크가 잠겼습니다.");
    expect(script).toContain("err_signing_link_locked: 'Too many wrong PINs: this signing link is locked. Ask the sender to send the request again.'");
  });
});
