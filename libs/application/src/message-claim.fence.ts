/**
 * The fence around a live message's sends, as pure functions of its message-log row (the notifier
 * does the reads and compare-and-swap writes around them).
 *
 * A message is claimed before it is sent; each claim has a number, one more than the last (the
 * fencing token). A worker may make an attempt only by first writing it into the row under the
 * version it holds: if another worker took the claim over meanwhile (the first was frozen or cut
 * off past its lease), the version moved, the write is refused and the attempt is not made. So
 * every copy that can reach a recipient is in the log with its claim number, before it leaves.
 */

/** One send attempt of a live message. */
export interface MessageSendAttempt {
  /** The claim it was made under (the fencing token): 1, then 2 after a takeover. */
  claim: number;
  /** Its try within that claim (a transient failure is tried again under the same claim). */
  attempt: number;
  /** The worker that made it (`host:pid`), for an operator matching logs. */
  worker: string;
  started_at: string;
  /**
   * `sending` while in flight; `unanswered` when its claim was taken over before it reported back
   * (the copy may have arrived); `sent`/`failed` once the provider answered, even after a takeover.
   */
  outcome: 'sending' | 'sent' | 'failed' | 'unanswered';
  finished_at: string | null;
  provider_id?: string | null;
  error?: string | null;
}

interface ClaimedRow {
  claims?: number;
  sends?: MessageSendAttempt[];
}

/**
 * How many claims actually started a send: what "at most twice" counts. A claim taken and lost
 * before its first attempt (the store was away at the fence) sent nothing. Rows written before
 * attempts were logged count every claim.
 */
export function claimsThatSent(row: ClaimedRow | null): number {
  if (!row) return 0;
  if (!row.sends) return row.claims ?? 0;
  return new Set(row.sends.map((s) => s.claim)).size;
}

/** At a takeover, the attempts still `sending` never reported back: they become `unanswered`. */
export function takeOverSends(sends: MessageSendAttempt[] | undefined, at: string): MessageSendAttempt[] {
  return (sends ?? []).map((s) => (s.outcome === 'sending' ? { ...s, outcome: 'unanswered', finished_at: at } : s));
}

/**
 * The row with one more attempt started under `claim`, written (compare-and-swap) before the
 * attempt is made: the previous attempt of the same claim, if still open, failed with
 * `previousError`, and the lease runs from now again.
 */
export function withAttemptStarted<R extends ClaimedRow & { lease_until?: string | null; attempts?: number }>(
  row: R,
  next: { claim: number; attempt: number; worker: string; at: string; leaseUntil: string; previousError?: string | null },
): R {
  const sends = (row.sends ?? []).map((s) =>
    s.claim === next.claim && s.outcome === 'sending' ? { ...s, outcome: 'failed' as const, finished_at: next.at, error: next.previousError ?? 'failed' } : s,
  );
  sends.push({ claim: next.claim, attempt: next.attempt, worker: next.worker, started_at: next.at, outcome: 'sending', finished_at: null });
  return { ...row, sends, attempts: next.attempt, lease_until: next.leaseUntil };
}

/**
 * The attempts with one of them answered. Null when there is nothing to change: no such attempt,
 * or it already has its answer. An `unanswered` attempt (its claim was taken over) still takes its
 * late answer, so the log says what became of every copy.
 */
export function withAttemptSettled(
  sends: MessageSendAttempt[] | undefined,
  which: { claim: number; attempt: number },
  answer: { outcome: 'sent' | 'failed'; at: string; provider_id?: string | null; error?: string | null },
): MessageSendAttempt[] | null {
  const list = sends ?? [];
  const i = list.findIndex((s) => s.claim === which.claim && s.attempt === which.attempt);
  if (i < 0 || (list[i].outcome !== 'sending' && list[i].outcome !== 'unanswered')) return null;
  const settled: MessageSendAttempt = {
    ...list[i],
    outcome: answer.outcome,
    finished_at: answer.at,
    ...(answer.provider_id !== undefined ? { provider_id: answer.provider_id } : {}),
    ...(answer.error !== undefined ? { error: answer.error } : {}),
  };
  return [...list.slice(0, i), settled, ...list.slice(i + 1)];
}

/** Why a message was not (or no longer) sent by this worker. */
export class MessageDropped extends Error {
  constructor(
    readonly reason: 'claim_taken_over' | 'no_longer_wanted',
    message: string,
  ) {
    super(message);
    this.name = 'MessageDropped';
  }
}
