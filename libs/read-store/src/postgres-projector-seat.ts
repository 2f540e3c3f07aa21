import { ListeningConnection } from '@dojang/postgres';
import { ClientConfig } from 'pg';
import { ProjectorHandlers } from './read-store.port';

/** The NOTIFY channel of projection commits; the payload is `{ name: position }` as JSON. */
export const CHECKPOINTS_CHANNEL = 'dojang_checkpoints';

/** The session-level advisory lock its holder runs the projections under. */
const PROJECTOR_LOCK = `hashtext('dojang_projections.projector')`;

/** The seat's role in `pg_stat_activity` (its `application_name` is this, the host and the pid). */
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
  private readonly connection: ListeningConnection;
  private holding = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(config: ClientConfig, private readonly handlers: ProjectorHandlers, options: ProjectorSeatOptions = {}) {
    const retryMs = options.retryMs ?? 1000;
    this.connection = new ListeningConnection({
      config,
      channel: CHECKPOINTS_CHANNEL,
      role: SEAT_APPLICATION_NAME,
      reconnectDelayMs: options.reconnectDelayMs,
      maxReconnectDelayMs: options.maxReconnectDelayMs,
      onNotification: (payload) => {
        if (!payload) return;
        try {
          handlers.onCheckpoints(JSON.parse(payload) as Record<string, number>);
        } catch {
          // Not ours to fail on: the next commit says it again.
        }
      },
      prepare: async (client) => {
        // Whatever was committed while nobody listened.
        const { rows } = await client.query<{ name: string; position: string }>(`SELECT name, position::text AS position FROM read_checkpoints`);
        handlers.onCheckpoints(Object.fromEntries(rows.map((r) => [r.name, Number(r.position)])));
      },
      up: async () => {
        await this.tryTake();
        if (!this.holding && !this.closed) {
          this.retryTimer = setInterval(() => void this.tryTake(), retryMs);
          this.retryTimer.unref();
        }
      },
      lost: () => {
        this.stopRetrying();
        // Another process may hold the role by now: give it up at once.
        if (this.holding) {
          this.holding = false;
          handlers.onRole(false);
        }
      },
      down: (err, retryInMs) =>
        (options.log ?? console.warn)(`[read-store] projector seat connection down (${err.message}); reconnecting in ${retryInMs} ms`),
    });
  }

  /** Resolves once connected (or failing to, then retrying in the background). */
  async start(): Promise<void> {
    await this.connection.start();
  }

  private async tryTake(): Promise<void> {
    const client = this.connection.client;
    if (!client || this.holding || this.closed) return;
    let got = false;
    try {
      const { rows } = await client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${PROJECTOR_LOCK}) AS got`);
      got = rows[0].got;
    } catch {
      return; // the connection's own handlers deal with it
    }
    if (!got || this.connection.client !== client) return;
    if (this.closed) {
      await client.query(`SELECT pg_advisory_unlock(${PROJECTOR_LOCK})`).catch(() => undefined);
      return;
    }
    this.holding = true;
    this.stopRetrying();
    this.handlers.onRole(true);
  }

  private stopRetrying(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
  }

  /** Leaves the election: ending the session frees the lock for the others at once. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopRetrying();
    if (this.holding) {
      this.holding = false;
      this.handlers.onRole(false);
    }
    await this.connection.close();
  }
}
