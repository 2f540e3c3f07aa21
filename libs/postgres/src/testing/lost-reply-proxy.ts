import * as net from 'net';

export type LostReplyFault =
  /** The query carrying COMMIT reaches the server and runs; its answer never comes back. */
  | 'lose-commit-reply'
  /** The query carrying COMMIT never reaches the server: the connection drops as it is sent. */
  | 'drop-before-commit';

/**
 * A TCP proxy in front of PostgreSQL for the one fault a driver cannot simulate: a connection
 * that dies around a COMMIT. `arm(fault)` applies to the next client message containing `COMMIT`
 * on any connection; then both sides are cut (after the server has answered, for
 * 'lose-commit-reply'), so the server's session ends as it does when a network drops.
 */
export async function lostReplyProxy(serverUrl: string): Promise<{
  url: string;
  /** With `thenRefuse`, every connection is cut and new ones refused once the fault fires, until `restore()`. */
  arm(fault: LostReplyFault, options?: { thenRefuse?: boolean }): void;
  restore(): void;
  /** How many faults fired. */
  fired(): number;
  close(): Promise<void>;
}> {
  const target = new URL(serverUrl);
  let armed: LostReplyFault | null = null;
  let refuseAfter = false;
  let refusing = false;
  let fired = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let cutAfterReply = false;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    const fire = () => {
      cut();
      if (!refuseAfter) return;
      refusing = true;
      for (const s of sockets) s.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.includes('COMMIT')) {
        const fault = armed;
        armed = null;
        fired++;
        if (fault === 'drop-before-commit') return fire();
        cutAfterReply = true;
      }
      upstream.write(chunk);
    });
    let reply = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      if (!cutAfterReply) {
        client.write(chunk);
        return;
      }
      // Swallow the answer; cut once the server has said COMMIT (or refused).
      reply = Buffer.concat([reply, chunk]);
      if (reply.includes('COMMIT\u0000') || reply.includes('ROLLBACK\u0000')) fire();
    });
    for (const s of [client, upstream]) {
      s.on('error', cut);
      s.on('close', () => {
        sockets.delete(s);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    arm(fault, options = {}) {
      armed = fault;
      refuseAfter = options.thenRefuse ?? false;
    },
    restore() {
      refusing = false;
    },
    fired: () => fired,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
