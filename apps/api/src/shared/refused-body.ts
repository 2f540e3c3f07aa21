import { NextFunction, Request, RequestHandler, Response } from 'express';
import { Socket } from 'net';

/**
 * How much of a refused request's body is still read (and thrown away) after the answer, and for
 * how long, before the server closes the connection (issue 33 §7).
 *
 * A client such as Node's `fetch` writes its whole body and only then looks at the answer; if the
 * server closes the connection while the body is still arriving, the unread bytes make the
 * kernel reset it and the client sees EPIPE instead of the 413 it was sent. So the rest of the
 * body is read off, but only up to this bound: a chunked body that never ends must not keep the
 * server reading forever. 24 MiB is more than any request this API accepts (an upload of 20 MiB
 * and its multipart framing, a 10 MB JSON body), so a client that sends a modestly oversized body
 * whole still reads its answer on a clean close; 5 seconds is long enough for a client on the same
 * network to have read a few hundred bytes of answer, and short enough that a slow drip ties up
 * nothing for long.
 */
export interface DrainBound {
  bytes: number;
  ms: number;
}
export const REFUSED_BODY_DRAIN: DrainBound = { bytes: 24 * 1024 * 1024, ms: 5_000 };

/** The request announced a body (a length or chunked transfer) and not all of it has arrived. */
export function bodyStillArriving(req: Request): boolean {
  if (req.complete || req.readableEnded) return false;
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > 0;
}

type DrainingSocket = Socket & { destroySoon?: () => void };
const draining = new WeakSet<Socket>();

/**
 * An answer is leaving while its request's body is still arriving, so the request was refused
 * early (over a size or count limit, a 4xx before the body was needed): the answer says
 * `Connection: close`, the rest of the body is read and discarded up to `bound`, and the socket is
 * closed once the answer is out and either the body ended or the bound was reached.
 *
 * Node closes a `Connection: close` socket as soon as the answer is written (`destroySoon`), which
 * would reset a connection whose client is still sending; for this socket that step only ends the
 * server's side of it (the client reads the answer and a FIN), and the socket is destroyed when the
 * drain is over. Must be called before the answer's head is written.
 */
export function drainRefusedBody(req: Request, res: Response, bound: DrainBound = REFUSED_BODY_DRAIN): void {
  const socket = req.socket as DrainingSocket | undefined;
  if (!socket || socket.destroyed || draining.has(socket)) return;
  draining.add(socket);
  if (!res.headersSent) res.setHeader('Connection', 'close');
  const destroySoon = socket.destroySoon;
  let over = false;
  let answered = false;
  let received = 0;
  // The answer is out (handed to the socket) and the drain is over: close for good.
  const close = () => {
    if (answered && over && !socket.destroyed) socket.destroy();
  };
  const finish = () => {
    if (over) return;
    over = true;
    clearTimeout(timer);
    req.removeListener('data', onData);
    close();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > bound.bytes) finish();
  };
  const timer = setTimeout(finish, bound.ms);
  // The drain never keeps a stopping process alive.
  timer.unref();
  socket.destroySoon = function (this: DrainingSocket) {
    if (over || !destroySoon) return destroySoon?.call(this);
    // The answer is written; keep reading the body until the drain is over (see above).
    this.end();
  };
  res.once('finish', () => {
    answered = true;
    close();
  });
  // The answer never made it out (the client went away): nothing is left to protect.
  res.once('close', () => {
    answered = true;
    close();
  });
  req.once('end', finish);
  req.once('close', finish);
  req.on('data', onData);
  req.resume();
}

/**
 * Express middleware that applies `drainRefusedBody` to every answer whose head is written while
 * its request's body is still arriving, whoever answers: the body parsers' 400 and 413, the upload
 * routes' 413, a 401 or 429 that never needed the body. Installed first, so it sees them all.
 */
export function boundRefusedBodies(bound: DrainBound = REFUSED_BODY_DRAIN): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const writeHead = res.writeHead as (...args: unknown[]) => Response;
    (res as unknown as { writeHead: unknown }).writeHead = function (this: Response, ...args: unknown[]) {
      if (bodyStillArriving(req)) drainRefusedBody(req, res, bound);
      return writeHead.apply(this, args);
    };
    next();
  };
}
