import { isTransientDeliveryError } from './delivery.errors';

export interface RetryOptions {
  /** Total tries including the first. Default 3. */
  attempts?: number;
  /** Wait before the second try; doubles each time after. Default 1000 ms. */
  baseDelayMs?: number;
  /** Cap on a single wait. Default 30 s. */
  maxDelayMs?: number;
  /** Injectable so tests run without waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** Which errors are worth another try. Default {@link isTransientDeliveryError}. */
  isTransient?: (err: unknown) => boolean;
  /** Called before each wait, e.g. to log the failed attempt. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

export const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Short, in-process retries for a single send (an SMTP server's 451, a
 * Twilio 429). Long outages are not its job: the notification process manager
 * gives up here and reschedules through its durable timer instead of holding
 * a worker for minutes. Permanent errors are rethrown at once.
 */
export async function withRetries<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, Math.floor(options.attempts ?? 3));
  const baseDelayMs = options.baseDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? defaultSleep;
  const isTransient = options.isTransient ?? isTransientDeliveryError;

  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (attempt >= attempts || !isTransient(error)) throw error;
      const delayMs = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      options.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs);
    }
  }
}
