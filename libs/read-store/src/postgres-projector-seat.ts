import { Client, ClientConfig } from 'pg';
import { ProjectorHandlers } from './read-store.port';

/** The NOTIFY channel of projection commits; the payload is `{ name: position }` as JSON. */
export const CHECKPOINTS_CHANNEL = 'dojang_checkpoints';

/** The session-level advisory lock its holder runs the projections under. */
const PROJECTOR_LOCK = `hashtext('dojang_projections.projector')`;

export const SEAT_APPLICATION_NAME = 'dojang-projector-seat';

export interface ProjectorSeatOptions {
  /** How often a process without the role tries to take it (default 1000 ms). */
  retryMs?: number;
  /** First wait before reconnecting; doubled per failure (default 250 ms). */
  reconnectDelayMs?: number;
  /** Upper bound of the reconnect back-off (default 10 s). */
  maxReconnectDelayMs?: number;
  /** Where trouble with the connection is reported (default console.warn). */
  log?: (message: string) => void;
}

/**
 * One process's seat in the projector election: a dedicated connection that LISTENs for the
 * checkpoints projection commits announce, and holds, while its process is the projector, a
 * session-level advisory lock. The server releases that lock when the session ends, however the
 * process ends (exit, crash, SIGKILL, a cut connection), so the others, trying every `retryMs`,
 * take the role over within about that time. A process that loses its connection gives up the
 * role at once (another may hold it by now), reconnects with back-off and competes again.
 */
export class ProjectorSeat {
  private client: Client | null = null;
  private holding = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelay: number;
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly handlers: ProjectorHandlers,
    private readonly options: ProjectorSeatOptions = {},
  ) {
    this.reconnectDelay = options.reconnectDelayMs ?? 250;
  }

  /** Resolves once connected (or failing to, then retrying in the background). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    if (this.closed) return;
    const client = new Client({ ...this.config, application_name: SEAT_APPLICATION_NAME, keepAlive: true });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel !== CHECKPOINTS_CHANNEL || !msg.payload) return;
      try {
        this.handlers.onCheckpoints(JSON.parse(msg.payload) as Record<string, number>);
      } catch {
        // Not ours to fail on: the next commit says it again.
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHECKPOINTS_CHANNEL}`);
      // Whatever was committed while nobody listened.
      const { rows } = await client.query<{ name: string; position: string }>(`SELECT name, position::text AS position FROM read_checkpoints`);
      this.handlers.onCheckpoints(Object.fromEntries(rows.map((r) => [r.name, Number(r.position)])));
    } catch (err) {
      this.discard(client);
      this.down(err);
      return;
    }
    if (this.closed) {
      this.discard(client);
      return;
    }
    this.client = client;
    this.reconnectDelay = this.options.reconnectDelayMs ?? 250;
    await this.tryTake();
    if (!this.holding && !this.closed) {
      this.retryTimer = setInterval(() => void this.tryTake(), this.options.retryMs ?? 1000);
      this.retryTimer.unref();
    }
  }

  private async tryTake(): Promise<void> {
    const client = this.client;
    if (!client || this.holding || this.closed) return;
    let got = false;
    try {
      const { rows } = await client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${PROJECTOR_LOCK}) AS got`);
      got = rows[0].got;
    } catch {
      return; // the connection's 'error' handler deals with it
    }
    if (!got || this.client !== client) return;
    if (this.closed) {
      await client.query(`SELECT pg_advisory_unlock(${PROJECTOR_LOCK})`).catch(() => undefined);
      return;
    }
    this.holding = true;
    this.stopRetrying();
    this.handlers.onRole(true);
  }

  private lost(client: Client, err: Error): void {
    if (this.client !== client) return;
    this.client = null;
    this.discard(client);
    this.stopRetrying();
    if (this.holding) {
      this.holding = false;
      this.handlers.onRole(false);
    }
    this.down(err);
  }

  private down(err: unknown): void {
    if (this.closed) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(delay * 2, this.options.maxReconnectDelayMs ?? 10_000);
    (this.options.log ?? console.warn)(`[read-store] projector seat connection down (${(err as Error).message}); reconnecting in ${delay} ms`);
    if (!this.reconnectTimer) {
      this.reconnectTimer = setTimeout(() => {
        this.connect().catch((e: unknown) => this.down(e));
      }, delay);
      this.reconnectTimer.unref();
    }
  }

  private discard(client: Client): void {
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    client.end().catch(() => undefined);
  }

  private stopRetrying(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
  }

  /** Leaves the election: ending the session frees the lock for the others at once. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopRetrying();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    if (this.holding) {
      this.holding = false;
      this.handlers.onRole(false);
    }
    if (client) {
      client.removeAllListeners('end');
      client.removeAllListeners('notification');
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
