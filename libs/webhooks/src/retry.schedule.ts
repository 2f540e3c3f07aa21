const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Delay before the retry that follows failed attempt n (index n - 1). Spread
 * over about three days so that a receiver that is down over a weekend still
 * gets its events, while an early blip is retried within seconds.
 */
export const WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** The first attempt plus one per scheduled retry. */
export const MAX_WEBHOOK_ATTEMPTS = WEBHOOK_RETRY_SCHEDULE_MS.length + 1;

/** ±10 %: spreads the retries of many deliveries that failed together (e.g. one receiver outage). */
export const WEBHOOK_RETRY_JITTER = 0.1;

/**
 * How long to wait after attempt number `attempt` (1 = the first delivery)
 * failed, or null when that was the last attempt and the delivery is failed.
 * `random` returns a number in [0, 1), like Math.random; inject a fixed one in tests.
 */
export function nextRetryDelayMs(attempt: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  }
  const base = WEBHOOK_RETRY_SCHEDULE_MS[attempt - 1];
  if (base === undefined) return null;
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(base * (1 + (r * 2 - 1) * WEBHOOK_RETRY_JITTER));
}

/**
 * 410 Gone is the receiver telling us the endpoint no longer exists
 * (Standard Webhooks); retrying it for three days would only be noise.
 */
export function shouldDisableEndpoint(status: number | null | undefined): boolean {
  return status === 410;
}
