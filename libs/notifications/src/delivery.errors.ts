/**
 * One failure vocabulary for every channel, so the notification process
 * manager can decide "retry later" versus "give up and record it" without
 * knowing whether SMTP, Twilio or something else failed.
 */
export class DeliveryError extends Error {
  readonly transient: boolean;
  readonly channel: 'email' | 'sms' | 'kakao';
  /** Provider detail: an SMTP reply code, an HTTP status, or a Twilio or SOLAPI error code. */
  readonly providerCode?: string | number;
  /** The provider's id for a message it refused (SOLAPI gives one), for the delivery evidence. */
  readonly providerMessageId?: string;

  constructor(
    message: string,
    options: { transient: boolean; channel: 'email' | 'sms' | 'kakao'; providerCode?: string | number; providerMessageId?: string; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.transient = options.transient;
    this.channel = options.channel;
    this.providerCode = options.providerCode;
    this.providerMessageId = options.providerMessageId;
  }
}

/** Network-level failures: the message never reached a server that could judge it. */
const TRANSIENT_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  // nodemailer's own codes for the same situations
  'ECONNECTION',
  'ESOCKET',
  'EDNS',
  'EMAXLIMIT',
]);

type ErrorLike = {
  code?: unknown;
  responseCode?: unknown;
  status?: unknown;
  transient?: unknown;
  cause?: unknown;
};

/**
 * True when trying again later may succeed: connection refused or reset,
 * timeouts, SMTP 4xx replies, HTTP 429 and 5xx. False for SMTP 5xx, other
 * HTTP 4xx (bad number, bad credentials) and anything unrecognised: retrying
 * a programming error only delays the alert.
 */
export function isTransientDeliveryError(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const e = err as ErrorLike;
  if (err instanceof DeliveryError) return err.transient;
  if (typeof e.responseCode === 'number') return e.responseCode >= 400 && e.responseCode < 500;
  if (typeof e.status === 'number') return e.status === 408 || e.status === 429 || e.status >= 500;
  if (typeof e.code === 'string' && TRANSIENT_ERROR_CODES.has(e.code)) return true;
  if (e.cause && e.cause !== err) return isTransientDeliveryError(e.cause);
  return false;
}
