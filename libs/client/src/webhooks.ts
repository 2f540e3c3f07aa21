import type { webhooks } from './schema';

/**
 * Verifying Dojang's webhook deliveries (docs/WEBHOOKS.md): the Standard Webhooks scheme.
 * `webhook-signature` holds one or more space-separated `v1,<base64 HMAC-SHA256>` of
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64 part of the endpoint's
 * `whsec_…` secret; during a secret rotation it carries both the new and the old signature.
 *
 * Written on WebCrypto (`crypto.subtle`, global in Node 20, Deno, Bun and browsers) rather than
 * `node:crypto`, so the client runs wherever fetch does; the comparison is `subtle.verify`, which
 * is constant-time. The `standardwebhooks` package implements the same scheme and accepts the same
 * deliveries: use either.
 *
 *   const event = await verifyWebhook(process.env.DOJANG_WEBHOOK_SECRET, req.headers, rawBody);
 *   if (event.type === 'document.completed') …
 */

/** The body of one kind of delivery, e.g. `WebhookPayload<'document.completed'>`. */
export type WebhookPayload<Type extends keyof webhooks> = webhooks[Type]['post'] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;

/**
 * The body of any delivery: a public event (`GET /v1/events/{id}` answers the same), or the
 * `webhook.test` event of `POST /webhook_endpoints/{id}/test`. Narrow it on `type`.
 */
export type WebhookEvent = { [Type in keyof webhooks]: WebhookPayload<Type> }[keyof webhooks];

/** Node's `req.headers` (IncomingHttpHeaders), a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from `now` (replays are refused): default 300 s. */
  toleranceSeconds?: number | undefined;
  /** The receiver's clock (Unix seconds); default: `Date.now() / 1000`. */
  now?: number | undefined;
}

/** Thrown for every delivery that must be refused (answer it 400): the message says why. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  // Node lower-cases header names; a hand-made record may not.
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/**
 * Checks a delivery and returns its event; throws WebhookVerificationError when the headers are
 * missing, the timestamp is outside the tolerance, or no `v1` signature matches. Pass the body
 * exactly as received (the raw bytes or their UTF-8 text), before any JSON parsing.
 */
export async function verifyWebhook(secret: string, headers: WebhookHeaders, rawBody: string | Uint8Array, options: VerifyWebhookOptions = {}): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  const now = options.now ?? Date.now() / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance (a replay, or a clock off by minutes)');
  }
  const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError('the secret is not a whsec_… value from the endpoint\'s registration or rotation');
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const subtle = globalThis.crypto.subtle;
  const key = await subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const candidate of signatures.split(' ')) {
    const [version, signature = ''] = candidate.split(',');
    const given = version === 'v1' ? base64Bytes(signature) : null;
    if (given && (await subtle.verify('HMAC', key, given, signed))) {
      const event: WebhookEvent = JSON.parse(body);
      return event;
    }
  }
  throw new WebhookVerificationError('no webhook-signature matches this secret');
}
