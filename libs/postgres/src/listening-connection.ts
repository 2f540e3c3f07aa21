import { hostname } from 'node:os';
import { Client, ClientConfig } from 'pg';

export interface ListeningConnectionOptions {
  /** The server to connect to (the pool's settings, usually). */
  config: ClientConfig;
  /** The NOTIFY channel to LISTEN on. */
  channel: string;
  /**
   * The role of the connection in `pg_stat_activity`; the host and process id are appended, so an
   * operator can tell which process holds what (`dojang-projector-seat/web-1/4242`).
   */
  role: string;
  /** Each notification's payload, as sent. */
  onNotification: (payload: string | undefined) => void;
  /**
   * Runs on each new connection once it listens, before it counts as up: what committed while
   * nobody listened is read here. Throwing counts as a failed connection (closed, retried).
   */
  prepare?: (client: Client) => Promise<void>;
  /** The connection is up (and `client` is it). */
  up?: (client: Client) => Promise<void> | void;
  /** The connection that was up is gone; called before the reconnect is scheduled. */
  lost?: () => void;
  /** Any failure (a connect that failed or a connection lost), with the wait before the next try. */
  down?: (error: Error, retryInMs: number) => void;
  /** First wait before reconnecting; doubled per failure (default 250 ms). */
  reconnectDelayMs?: number;
  /** Upper bound of the reconnect back-off (default 10 s). */
  maxReconnectDelayMs?: number;
  /** Liveness: how often the connection is pinged while up (default 2 s; 0: never). */
  pingMs?: number;
  /** A ping not answered within this is a dead connection: it is dropped and replaced (default 5 s). */
  pingTimeoutMs?: number;
  /**
   * The server ends this session when it stays idle this long (`idle_session_timeout`, PostgreSQL
   * 14+; default 3 pings). The pings keep a live process's session busy enough; a process that is
   * frozen (SIGSTOP, a VM paused) stops pinging and the server ends its session, and with it
   * whatever lives with the session (the projector seat's advisory lock), within seconds rather
   * than never: TCP keep-alive cannot tell a stopped process, whose kernel still answers.
   */
  idleSessionTimeoutMs?: number;
}

export const DEFAULT_PING_MS = 2000;

/** `application_name` is cut by the server at 63 bytes; cut it ourselves so the pid survives. */
export function applicationName(role: string, pid = process.pid, host = hostname()): string {
  const tail = `/${pid}`;
  const head = `${role}/${host}`;
  return head.slice(0, 63 - tail.length) + tail;
}

/**
 * A dedicated connection that LISTENs on one channel and keeps doing so: a connection that fails
 * or drops is closed and replaced after a back-off that doubles up to a bound, for as long as the
 * owner has not closed it. Notifications need a session of their own (a pooled connection would
 * LISTEN for whichever request happened to check it out), and a session can hold what only lives
 * as long as it does, such as a session-level advisory lock.
 */
export class ListeningConnection {
  private current: Client | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private delay: number;
  private closed = false;
  private pingTimer: NodeJS.Timeout | null = null;
  private pinging = false;

  constructor(private readonly options: ListeningConnectionOptions) {
    this.delay = options.reconnectDelayMs ?? 250;
  }

  /** The connection while it is up. */
  get client(): Client | null {
    return this.current;
  }

  /** Resolves once connected, or once the first attempt has failed (then retrying in the background). */
  start(): Promise<void> {
    return this.connect();
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    if (this.closed) return;
    const { options } = this;
    // Keep-alive probes after 5 s of silence: a connection whose peer vanished (a cut network, a
    // machine gone) fails in seconds instead of the OS default of about two hours.
    const client = new Client({ ...options.config, application_name: applicationName(options.role), keepAlive: true, keepAliveInitialDelayMillis: 5000 });
    client.on('error', (err) => this.dropped(client, err));
    client.on('end', () => this.dropped(client, new Error('connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel === options.channel) options.onNotification(msg.payload);
    });
    try {
      await client.connect();
      await this.tuneSession(client);
      await client.query(`LISTEN ${options.channel}`);
      await options.prepare?.(client);
    } catch (err) {
      discard(client);
      this.failed(err);
      return;
    }
    if (this.closed) {
      discard(client);
      return;
    }
    this.current = client;
    this.delay = options.reconnectDelayMs ?? 250;
    this.startPinging();
    await options.up?.(client);
  }

  private get pingMs(): number {
    return this.options.pingMs ?? DEFAULT_PING_MS;
  }

  /**
   * The server's side of liveness: keep-alive probes from the server after 5 s of silence (a
   * client machine that vanished is noticed in about 11 s), and the idle limit that ends a frozen
   * process's session. Settings the server does not know (idle_session_timeout before 14) are skipped.
   */
  private async tuneSession(client: Client): Promise<void> {
    const idle = this.options.idleSessionTimeoutMs ?? (this.pingMs > 0 ? this.pingMs * 3 : 0);
    const settings: Array<[string, string]> = [
      ['tcp_keepalives_idle', '5'],
      ['tcp_keepalives_interval', '2'],
      ['tcp_keepalives_count', '3'],
      ...(idle > 0 ? ([['idle_session_timeout', String(Math.round(idle))]] as Array<[string, string]>) : []),
    ];
    for (const [name, value] of settings) {
      await client.query(`SELECT set_config($1, $2, false)`, [name, value]).catch(() => undefined);
    }
  }

  /** A ping on the connection every pingMs; one unanswered within pingTimeoutMs drops it. */
  private startPinging(): void {
    this.stopPinging();
    if (this.pingMs <= 0) return;
    this.pingTimer = setInterval(() => void this.ping(), this.pingMs);
    this.pingTimer.unref();
  }

  private stopPinging(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private async ping(): Promise<void> {
    const client = this.current;
    if (!client || this.pinging) return;
    this.pinging = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeoutMs = this.options.pingTimeoutMs ?? 5000;
      await Promise.race([
        client.query('SELECT 1'),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer to a ping within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      // Silently dead (no FIN, no RST): replaced now rather than when TCP gives up.
      this.dropped(client, err instanceof Error ? err : new Error(String(err)));
    } finally {
      clearTimeout(timer);
      this.pinging = false;
    }
  }

  private dropped(client: Client, err: Error): void {
    if (this.current !== client) return;
    this.current = null;
    this.stopPinging();
    discard(client);
    this.options.lost?.();
    this.failed(err);
  }

  private failed(err: unknown): void {
    if (this.closed) return;
    const wait = this.delay;
    this.delay = Math.min(wait * 2, this.options.maxReconnectDelayMs ?? 10_000);
    this.options.down?.(err instanceof Error ? err : new Error(String(err)), wait);
    if (this.reconnectTimer) return;
    // A block body: setTimeout ignores what its callback returns (the failure is handled by the catch).
    this.reconnectTimer = setTimeout(() => {
      this.connect().catch((e: unknown) => this.failed(e));
    }, wait);
    // Reconnecting never keeps a process alive on its own.
    this.reconnectTimer.unref();
  }

  /** Ends the session (and so whatever lives with it) and stops reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopPinging();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.current;
    this.current = null;
    if (!client) return;
    client.removeAllListeners('end');
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    await client.end().catch(() => undefined);
  }
}

/** Closes a connection no one wants any more, whatever state it is in, without failing. */
function discard(client: Client): void {
  client.removeAllListeners('notification');
  client.removeAllListeners('end');
  client.removeAllListeners('error');
  // An 'error' with no listener would kill the process.
  client.on('error', () => undefined);
  client.end().catch(() => undefined);
}
