import { MAX_WEBHOOK_ATTEMPTS, nextRetryDelayMs, shouldDisableEndpoint, WEBHOOK_RETRY_SCHEDULE_MS } from '@dojang/webhooks';

describe('webhook retry schedule', () => {
  const expected = [5e3, 300e3, 1800e3, 7200e3, 18000e3, 36000e3, 50400e3, 72000e3, 86400e3];

  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h without jitter at random = 0.5', () => {
    expect(WEBHOOK_RETRY_SCHEDULE_MS).toEqual(expected);
    expect(expected.map((_, i) => nextRetryDelayMs(i + 1, () => 0.5))).toEqual(expected);
    expect(MAX_WEBHOOK_ATTEMPTS).toBe(10);
  });

  it('stays within ±10 % jitter', () => {
    expected.forEach((base, i) => {
      expect(nextRetryDelayMs(i + 1, () => 0)).toBe(Math.round(base * 0.9));
      expect(nextRetryDelayMs(i + 1, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * 1.1));
      expect(nextRetryDelayMs(i + 1, () => 0.999999)).toBeGreaterThan(base * 1.099);
      for (let n = 0; n < 50; n++) {
        const d = nextRetryDelayMs(i + 1)!;
        expect(d).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
        expect(d).toBeLessThanOrEqual(Math.ceil(base * 1.1));
      }
    });
  });

  it('gives up after the last scheduled retry', () => {
    expect(nextRetryDelayMs(9, () => 0.5)).toBe(86400e3);
    expect(nextRetryDelayMs(10, () => 0.5)).toBeNull();
    expect(nextRetryDelayMs(11, () => 0.5)).toBeNull();
    expect(() => nextRetryDelayMs(0)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1.5)).toThrow(RangeError);
  });

  it('disables an endpoint only on 410 Gone', () => {
    expect(shouldDisableEndpoint(410)).toBe(true);
    for (const status of [200, 302, 400, 404, 429, 500, 503, null]) expect(shouldDisableEndpoint(status)).toBe(false);
  });
});
