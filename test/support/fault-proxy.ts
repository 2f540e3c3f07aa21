/**
 * A TCP proxy to put between processes and PostgreSQL, to break the connection the ways networks
 * and servers do: `down()` refuses new connections and cuts the open ones (what a stopped server
 * looks like), `drop()` cuts the open ones only (backends terminated, a server restart),
 * `stall()` stops forwarding on the open ones without closing them (a silently dead network path:
 * no FIN, no RST), and `up()` passes again. Everything it opened is closed by `close()`.
 */
import * as net from 'net';

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  stalled: boolean;
}

export interface FaultProxy {
  readonly port: number;
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url(databaseUrl: string): string;
  /** New connections are refused and open ones cut (PostgreSQL stopped). */
  down(): void;
  /** Open connections are cut; new ones pass (backends terminated, a restart that was quick). */
  drop(): void;
  /** Open connections stop carrying bytes, both ways, and stay open. New ones pass. */
  stall(): void;
  /** Back to passing everything (stalled connections stay stalled: they are dead). */
  up(): void;
  /** Connections open through the proxy now. */
  open(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let refusing = false;
  const cut = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream.destroy();
  };
  const server = net.createServer((client) => {
    if (refusing) {
      // An RST, as a port nobody listens on gives.
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair: Pair = { client, upstream, stalled: false };
    pairs.add(pair);
    const forward = (from: net.Socket, to: net.Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (!pair.stalled) to.write(chunk);
      });
      from.on('end', () => cut(pair));
      from.on('close', () => cut(pair));
      from.on('error', () => cut(pair));
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url(databaseUrl: string) {
      const u = new URL(databaseUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    down() {
      refusing = true;
      for (const pair of [...pairs]) cut(pair);
    },
    drop() {
      for (const pair of [...pairs]) cut(pair);
    },
    stall() {
      for (const pair of pairs) pair.stalled = true;
    },
    up() {
      refusing = false;
    },
    open: () => pairs.size,
    close() {
      refusing = true;
      for (const pair of [...pairs]) cut(pair);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
