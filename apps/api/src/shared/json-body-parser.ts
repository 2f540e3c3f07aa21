import { json, NextFunction, Request, RequestHandler, Response } from 'express';
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
 * one way raw-body stops early: it drops the chunks held so far, and body-parser then reads off the
 * rest of the body without keeping it (so the client, still sending, can read the 400) and passes
 * the refusal on. Every parse, charset and size rule stays body-parser's.
 */
export function countingJsonParser(options: { limit: string; limitsFor(req: Request): JsonCountLimits }): RequestHandler {
  const parser = json({
    limit: options.limit,
    verify: (req: Request, _res: Response, bytes: Buffer, encoding: string) => {
      if (countedAsRead.has(req)) return;
      assertJsonCounts(/^utf-?8$/i.test(encoding) ? bytes : Buffer.from(new TextDecoder(encoding).decode(bytes), 'utf8'), options.limitsFor(req));
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    let settled = false;
    let onData: ((chunk: Buffer) => void) | undefined;
    parser(req, res, (err?: unknown) => {
      settled = true;
      if (onData) req.removeListener('data', onData);
      next(err);
    });
    // Only while body-parser is reading this body (it marks the request and has attached its reader
    // synchronously); a body it passed over stays unread for the parsers after it.
    if (settled || !(req as Request & { _body?: boolean })._body || !countableAsRead(req)) return;
    countedAsRead.add(req);
    const counter = new JsonCounter(options.limitsFor(req));
    onData = (chunk: Buffer) => {
      try {
        counter.write(chunk);
      } catch (err) {
        req.removeListener('data', onData!);
        // raw-body listens for 'error' until it is done; if it already is (the body went over the
        // byte limit in this same chunk, a 413 on its way), there is nobody to tell, and an 'error'
        // event nobody listens to would throw.
        if (req.listenerCount('error') > 0) req.emit('error', err);
      }
    };
    req.on('data', onData);
  };
}
