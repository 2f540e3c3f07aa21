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
}

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
    const client = new Client({ ...options.config, application_name: applicationName(options.role), keepAlive: true });
    client.on('error', (err) => this.dropped(client, err));
    client.on('end', () => this.dropped(client, new Error('connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel === options.channel) options.onNotification(msg.payload);
    });
    try {
      await client.connect();
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
    await options.up?.(client);
  }

  private dropped(client: Client, err: Error): void {
    if (this.current !== client) return;
    this.current = null;
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
