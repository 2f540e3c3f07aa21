import { DeliveryError, InvalidPhoneNumberError, isTransientDeliveryError, toE164, withRetries } from '@dojang/notifications';

const transient = () => new DeliveryError('try later', { transient: true, channel: 'email' });
const permanent = () => new DeliveryError('no such user', { transient: false, channel: 'email' });

describe('withRetries', () => {
  it('retries transient errors with doubling delays, without real waiting', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const result = await withRetries(
      async (attempt) => {
        calls += 1;
        if (attempt < 4) throw transient();
        return 'sent';
      },
      { attempts: 4, baseDelayMs: 100, sleep: async (ms) => void sleeps.push(ms) },
    );
    expect(result).toBe('sent');
    expect(calls).toBe(4);
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('rethrows a permanent error at once and the last transient one when attempts run out', async () => {
    const sleep = jest.fn(async () => undefined);
    const perm = permanent();
    await expect(withRetries(async () => Promise.reject(perm), { attempts: 5, sleep })).rejects.toBe(perm);
    expect(sleep).not.toHaveBeenCalled();

    let calls = 0;
    await expect(
      withRetries(
        async () => {
          calls += 1;
          throw transient();
        },
        { attempts: 3, baseDelayMs: 10, maxDelayMs: 15, sleep },
      ),
    ).rejects.toThrow('try later');
    expect(calls).toBe(3);
    expect(sleep.mock.calls).toEqual([[10], [15]]);
  });
});

describe('isTransientDeliveryError', () => {
  it.each([
    [{ responseCode: 421 }, true],
    [{ responseCode: 451, code: 'EMESSAGE' }, true],
    [{ responseCode: 550, code: 'EENVELOPE' }, false],
    [{ responseCode: 535, code: 'EAUTH' }, false],
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: 'ETIMEDOUT' }, true],
    [{ code: 'ECONNECTION' }, true],
    [{ status: 429, code: 20429 }, true],
    [{ status: 500 }, true],
    [{ status: 503 }, true],
    [{ status: 400, code: 21211 }, false],
    [{ status: 401 }, false],
    [new Error('boom', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }), true],
    [new TypeError('bug'), false],
    ['string', false],
    [null, false],
  ])('%p → %p', (err, expected) => {
    expect(isTransientDeliveryError(err)).toBe(expected);
  });
});

describe('toE164', () => {
  it.each([
    ['01012345678', '+821012345678'],
    ['010-1234-5678', '+821012345678'],
    [' 010 1234 5678 ', '+821012345678'],
    ['0212345678', '+82212345678'],
    ['021234567', '+8221234567'],
    ['0111234567', '+82111234567'],
    ['821012345678', '+821012345678'],
    ['+82 10-1234-5678', '+821012345678'],
    ['+15005550006', '+15005550006'],
  ])('%s → %s', (input, expected) => {
    expect(toE164(input)).toBe(expected);
  });

  it.each(['', '12', '1588-1234', '00182101234567', '+8201012345678', '010123456789012', 'abc', '010-1234-567a'])('rejects %p', (input) => {
    expect(() => toE164(input)).toThrow(InvalidPhoneNumberError);
  });
});
