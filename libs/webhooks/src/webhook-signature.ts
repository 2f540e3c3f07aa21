import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks (https://www.standardwebhooks.com/) signing: integrators can
 * verify our deliveries with any of the spec's reference libraries, so the
 * byte layout here must match the spec exactly.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The spec's recommended replay window. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface SignWebhookInput {
  /** `whsec_<base64>`; a bare base64 secret is accepted too, as the reference libraries do. */
  secret: string;
  id: string;
  /** Unix time in seconds. */
  timestamp: number;
  /** The exact bytes that go on the wire: re-serialising JSON would break the signature. */
  body: string;
}

/** A new endpoint secret: 24 random bytes (192 bits), inside the spec's 24–64 byte range. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');
}

export function decodeWebhookSecret(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError('webhook secret is required');
  }
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  // Buffer.from silently skips junk, so check the alphabet first: a typo in a
  // secret must fail loudly, not sign with a different key.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new TypeError('webhook secret is not valid base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new TypeError('webhook secret is empty');
  return key;
}

function assertTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError('webhook timestamp must be a non-negative integer number of seconds');
  }
}

function assertId(id: string): void {
  // The id is part of the signed content joined with '.', and goes into a header.
  if (typeof id !== 'string' || id.length === 0 || /[\r\n]/.test(id)) {
    throw new TypeError('webhook id must be a non-empty single-line string');
  }
}

function rawSignature(key: Buffer, id: string, timestamp: number | string, body: string): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
}

/** Returns `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signWebhook(input: SignWebhookInput): string {
  assertId(input.id);
  assertTimestamp(input.timestamp);
  return `v1,${rawSignature(decodeWebhookSecret(input.secret), input.id, input.timestamp, input.body)}`;
}

export interface BuildWebhookHeadersInput extends Omit<SignWebhookInput, 'secret'> {
  /**
   * Several secrets while an endpoint's secret is being rotated: the receiver
   * accepts the delivery if any one of the space-separated signatures matches.
   */
  secret: string | readonly string[];
}

/** The three Standard Webhooks headers plus the content type of the JSON body. */
export function buildWebhookHeaders(input: BuildWebhookHeadersInput): Record<string, string> {
  const secrets = typeof input.secret === 'string' ? [input.secret] : [...input.secret];
  if (secrets.length === 0) throw new TypeError('at least one webhook secret is required');
  const signature = secrets
    .map((secret) => signWebhook({ secret, id: input.id, timestamp: input.timestamp, body: input.body }))
    .join(' ');
  return {
    'content-type': 'application/json',
    [WEBHOOK_ID_HEADER]: input.id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(input.timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signature,
  };
}

export type WebhookHeaderBag =
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

function headerValue(headers: WebhookHeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const bag = headers as Record<string, string | string[] | undefined>;
  // Node lower-cases incoming header names, but hand-built objects may not.
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  if (key === undefined) return undefined;
  const value = bag[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

export interface VerifyWebhookInput {
  secret: string;
  headers: WebhookHeaderBag;
  body: string;
  /** Defaults to 5 minutes. */
  toleranceSeconds?: number;
  /** Injected so tests and replays do not depend on the wall clock. */
  now?: Date;
}

export interface VerifiedWebhook {
  id: string;
  timestamp: number;
}

/**
 * Throws {@link WebhookVerificationError} unless one of the `v1` signatures in
 * `webhook-signature` matches and the timestamp is within the tolerance.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifiedWebhook {
  const id = headerValue(input.headers, WEBHOOK_ID_HEADER);
  const timestampHeader = headerValue(input.headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatureHeader = headerValue(input.headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d{1,15}$/.test(timestampHeader)) {
    throw new WebhookVerificationError('invalid webhook-timestamp header');
  }
  const timestamp = Number(timestampHeader);
  const tolerance = input.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  // Both directions: a timestamp far in the future would otherwise stay
  // replayable for as long as it is "in the future".
  if (timestamp < nowSeconds - tolerance) throw new WebhookVerificationError('webhook timestamp too old');
  if (timestamp > nowSeconds + tolerance) throw new WebhookVerificationError('webhook timestamp too new');

  // Sign the header text as received, not the parsed number, so that what we
  // check is exactly what the sender signed.
  const expected = Buffer.from(rawSignature(decodeWebhookSecret(input.secret), id, timestampHeader, input.body), 'utf8');
  for (const candidate of signatureHeader.split(' ')) {
    const comma = candidate.indexOf(',');
    if (comma < 0 || candidate.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(candidate.slice(comma + 1), 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      return { id, timestamp };
    }
  }
  throw new WebhookVerificationError('no matching webhook signature');
}

/** Boolean form of {@link verifyWebhook} for callers that do not need the reason. */
export function isValidWebhook(input: VerifyWebhookInput): boolean {
  try {
    verifyWebhook(input);
    return true;
  } catch (err) {
    if (err instanceof WebhookVerificationError || err instanceof TypeError) return false;
    throw err;
  }
}
