/**
 * SQLite waits for another connection's write lock inside the call (busy_timeout), and
 * better-sqlite3's calls are synchronous: a long busy_timeout froze the whole event loop while
 * another process (a CLI rebuild) held the lock. So the synchronous wait is short, and the longer
 * waits happen between attempts, asynchronously. Both SQLite adapters (events, read models) follow it.
 */
export const SQLITE_SYNC_BUSY_TIMEOUT_MS = 50;

/** How long a write keeps trying for the lock in all before it fails with SQLITE_BUSY. */
export const SQLITE_BUSY_BUDGET_MS = 10_000;

export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** The pause before the next attempt: doubling from 5 ms to 200 ms. */
export function nextBusyPause(pause: number): number {
  return Math.min(Math.max(5, pause * 2), 200);
}

/** Runs `write` (one synchronous SQLite write or transaction) until it gets the lock or the budget runs out. */
export async function retryWhileBusy<T>(write: () => T): Promise<T> {
  const giveUp = Date.now() + SQLITE_BUSY_BUDGET_MS;
  for (let pause = 5; ; pause = nextBusyPause(pause)) {
    try {
      return write();
    } catch (err) {
      // better-sqlite3 rolled the transaction back: nothing of it was written.
      if (!isSqliteBusy(err) || Date.now() + pause > giveUp) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
