import { isIP } from 'node:net';
import { isPrivateAddress, unbracketHost } from './network-address.policy';

export interface WebhookUrlPolicy {
  /** `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`: for local development and tests only. */
  allowPrivateNetworks?: boolean;
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * Names that only ever mean "somewhere inside our network". Refusing them at
 * registration gives the integrator an immediate, clear error; the real
 * protection is still the connect-time address check in deliverWebhook, since
 * a public name can resolve to a private address later.
 */
const INTERNAL_NAME_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

/** Structural checks only (scheme, credentials, host); repeated right before each delivery. */
export function parseWebhookUrl(url: unknown): { url: URL } | { error: string } {
  if (typeof url !== 'string' || url.trim() === '') return { error: 'url is required' };
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return { error: `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: 'url is not a valid absolute URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { error: 'url must use http or https' };
  // Credentials in the URL would be stored in plain text and echoed in logs; use the signature instead.
  if (parsed.username || parsed.password) return { error: 'url must not contain credentials' };
  if (!parsed.hostname) return { error: 'url must have a host' };
  return { url: parsed };
}

/**
 * Checks a webhook URL when an endpoint is registered. Returns a message
 * suitable for an `invalid_parameter` error, or null when the URL is acceptable.
 */
export function validateWebhookUrl(url: string, policy: WebhookUrlPolicy = {}): string | null {
  const result = parseWebhookUrl(url);
  if ('error' in result) return result.error;
  if (policy.allowPrivateNetworks) return null;

  const host = unbracketHost(result.url.hostname).toLowerCase().replace(/\.$/, '');
  if (isIP(host)) {
    return isPrivateAddress(host) ? 'url must not point to a private, loopback or link-local address' : null;
  }
  if (host === 'localhost' || INTERNAL_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return 'url must not point to a local or internal host name';
  }
  // Single-label names resolve through the server's DNS search path, i.e. to internal hosts.
  if (!host.includes('.')) return 'url must use a fully qualified public host name';
  return null;
}
