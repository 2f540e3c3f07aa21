import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { isPrivateAddress, unbracketHost } from './network-address.policy';
import { parseWebhookUrl } from './webhook-url.validator';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Receivers only need to say 2xx; anything beyond this is not worth the memory. */
export const MAX_WEBHOOK_RESPONSE_BYTES = 64 * 1024;
/** What the delivery log keeps of a response body. */
export const WEBHOOK_RESPONSE_SNIPPET_CHARS = 1024;
export const WEBHOOK_USER_AGENT = 'Dojang-Webhooks/1.0';

export type WebhookDeliveryErrorCode =
  | 'invalid_url'
  | 'invalid_request'
  | 'blocked_address'
  | 'dns_error'
  | 'timeout'
  | 'tls_error'
  | 'connection_error';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface DeliverWebhookInput {
  url: string;
  /** Usually from buildWebhookHeaders; hop-by-hop and framing headers are ours to set and are dropped. */
  headers: Record<string, string>;
  body: string;
  /** Total budget for DNS, connect, TLS, request and response. */
  timeoutMs?: number;
  allowPrivateNetworks?: boolean;
  maxResponseBytes?: number;
  /** Injectable resolver (tests simulate DNS answers); defaults to the system resolver. */
  resolveHost?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface WebhookDeliveryResult {
  /** HTTP status, or null when no response arrived. A 3xx is reported as is: redirects are never followed. */
  status: number | null;
  error?: string;
  errorCode?: WebhookDeliveryErrorCode;
  durationMs: number;
  responseBodySnippet?: string;
}

/** Only 2xx acknowledges a delivery (Standard Webhooks); redirects and everything else are retried. */
export function isSuccessfulDelivery(result: Pick<WebhookDeliveryResult, 'status'>): boolean {
  return result.status !== null && result.status >= 200 && result.status < 300;
}

const BLOCKED_CODE = 'EWEBHOOK_BLOCKED_ADDRESS';
const DROPPED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect']);

class BlockedAddressError extends Error {
  readonly code = BLOCKED_CODE;
  constructor(host: string, address: string) {
    super(`refused to connect to ${host} (${address}): private, loopback or link-local address`);
  }
}

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  return dns.lookup(hostname, { all: true, verbatim: true });
}

export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** How long registration waits for DNS before accepting the URL (the connect-time check still applies). */
export const REGISTRATION_RESOLVE_TIMEOUT_MS = 2_000;

/**
 * At registration: the private, loopback or link-local address a webhook URL's host name resolves
 * to now (`127.0.0.1.nip.io`, `localtest.me`), or null. Only a courtesy that gives the integrator an
 * immediate error: names that do not resolve (yet), resolve slowly, or change their answer later
 * are accepted, and deliverWebhook's connect-time check is what protects. Literal IPs are the URL
 * policy's (validateWebhookUrl).
 */
export async function privateAddressOf(url: string, resolve: HostResolver = systemResolve, timeoutMs = REGISTRATION_RESOLVE_TIMEOUT_MS): Promise<string | null> {
  const parsed = parseWebhookUrl(url);
  if ('error' in parsed) return null;
  const host = unbracketHost(parsed.url.hostname);
  if (isIP(host)) return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolveLate) => {
    timer = setTimeout(() => resolveLate(null), timeoutMs);
    timer.unref();
  });
  try {
    const answers = await Promise.race([resolve(host).catch(() => null), late]);
    return answers?.find((a) => isPrivateAddress(a.address))?.address ?? null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `lookup` for http.request that resolves and vets the addresses in one
 * step and hands the socket exactly the vetted address. Checking at connect
 * time, rather than when the URL is registered or before the request, is what
 * defeats DNS rebinding: there is no second resolution an attacker could
 * answer differently.
 */
function guardedLookup(resolve: HostResolver, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const cb = callback as (err: NodeJS.ErrnoException | null, address: string | ResolvedAddress[], family?: number) => void;
    resolve(hostname).then(
      (resolved) => {
        const wanted = options.family === 4 || options.family === 6 ? resolved.filter((a) => a.family === options.family) : resolved;
        if (wanted.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`no address found for ${hostname}`);
          err.code = 'ENOTFOUND';
          return cb(err, '');
        }
        // Refuse the host if any answer is private, not just skip those answers:
        // a name mixing public and private records is not a receiver we should trust.
        const blocked = allowPrivate ? undefined : wanted.find((a) => isPrivateAddress(a.address));
        if (blocked) return cb(new BlockedAddressError(hostname, blocked.address), '');
        if (options.all) return cb(null, wanted);
        return cb(null, wanted[0].address, wanted[0].family);
      },
      (err: NodeJS.ErrnoException) => cb(err, ''),
    );
  };
}

function classify(err: NodeJS.ErrnoException): { errorCode: WebhookDeliveryErrorCode; error: string } {
  const code = err.code ?? '';
  if (code === BLOCKED_CODE) return { errorCode: 'blocked_address', error: err.message };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA' || code === 'EAI_FAIL') {
    return { errorCode: 'dns_error', error: `could not resolve host (${code})` };
  }
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_CERT)/.test(code) || /certificate|ssl|tls/i.test(err.message)) {
    return { errorCode: 'tls_error', error: `TLS error${code ? ` (${code})` : ''}: ${err.message}` };
  }
  return { errorCode: 'connection_error', error: code ? `${code}: ${err.message}` : err.message };
}

/**
 * POSTs one webhook. Never throws: every outcome, including refusals, comes
 * back as a result the caller records in the delivery log. Redirects are not
 * followed, because a redirect to an internal address is the classic way
 * around an SSRF filter.
 */
export function deliverWebhook(input: DeliverWebhookInput): Promise<WebhookDeliveryResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const timeoutMs = input.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const maxBytes = input.maxResponseBytes ?? MAX_WEBHOOK_RESPONSE_BYTES;
  const allowPrivate = input.allowPrivateNetworks === true;

  const parsed = parseWebhookUrl(input.url);
  if ('error' in parsed) {
    return Promise.resolve({ status: null, errorCode: 'invalid_url', error: parsed.error, durationMs: elapsed() });
  }
  const url = parsed.url;
  const host = unbracketHost(url.hostname);
  // Node connects to literal IPs without calling `lookup`, so they are vetted here.
  if (isIP(host) && !allowPrivate && isPrivateAddress(host)) {
    const err = new BlockedAddressError(host, host);
    return Promise.resolve({ status: null, errorCode: 'blocked_address', error: err.message, durationMs: elapsed() });
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) {
    if (!DROPPED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  headers['content-type'] ??= 'application/json';
  headers['user-agent'] ??= WEBHOOK_USER_AGENT;
  const payload = Buffer.from(input.body, 'utf8');
  headers['content-length'] = String(payload.length);

  return new Promise<WebhookDeliveryResult>((resolvePromise) => {
    let settled = false;
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let received = 0;
    let request: http.ClientRequest | undefined;

    const finish = (outcome: Omit<WebhookDeliveryResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request?.destroy();
      const result: WebhookDeliveryResult = { ...outcome, durationMs: elapsed() };
      if (status !== null && received > 0) {
        const text = Buffer.concat(chunks).toString('utf8');
        let end = Math.min(text.length, WEBHOOK_RESPONSE_SNIPPET_CHARS);
        // Cut before a pair, never inside it: half of one is text no store keeps (jsonb refuses it).
        if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1])) end--;
        result.responseBodySnippet = text.slice(0, end);
      }
      resolvePromise(result);
    };

    const timer = setTimeout(() => {
      // Once the status line is in, the receiver has answered; a body that
      // trickles past the budget does not turn that answer into a failure.
      if (status !== null) finish({ status });
      else finish({ status: null, errorCode: 'timeout', error: `timed out after ${timeoutMs} ms` });
    }, timeoutMs);

    const options: https.RequestOptions = {
      method: 'POST',
      protocol: url.protocol,
      hostname: host,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers,
      // A fresh agent per delivery: no pooled socket outlives the address check that opened it.
      agent: false,
      lookup: guardedLookup(input.resolveHost ?? systemResolve, allowPrivate),
    };
    try {
      request = (url.protocol === 'https:' ? https : http).request(options);
    } catch (err) {
      // e.g. a header value with a newline: the caller's bug, but still only a failed attempt.
      finish({ status: null, errorCode: 'invalid_request', error: (err as Error).message });
      return;
    }

    request.on('socket', (socket: Socket) => {
      // Backstop only: the lookup and the literal-IP check above are the real gate.
      socket.once('connect', () => {
        const remote = socket.remoteAddress;
        if (!allowPrivate && remote && isPrivateAddress(remote)) {
          request?.destroy(new BlockedAddressError(host, remote));
        }
      });
    });
    request.on('response', (response) => {
      status = response.statusCode ?? null;
      response.on('data', (chunk: Buffer) => {
        if (received >= maxBytes) return;
        const room = maxBytes - received;
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        chunks.push(part);
        received += part.length;
        if (received >= maxBytes) finish({ status });
      });
      response.on('end', () => finish({ status }));
      response.on('error', () => finish({ status }));
      response.on('aborted', () => finish({ status }));
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (status !== null) return finish({ status });
      finish({ status: null, ...classify(err) });
    });
    request.end(payload);
  });
}
