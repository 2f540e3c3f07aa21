import { DeliveryError, isTransientDeliveryError, withRetries } from '@dojang/notifications';

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
