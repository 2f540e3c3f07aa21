import { createHash } from 'crypto';
import { Clock, Infrastructure, isStoreUnavailable } from '@dojang/application';
import { NextFunction, Request, Response } from 'express';
import { requestApiKey, roleMayUseMethod } from '../rate-limit/request-auth';
import { isSigningLinkPath } from '../rate-limit/signing-link-path';
import { ErrorCode, ErrorType } from '../shared/error-codes';
import { REFUSED_BODY_DRAIN, bodyStillArriving, drainRefusedBody } from '../shared/refused-body';
import {
  IDEMPOTENCY_KEYS,
  IDEMPOTENCY_RENEW_MS,
  IdempotencyStore,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  StoredResponse,
  canonicalJson,
  fingerprintOf,
} from './idempotency.store';
import { IdempotentRequest, idempotencySeed, requestEventIds } from './idempotent-creation';

type Req = Request & { requestId?: string; _body?: boolean; idempotency?: IdempotentRequest };

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function sendError(req: Req, res: Response, status: number, type: ErrorType, code: ErrorCode, message: string, param?: string) {
  res.status(status).json({ error: { type, code, message, ...(param ? { param } : {}), request_id: req.requestId } });
}

function replay(res: Response, stored: StoredResponse) {
  res.status(stored.status);
  if (stored.content_type) res.setHeader('Content-Type', stored.content_type);
  res.setHeader('Idempotent-Replayed', 'true');
  res.end(Buffer.from(stored.body_base64, 'base64'));
}

/**
 * The fingerprint of a body the parsers left alone (a multipart upload): its bytes, with the
 * multipart boundary (random per request in most clients) replaced by a constant.
 */
function rawFingerprint(req: Request, method: string, path: string, body: Buffer): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}\n`);
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(String(req.headers['content-type'] ?? ''));
  const marker = boundary ? Buffer.from(boundary[1] ?? boundary[2]) : null;
  if (!marker || marker.length === 0) return hash.update(body).digest('hex');
  let at = 0;
  for (let i = body.indexOf(marker); i !== -1; i = body.indexOf(marker, at)) {
    hash.update(body.subarray(at, i)).update('BOUNDARY');
    at = i + marker.length;
  }
  return hash.update(body.subarray(at)).digest('hex');
}

/**
 * Uploads are refused past 20 MB; a body larger than this is never kept in memory whole, nor
 * fingerprinted: its key is given back rather than kept (see `settle`), so no stored fingerprint
 * is ever of a larger body, and a retry whose body passes this many bytes is known not to match
 * without reading further.
 */
const MAX_COLLECTED_BYTES = 20 * 1024 * 1024 + 64 * 1024;

/** A body as collected: its bytes, or null past MAX_COLLECTED_BYTES; `read`: bytes seen so far. */
interface Collected {
  body: Buffer | null;
  read: number;
}

/**
 * Collects a body as it flows (to whoever reads it, or to the comparison of a repeat). Settles as
 * soon as the body passes MAX_COLLECTED_BYTES (null), or when it ends; it never reads on its own
 * past that (issue 33 §6-7: a repeat whose chunked body never ends is answered, not read forever).
 */
function collect(req: Request): Promise<Collected> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (req.headers['transfer-encoding'] === undefined && Number.isFinite(declared) && declared > MAX_COLLECTED_BYTES) {
      return resolve({ body: null, read: 0 });
    }
    const chunks: Buffer[] = [];
    let read = 0;
    let settled = false;
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read <= MAX_COLLECTED_BYTES) return void chunks.push(chunk);
      settled = true;
      chunks.length = 0;
      req.removeListener('data', onData);
      resolve({ body: null, read });
    };
    req.on('data', onData);
    const done = () => {
      if (settled) return;
      settled = true;
      resolve({ body: Buffer.concat(chunks), read });
    };
    req.on('end', done);
    req.on('close', done);
    req.on('error', reject);
  });
}

/**
 * Stripe-style idempotency for every POST made with an API key and an `Idempotency-Key` header:
 * the key is scoped to the API key that sent it (so to its organization and mode too); the first
 * request's response (any non-5xx, except a 401 or 403 refusal of the caller) is
 * kept 24 hours and replayed with `Idempotent-Replayed: true` to a repeat of the same request
 * (method, path and canonical JSON body); the same key with a different request is 400
 * idempotency_key_reused, and while the first is still running 409 idempotency_key_in_use with
 * `Retry-After`. A 5xx releases the key so a retry runs again, except 503 write_outcome_unknown
 * (kept: the write may have landed). A retry that runs again after its first attempt wrote (the
 * settle lost with a dropped connection, a read after the write that failed) cannot create twice:
 * the ids a route makes up derive from the key (idempotent-creation.ts).
 *
 * Runs after the body parsers. A body they did not parse (multipart uploads) is fingerprinted from
 * its bytes as the route reads them.
 */
export function idempotencyMiddleware(infra: Infrastructure, clock: Clock) {
  const store = new IdempotencyStore(infra.reads, clock);
  let sinceSweep = 0;
  // Prepared at boot when the store answers. A failure (the store down at boot) must not kill the
  // process as an unhandled rejection, nor stick: the next request that needs keys tries again.
  let prepared: Promise<void> | null = null;
  const prepare = () =>
    (prepared ??= infra.reads.ensureCollection({ name: IDEMPOTENCY_KEYS, indexes: [['expires_at']] }).catch((err) => {
      prepared = null;
      throw err;
    }));
  prepare().catch((err) => {
    if (infra.config.logLevel !== 'silent') console.error('idempotency: keys collection not ready, retrying on first use:', (err as Error).message);
  });

  return (req: Req, res: Response, next: NextFunction) => {
    const header = req.headers['idempotency-key'];
    // Signing links act on the link's token whatever key comes along: a stored answer could outlive
    // the link (a resend revokes it), so nothing there is replayed.
    if (req.method !== 'POST' || header === undefined || isSigningLinkPath(req.url)) return next();
    void (async () => {
      // A lookup that fails rejects (503 below), never reads as "no key".
      const auth = await requestApiKey(infra, req);
      // Without a valid key the guard answers 401; public routes (signing links) have no key scope.
      // A key whose role refuses the request (an auditor's POST) gets the guard's 403 before any
      // replay: a stored response could hold signing links.
      if (!auth || !roleMayUseMethod(auth.role, req.method)) return next();
      const key = Array.isArray(header) ? header[0] : header;
      if (!key || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        return sendError(req, res, 400, 'invalid_request_error', 'invalid_parameter', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`, 'Idempotency-Key');
      }
      if (++sinceSweep >= 1000) {
        sinceSweep = 0;
        void store.sweep().catch(() => undefined);
      }
      // A stored response belongs to the key that made it: another key, even of the same
      // organization and mode, neither sees it nor learns that the key was used.
      const scope = `${auth.organization_id}:${auth.mode}:${auth.key_id}`;
      const path = req.url;
      const parsed = Boolean(req._body) || !hasBody(req);
      const fingerprint = parsed ? fingerprintOf(req.method, path, canonicalJson(req.body ?? {})) : null;

      try {
        await prepare();
      } catch {
        res.setHeader('Retry-After', '1');
        return sendError(req, res, 503, 'api_error', 'service_unavailable', 'The service cannot reach its store right now. Retry shortly with the same Idempotency-Key.');
      }
      const begin = await store.begin(scope, key, fingerprint);
      switch (begin.kind) {
        case 'replay':
          return replay(res, begin.response);
        case 'compare': {
          const body = collect(req);
          req.resume();
          const { body: bytes, read } = await body;
          if (bytes !== null && rawFingerprint(req, req.method, path, bytes) === begin.fingerprint) return replay(res, begin.response);
          // Larger than any stored body, or another body: refused. If it is still arriving, what
          // was read to compare counts against the refused-body bound, which then reads off (a
          // client that sends its whole body first still reads this answer) and closes.
          if (bodyStillArriving(req)) drainRefusedBody(req, res, { ...REFUSED_BODY_DRAIN, bytes: Math.max(0, REFUSED_BODY_DRAIN.bytes - read) });
          return sendError(req, res, 400, 'idempotency_error', 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request. Use a new key for a new request.', 'Idempotency-Key');
        }
        case 'reused':
          return sendError(req, res, 400, 'idempotency_error', 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request. Use a new key for a new request.', 'Idempotency-Key');
        case 'in_flight':
          // A real client retries later; when is known: by the holder's lease at the latest.
          res.setHeader('Retry-After', String(Math.min(Math.max(1, Math.ceil(begin.retryAfterMs / 1000)), 30)));
          return sendError(req, res, 409, 'idempotency_error', 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed. Retry after it has finished.', 'Idempotency-Key');
        case 'proceed':
          break;
      }
      // Ids the route makes up derive from the key: a retry that runs again (the first attempt's
      // settle lost) names the same document and is answered with it (idempotent-creation.ts).
      const seed = idempotencySeed(scope, key, begin.generation, fingerprint);
      const replayed = () => {
        if (!res.headersSent) res.setHeader('Idempotent-Replayed', 'true');
      };
      req.idempotency = { seed, replayed, events: requestEventIds(seed, replayed) };
      // While the route runs, its claim is renewed: a short lease then tells a request that is over
      // (its settle and release both lost) from a slow one still holding the key.
      // One write to the claim at a time: a renewal racing the settle would move the row's version
      // under it, and the settle (a compare-and-swap) would be lost.
      let renewing: Promise<unknown> = Promise.resolve();
      const renewal = setInterval(() => {
        renewing = renewing.then(() => store.renew({ id: begin.id, lock: begin.lock, version: begin.version })).catch(() => undefined);
      }, IDEMPOTENCY_RENEW_MS);
      renewal.unref();
      res.on('close', () => clearInterval(renewal));

      // A streamed body is fingerprinted from the bytes the route reads.
      let streamed: Promise<string | null> | null = null;
      if (!parsed) {
        streamed = collect(req).then(({ body }) => (body === null ? null : rawFingerprint(req, req.method, path, body)));
        req.pause();
      }

      // Capture what is sent; the result is stored before the response leaves, so a retry that
      // arrives once the client has the answer always finds it.
      const chunks: Buffer[] = [];
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      const toBuffer = (chunk: unknown, encoding?: unknown) =>
        Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding) : chunk instanceof Uint8Array ? Buffer.from(chunk) : null;
      (res as unknown as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
        const b = toBuffer(chunk, rest[0]);
        if (b) chunks.push(b);
        return write(chunk, ...rest);
      };
      let ending = false;
      (res as unknown as { end: unknown }).end = (...args: unknown[]) => {
        if (ending) return end(...args);
        ending = true;
        const chunk = typeof args[0] === 'function' ? undefined : args[0];
        const b = chunk === undefined || chunk === null ? null : toBuffer(chunk, args[1]);
        if (b) chunks.push(b);
        const claim = { id: begin.id, lock: begin.lock, version: begin.version };
        clearInterval(renewal);
        const settle = async () => {
          await renewing;
          // A refusal of the caller (401, 403) says nothing about the request: never kept. A 5xx gives
          // the key back for a retry, except a write whose outcome is unknown: it may have landed, so
          // the key keeps that answer and a retry can never apply it twice.
          if (res.statusCode === 401 || res.statusCode === 403) return throughDroppedConnections(() => store.release(claim));
          if (res.statusCode >= 500 && res.locals.writeOutcomeUnknown !== true) return throughDroppedConnections(() => store.release(claim));
          let fp = fingerprint;
          if (fp === null) {
            // The route answered without reading the whole body, or a body too large to keep:
            // nothing to compare a retry with (a retry runs again, its ids derived from the key).
            const done = await Promise.race([streamed as Promise<string | null>, Promise.resolve(null)]);
            if (done === null) return throughDroppedConnections(() => store.release(claim));
            fp = done;
          }
          const contentType = res.getHeader('content-type');
          const stored = { status: res.statusCode, content_type: contentType === undefined ? null : String(contentType), body_base64: Buffer.concat(chunks).toString('base64') };
          // The write this answer reports has (or may have) landed: if the key lost it, the claim
          // would lapse and a retry run the write again. A connection that drops here (a backend
          // terminated under the same fault that cut the write) is retried on a fresh one.
          return throughDroppedConnections(() => store.complete(claim, fp, stored));
        };
        settle()
          .catch((err) => console.error(`[${req.requestId}] idempotency: could not store the result`, err))
          .finally(() => end(...args));
        return res;
      };
      next();
    })().catch((err) => {
      // The key could not be looked up or claimed: nothing ran, and nothing may run without the
      // claim (a pass-through would run the route with ids no retry can meet again). 503, so the
      // client retries with the same key; a failure that is not the store's is logged as a bug.
      if (res.headersSent) return next(err);
      if (!isStoreUnavailable(err) && !isStoreUnavailable((err as { cause?: unknown })?.cause)) console.error(`[${req.requestId}] idempotency:`, err);
      res.setHeader('Retry-After', '5');
      return sendError(req, res, 503, 'api_error', 'service_unavailable', 'The service cannot reach its store right now. Retry shortly with the same Idempotency-Key.');
    });
  };
}

/**
 * A key's claim is settled (completed or released) through a dropped connection, retried on a
 * fresh one for a few seconds: a claim the store lost would hold the key `in_flight` for its whole
 * lease, or let a retry run a landed write again.
 */
async function throughDroppedConnections<T>(settle: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await settle();
    } catch (err) {
      if (attempt >= 6 || !isStoreUnavailable(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
}
