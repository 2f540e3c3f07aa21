import { Client } from 'pg';

const EVENTS_CHANNEL = 'dojang_events';
const CHECKPOINTS_CHANNEL = 'dojang_checkpoints';

export interface FollowerLag {
  /** Events whose projection was seen. */
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * The follower lag as a bystander sees it: the time from an append's commit to the commit of the
 * projection batch that covers it. Both are announced at commit (the event store's NOTIFY with
 * the log head, the read store's with the checkpoints), and this LISTENs to both on one
 * connection, so both times come from one clock. A batch covers an append once every
 * announced checkpoint is at or past the append's head; each append counts for as many events
 * as it moved the head.
 */
export class FollowerLagMeter {
  private readonly client: Client;
  private recording = false;
  private lastHead = 0;
  /** Appends not yet covered: head after the append, events it added, when it committed. */
  private pending: Array<{ head: number; events: number; at: number }> = [];
  private lags: Array<{ ms: number; events: number }> = [];

  constructor(databaseUrl: string) {
    this.client = new Client({ connectionString: databaseUrl, application_name: 'dojang-bench-lag' });
    // A session ended by the server (a terminated backend, a restart) emits 'error'; unheard, it ends the process.
    this.client.on('error', () => undefined);
    this.client.on('notification', (msg) => {
      const at = performance.now();
      if (!msg.payload) return;
      if (msg.channel === EVENTS_CHANNEL) this.appended(Number(msg.payload), at);
      else if (msg.channel === CHECKPOINTS_CHANNEL) this.projected(JSON.parse(msg.payload) as Record<string, number>, at);
    });
  }

  async open(): Promise<void> {
    await this.client.connect();
    await this.client.query(`LISTEN ${EVENTS_CHANNEL}; LISTEN ${CHECKPOINTS_CHANNEL}`);
  }

  start(): void {
    this.recording = true;
    this.pending = [];
    this.lags = [];
  }

  private appended(head: number, at: number): void {
    if (!Number.isFinite(head) || head <= this.lastHead) return;
    const events = this.lastHead === 0 ? 1 : head - this.lastHead;
    this.lastHead = head;
    if (this.recording) this.pending.push({ head, events, at });
  }

  private projected(positions: Record<string, number>, at: number): void {
    const values = Object.values(positions).filter(Number.isFinite);
    if (!values.length) return;
    const covered = Math.min(...values);
    const still: typeof this.pending = [];
    for (const p of this.pending) {
      if (p.head <= covered) this.lags.push({ ms: at - p.at, events: p.events });
      else still.push(p);
    }
    this.pending = still;
  }

  /** Stops recording after giving the last appends `settleMs` to be projected. */
  async stop(settleMs = 2000): Promise<FollowerLag> {
    const until = Date.now() + settleMs;
    while (this.pending.length && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    this.recording = false;
    const sorted = [...this.lags].sort((a, b) => a.ms - b.ms);
    const total = sorted.reduce((n, l) => n + l.events, 0);
    const at = (q: number) => {
      let seen = 0;
      for (const l of sorted) {
        seen += l.events;
        if (seen >= q * total) return l.ms;
      }
      return sorted.length ? sorted[sorted.length - 1].ms : 0;
    };
    const round = (n: number) => Math.round(n * 10) / 10;
    return { events: total, p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), maxMs: round(sorted.length ? sorted[sorted.length - 1].ms : 0) };
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
