import { ProjectionRunner } from '@dojang/projections';
import { ReadStore, hasProjectorElection } from '@dojang/read-store';

export type ProjectionRole = 'local' | 'projector' | 'follower';

export interface ProjectionDriverOptions {
  /** While waiters are waiting, how often the stored checkpoints are read too (default 250 ms). */
  pollMs?: number;
  /** Told when the role changes (logs). */
  onRole?: (role: ProjectionRole) => void;
  /** A failure starting or stopping the runner on a role change (logs). */
  onError?: (err: unknown) => void;
  /** After the runner failed to start as the projector, when to try again (default 1000 ms). */
  retryMs?: number;
}

interface Waiter {
  position: number;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Who runs this process's projections, and how a request waits for its own write to be
 * projected (read-your-writes).
 *
 * On a read store several processes share and that offers an election (PostgreSQL), one process,
 * the projector, runs the runner; the others follow the checkpoints it commits (announced at
 * commit, and read back while someone waits) and wait on those. Every process projecting every
 * event repeated the same reads and writes once per process (and with two API processes and two
 * workers, four times). When the projector's process ends, another takes over (see the store's
 * election). Elsewhere (the embedded store, where each process has its own followers; MongoDB)
 * every process runs its own runner, as before: role `local`.
 *
 * `start()` is what the API and worker processes call; a process that starts the runner itself
 * (tests, the CLI) stays `local`, and every call here goes to the runner.
 */
export class ProjectionDriver {
  private mode: ProjectionRole = 'local';
  private readonly shared = new Map<string, number>();
  private waiters: Waiter[] = [];
  private pollTimer: NodeJS.Timeout | null = null;
  private polling = false;
  private leave: (() => Promise<void>) | null = null;
  /** Role changes run one after the other (a start must finish before a stop, and so on). */
  private changes: Promise<void> = Promise.resolve();
  private stopped = false;
  /** What the election last said: this process holds the role. */
  private elected = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly runner: ProjectionRunner,
    private readonly reads: ReadStore,
    private readonly options: ProjectionDriverOptions = {},
  ) {}

  get role(): ProjectionRole {
    return this.mode;
  }

  /** Starts projecting (or following the projector), as the process's configuration allows. */
  async start(): Promise<void> {
    this.stopped = false;
    if (!hasProjectorElection(this.reads)) {
      await this.runner.start();
      return;
    }
    this.setMode('follower');
    this.heard(await this.reads.getCheckpoints(this.names()), false);
    this.leave = await this.reads.joinProjectors({
      onRole: (projector) => this.roleChanged(projector),
      onCheckpoints: (positions) => this.heard(positions, true),
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const leave = this.leave;
    this.leave = null;
    await leave?.();
    await this.changes;
    if (this.mode !== 'follower') await this.runner.stop();
    this.stopPolling();
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
  }

  /** The position every projection has reached, as this process knows it. */
  get position(): number {
    return this.mode === 'follower' ? this.sharedPosition() : this.runner.position;
  }

  /** Resolves true once every projection has applied the log up to `position`, false after `timeoutMs`. */
  waitFor(position: number, timeoutMs = 5000): Promise<boolean> {
    if (this.mode !== 'follower') return this.runner.waitFor(position, timeoutMs);
    if (this.sharedPosition() >= position) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          if (!this.waiters.length) this.stopPolling();
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
      this.startPolling();
    });
  }

  /**
   * Projects whatever is pending right here (the fallback of a wait that timed out: the projector
   * is slow or gone). A follower's runner first reloads the checkpoints, which the projector has
   * moved since it last ran. Safe beside the projector: rows and checkpoints only move forward.
   */
  async catchUp(): Promise<void> {
    if (this.mode === 'follower') await this.runner.init();
    await this.runner.catchUp();
    if (this.mode === 'follower') this.heard(await this.reads.getCheckpoints(this.names()), false);
  }

  private names(): string[] {
    return this.runner.projections.map((p) => p.name);
  }

  private sharedPosition(): number {
    const names = this.names();
    if (!names.length) return Number.MAX_SAFE_INTEGER;
    return Math.min(...names.map((n) => this.shared.get(n) ?? 0));
  }

  /**
   * Checkpoints as announced (taken as they come: a rebuild moves them back) or as read (which
   * may predate an announcement that overtook the read, so they only move them forward).
   */
  private heard(positions: Record<string, number>, announced: boolean): void {
    for (const [name, position] of Object.entries(positions)) {
      if (!Number.isFinite(position)) continue;
      const known = this.shared.get(name);
      this.shared.set(name, announced || known === undefined ? position : Math.max(known, position));
    }
    if (!this.waiters.length) return;
    const reached = this.position;
    const ready = this.waiters.filter((w) => w.position <= reached);
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => w.position > reached);
    for (const w of ready) {
      clearTimeout(w.timer);
      w.resolve(true);
    }
    if (!this.waiters.length) this.stopPolling();
  }

  /** A safety net under the announcements (a dropped connection, a lost NOTIFY): read the checkpoints while someone waits. */
  private startPolling(): void {
    if (this.pollTimer) return;
    this.pollTimer = setInterval(() => {
      if (this.polling) return;
      this.polling = true;
      this.reads
        .getCheckpoints(this.names())
        .then((positions) => this.heard(positions, false))
        .catch(() => undefined)
        .finally(() => (this.polling = false));
    }, this.options.pollMs ?? 250);
    this.pollTimer.unref();
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  private roleChanged(projector: boolean): void {
    this.elected = projector;
    this.changes = this.changes.then(async () => {
      if (projector !== this.elected || (this.stopped && projector)) return;
      try {
        if (projector && this.mode !== 'projector') {
          await this.runner.start();
          this.setMode('projector');
          // Waiters registered as a follower now wait on the runner.
          for (const w of this.waiters.splice(0)) {
            clearTimeout(w.timer);
            void this.runner.waitFor(w.position).then(w.resolve);
          }
          this.stopPolling();
        } else if (!projector && this.mode === 'projector') {
          this.setMode('follower');
          await this.runner.stop();
          this.heard(await this.reads.getCheckpoints(this.names()), false);
        }
      } catch (err) {
        this.options.onError?.(err);
        // Holding the role without projecting would leave every process waiting: try again.
        if (projector && this.mode !== 'projector' && !this.stopped && !this.retryTimer) {
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            if (this.elected) this.roleChanged(true);
          }, this.options.retryMs ?? 1000);
          this.retryTimer.unref();
        }
      }
    });
  }

  private setMode(mode: ProjectionRole): void {
    if (this.mode === mode) return;
    this.mode = mode;
    this.options.onRole?.(mode);
  }
}
