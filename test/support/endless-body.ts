import * as net from 'net';

export interface EndlessBodyResult {
  /** The answer's status, headers (lower-case names) and body, as far as they came. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** Body bytes written before the answer's head arrived, and in all. */
  sentAtAnswer: number | null;
  sent: number;
  /** The server closed the connection (a FIN, a reset or an error) while this client was still sending. */
  closedByServer: boolean;
}

/**
 * Sends a request whose chunked body never ends (`head`, then `filler` over and over, with a pause
 * between chunks when `pauseMs` is set) on a raw socket, and keeps sending after the answer, as a
 * client that ignores it would. Node's own HTTP client stops sending once it reads an answer that
 * says `Connection: close`, which would hide whether the server ever closes the connection itself.
 * Stops at whichever comes first: the server closes the connection, or `maxBytes` were sent
 * (then closedByServer is false: the server never cut it off).
 */
export function sendEndlessBody(options: {
  port: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  head: Buffer;
  filler: Buffer;
  pauseMs?: number;
  maxBytes: number;
}): Promise<EndlessBodyResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ port: options.port, host: '127.0.0.1', allowHalfOpen: true });
    const result: EndlessBodyResult = { status: null, headers: {}, body: '', sentAtAnswer: null, sent: 0, closedByServer: false };
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      result.closedByServer = closedByServer;
      socket.destroy();
      resolve(result);
    };
    const parse = () => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      result.status = Number(statusLine.split(' ')[1]);
      for (const line of lines) {
        const colon = line.indexOf(':');
        result.headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      result.sentAtAnswer ??= result.sent;
      const length = Number(result.headers['content-length'] ?? 0);
      result.body = received.subarray(end + 4, end + 4 + length).toString('utf8');
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      parse();
    });
    // A FIN (the answer is out) is not yet a close: the server may still be reading.
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    const chunked = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
    const send = () => {
      while (!done && !socket.destroyed) {
        if (result.sent >= options.maxBytes) return finish(false);
        const bytes = result.sent === 0 ? options.head : options.filler;
        result.sent += bytes.length;
        const more = socket.write(chunked(bytes));
        if (options.pauseMs) return void setTimeout(send, options.pauseMs);
        if (!more) return void socket.once('drain', send);
      }
    };
    socket.once('connect', () => {
      const headers = Object.entries({ ...options.headers, 'Transfer-Encoding': 'chunked', Host: `127.0.0.1:${options.port}` })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`${options.method} ${options.path} HTTP/1.1\r\n${headers}\r\n`);
      send();
    });
  });
}
