import { DomainError } from './domain-error';
import { mobilePhone, phoneE164, readMobilePhone } from './phone-number';

const refusal = (raw: string, param = 'participants[0].phone'): DomainError => {
  try {
    mobilePhone(raw, param);
  } catch (err) {
    return err as DomainError;
  }
  throw new Error(`${raw} was accepted`);
};

describe('mobilePhone: the one rule for a recipient phone', () => {
  it.each([
    ['010-1234-5678', '01012345678'],
    ['010 1234 5678', '01012345678'],
    ['01012345678', '01012345678'],
    ['+82 10-1234-5678', '01012345678'],
    ['+821012345678', '01012345678'],
    ['011-234-5678', '0112345678'], // a 01X number kept from before 010: 7 subscriber digits are still valid,
  ])('takes the Korean mobile %s as its domestic digits %s', (raw, stored) => {
    expect(mobilePhone(raw, 'phone')).toBe(stored);
  });

  it.each([
    ['+1 415 555 2671', '+14155552671'], // US numbers are all FIXED_LINE_OR_MOBILE
    ['+81 90-1234-5678', '+819012345678'],
    ['+84 91 234 56 78', '+84912345678'],
    ['+44 7400 123456', '+447400123456'],
  ])('takes the international mobile %s in E.164', (raw, stored) => {
    expect(mobilePhone(raw, 'phone')).toBe(stored);
  });

  it('reads blank and absent as no phone', () => {
    expect(mobilePhone(undefined, 'phone')).toBeNull();
    expect(mobilePhone(null, 'phone')).toBeNull();
    expect(mobilePhone('  ', 'phone')).toBeNull();
  });

  it.each([
    ['1588-1234', '대표번호'], // was stored as 015881234 (a 0 guessed in front)
    ['02-123-4567', 'landline'],
    ['+82 2 123 4567', 'landline'],
    ['070-1234-5678', 'VoIP'],
    ['0505-123-4567', 'personal'],
    ['080-123-4567', 'toll-free'],
  ])('refuses %s, a valid number that is not a mobile, with phone_not_mobile naming the param', (raw, what) => {
    const err = refusal(raw);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'invalid', code: 'phone_not_mobile', param: 'participants[0].phone' });
    expect(err.message).toContain(what);
  });

  it.each(['010-1234-567', '+999 1234', '010-abcd', '12', '+82 10 1234 56789', '010-1234-5678 ext 1', '００１０'])(
    'refuses %s, not a number, with phone_invalid naming the param',
    (raw) => {
      expect(refusal(raw, 'roles.직원.phone')).toMatchObject({ kind: 'invalid', code: 'phone_invalid', param: 'roles.직원.phone' });
    },
  );

  it('never rewrites a number by guessing: what is stored reads back as the same E.164 number', () => {
    for (const raw of ['010-1234-5678', '+82 10-9876-5432', '+1 415 555 2671', '+81 90-1234-5678']) {
      const read = readMobilePhone(raw);
      if (!read.ok) throw new Error(`${raw} refused: ${read.reason}`);
      const again = readMobilePhone(read.phone);
      expect(again).toMatchObject({ ok: true, phone: read.phone, e164: read.e164 });
    }
  });
});

describe('phoneE164: the E.164 form of a stored phone', () => {
  it.each([
    ['01012345678', '+821012345678'],
    ['0112345678', '+82112345678'],
    ['+14155552671', '+14155552671'],
    ['+819012345678', '+819012345678'],
    ['+84912345678', '+84912345678'],
    // Stored before the mobile-only rule: still a number, still said in E.164.
    ['0212345678', '+82212345678'],
    ['015881234', '+8215881234'], // 1588-1234 with the 0 once guessed in front: E.164 drops it again
  ])('reads the stored %s as %s', (stored, e164) => {
    expect(phoneE164(stored)).toBe(e164);
  });

  it('agrees with readMobilePhone for every number the rule takes', () => {
    for (const raw of ['010-1234-5678', '+82 10-9876-5432', '+1 415 555 2671', '+81 90-1234-5678', '+84 91 234 56 78']) {
      const read = readMobilePhone(raw);
      if (!read.ok) throw new Error(`${raw} refused: ${read.reason}`);
      expect(phoneE164(read.phone)).toBe(read.e164);
    }
  });

  it.each([null, undefined, '', '+9991234', '010-abcd', '0101234'])('answers null for %p: nothing, or no valid number to say', (stored) => {
    expect(phoneE164(stored)).toBeNull();
  });
});
