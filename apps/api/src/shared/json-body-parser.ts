import { json, NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from './api-error';
import { assertJsonCounts, JsonCounter, JsonCountLimits } from './json-count-guard';

/** Requests whose body was counted chunk by chunk as it arrived, so verify need not count it again. */
const countedAsRead = new WeakSet<Request>();

/**
 * Bodies the counter can read as they arrive: bytes of UTF-8 (or ASCII) JSON as sent. A compressed
 * body's bytes on the wire are not its JSON, and UTF-16 or UTF-32 ones are not byte-compatible with
 * it; those are counted whole by `verify` after the parser has read them (as every body was before).
 */
function countableAsRead(req: Request): boolean {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  return encoding === 'identity' && !/charset\s*=\s*"?\s*utf-?(16|32)/i.test(req.headers['content-type'] ?? '');
}

/**
 * express.json (body-parser) with the body's elements counted as its chunks arrive (issue 33 §9,
 * §10): a 9 MB body of three million empty objects is refused at its 1,001st element, in its first
 * 64 KiB chunk, instead of being buffered whole, copied into one 9 MB Buffer and then counted.
 *
 * body-parser has no hook between chunks, and a second reader of the request would take chunks from
 * it, so the counter listens to the same 'data' events as body-parser's reader (raw-body) and, at the
 * first element over the limits, hands the refusal to that reader as the stream's 'error' event, the
 * one way raw-body stops early: it drops the chunks held so far. The 400 is answered at once
 * (answeringAtRefusal below), and the rest of the body is read off without being kept, within a
 * bound, so the client, still sending, can read it (refused-body.ts). Every parse, charset and size
 * rule stays body-parser's.
 */
export function countingJsonParser(options: { limit: string; limitsFor(req: Request): JsonCountLimits }): RequestHandler {
  const parser = json({
    limit: options.limit,
    verify: (req: Request, _res: Response, bytes: Buffer, encoding: string) => {
      if (countedAsRead.has(req)) return;
      assertJsonCounts(/^utf-?8$/i.test(encoding) ? bytes : Buffer.from(new TextDecoder(encoding).decode(bytes), 'utf8'), options.limitsFor(req));
    },
  });
  return answeringAtRefusal(parser, options.limit, (req) => {
    // Only a body of UTF-8 bytes as sent is counted as it arrives (see countableAsRead).
    if (!countableAsRead(req)) return null;
    countedAsRead.add(req);
    const counter = new JsonCounter(options.limitsFor(req));
    return (chunk) => counter.write(chunk);
  });
}

/** Bytes in a body-parser limit such as '10mb' or '1mb' (its own units: 1mb is 1,048,576 bytes). */
export function limitBytes(limit: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb)$/i.exec(limit.trim());
  if (!m) throw new Error(`Unsupported body limit: ${limit}`);
  return Math.floor(Number(m[1]) * { b: 1, kb: 1024, mb: 1024 * 1024 }[m[2].toLowerCase() as 'b' | 'kb' | 'mb']);
}

function tooLarge(): ApiError {
  return new ApiError(413, 'invalid_request_error', 'request_too_large', 'The request body is too large.');
}

/**
 * A body-parser parser whose refusals are answered when they are known, not when the body ends.
 *
 * body-parser answers a refusal (over its byte limit, or an element count over the limits) only
 * after reading the rest of the body off, however long that takes: a 9 MB body refused in its
 * first chunk waited for all 9 MB to arrive, and a chunked body that never ends was never answered
 * at all (issue 33 §7). Here the refusal goes to `next` at once; body-parser's own read-off goes on
 * but its late answer is dropped, and the rest of the body is read off within a bound
 * (refused-body.ts, which closes the connection after it). Refused at once, by the bytes as sent:
 * a declared Content-Length over the limit, more bytes than the limit (a compressed body too: its
 * inflated size is body-parser's to judge, but no body is read past the limit on the wire), and
 * whatever `inspect` throws for a chunk.
 */
export function answeringAtRefusal(parser: RequestHandler, limit: string, inspect: (req: Request) => ((chunk: Buffer) => void) | null = () => null): RequestHandler {
  const maxBytes = limitBytes(limit);
  return (req: Request, res: Response, next: NextFunction) => {
    let settled = false;
    let onData: ((chunk: Buffer) => void) | undefined;
    const settle = (err?: unknown) => {
      if (settled) return;
      settled = true;
      if (onData) req.removeListener('data', onData);
      next(err);
    };
    parser(req, res, settle);
    // Only while body-parser is reading this body (it marks the request and has attached its reader
    // synchronously); a body it passed over stays unread for the parsers after it.
    if (settled || !(req as Request & { _body?: boolean })._body) return;
    const declared = Number(req.headers['content-length']);
    // An uncompressed body: body-parser has refused it already (raw-body checks the declared length
    // first) and is reading the whole body off before it says so. A compressed one is held to the
    // limit on the wire too; body-parser inflates what arrives of it until its own limit stops it.
    if (Number.isFinite(declared) && declared > maxBytes) return settle(tooLarge());
    const check = inspect(req);
    let received = 0;
    onData = (chunk: Buffer) => {
      received += chunk.length;
      try {
        if (received > maxBytes) throw tooLarge();
        check?.(chunk);
      } catch (err) {
        req.removeListener('data', onData!);
        // Stops body-parser's reader (raw-body) holding chunks: an 'error' is the one way it stops
        // early. If it is already done (it saw the byte limit in this same chunk), there is nobody
        // to tell, and an 'error' event nobody listens to would throw.
        if (req.listenerCount('error') > 0) req.emit('error', err);
        settle(err);
      }
    };
    req.on('data', onData);
  };
}
