import { ClientConfig, Pool, PoolClient, QueryResult, escapeLiteral } from 'pg';
import { checkoutClient, GuardedClient, ListeningConnection, prepared, runMigrations } from '@dojang/postgres';
import {
  AppendOutcomeUnknownError,
  AppendResult,
  DuplicateEventError,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadStreamOptions,
  StoredEvent,
  WrongExpectedRevisionError,
  fromRevisionOf,
} from './event-store.port';
import { GENESIS_HASH, eventHash } from './hash-chain';
import { assertStorableEvents } from './storable-events';
import { EVENT_STORE_MIGRATIONS } from './postgres-event-store.migrations';

/*
 * Event store on PostgreSQL.
 *
 * Ordering. Followers (projections, reactors, read-your-writes waits) keep one plain number: the
 * last global position they handled, and read `global_position > checkpoint`. With positions
 * from a sequence alone, transactions commit out of order: B may take 120 and commit while A,
 * holding 119, is still open; a follower reading then sees 120, moves its checkpoint there, and
 * never reads 119. So every append transaction takes one transaction-scoped advisory lock
 * (`pg_advisory_xact_lock`) before it draws any position, and holds it to its commit. PostgreSQL
 * releases transaction locks only after the commit is flushed and visible to new snapshots, so
 * the next holder draws its positions, and commits, strictly after the previous holder became
 * visible: position order is commit order, and a snapshot that sees position N sees every
 * committed position below N. Gaps (a rolled-back append keeps its sequence values) are fine:
 * the port promises increasing positions, not dense ones. It holds as long as every writer of
 * `events` is this adapter: a row inserted by hand, without the lock, voids it.
 *
 * Why not xid8 checkpoints (`(transaction_id, position)` read below `pg_snapshot_xmin`): positions
 * are plain numbers in every port and every consumer (read-store checkpoints, rows' `_position`,
 * AppendResult.position, the SQLite and EventStoreDB adapters); a composite position would change
 * all of them, and a follower would also stall behind the oldest transaction running anywhere in
 * the database. The lock costs parallelism between appends, which group append buys back.
 *
 * Group append. The appends requested during one event-loop round share one transaction, and
 * while it runs the next round's appends queue for the next one (one group in flight per
 * instance): one lock hold, one WAL flush (`synchronous_commit` is set on per transaction, so a
 * server default of off cannot weaken the acknowledgement) and one NOTIFY for the whole group.
 *
 * One round trip per group. The group is planned (revisions checked, rows hash-chained) before
 * the transaction starts, from the stream heads this process already knows: the event a command
 * handler read last (readStream) or appended last. A (stream, revision) pair names one event
 * forever, so a remembered hash is never wrong, only possibly no longer the head; a stream
 * created by the append needs no head at all. Only heads not known (an `any` append, a stream this
 * process never read) are read first, outside the lock. The plan is then sent as one multi-
 * statement query (BEGIN, the lock, a savepoint, one INSERT of the whole group, the NOTIFY,
 * COMMIT) with the rows as a JSON literal, so the lock is held for the server's own work and the
 * WAL flush, never across a client round trip. The unique constraints enforce what the plan
 * assumed: an append whose stream moved meanwhile, or whose event id is already stored, makes the
 * INSERT fail, and the group falls back (the lock still held) to one savepoint per append, each
 * re-planned from a fresh read under the lock, so the failure rejects that append alone with the
 * right error. One subtransaction per group in the common case: more than 64 in a transaction
 * overflow PostgreSQL's subtransaction cache and slow every snapshot.
 *
 * A holder that stalls between its statements (a frozen or partitioned process) is ended by the
 * server after `appendIdleTimeoutMs` (idle_in_transaction_session_timeout, set per transaction),
 * which rolls it back and frees the lock, instead of blocking every writer until TCP gives up.
 *
 * Waking followers. `pg_notify` inside the append transaction (delivered at commit) reaches one
 * dedicated LISTEN connection per instance, which signals `onAppended` listeners; own appends
 * signal at once. If that connection drops, the store polls the head (slowly) until a reconnect
 * with back-off succeeds, then checks the head once more for what committed in between.
 */

export interface PostgresEventStoreOptions {
  /** The server the LISTEN connection opens; defaults to the pool's own connection settings. */
  connectionString?: string;
  /** While the LISTEN connection is down, how often to look at the head instead (default 1000 ms). */
  pollIntervalMs?: number;
  /** First wait before reconnecting the LISTEN connection; doubled per failure (default 250 ms). */
  reconnectDelayMs?: number;
  /** Upper bound of the reconnect back-off (default 10 s). */
  maxReconnectDelayMs?: number;
  /**
   * How long an append transaction may sit idle on the server (between its statements) before the
   * server ends it and so frees the append lock (default 10 s; a healthy one idles for a round trip).
   */
  appendIdleTimeoutMs?: number;
  /**
   * How long an append whose connection died around its commit keeps trying to learn whether it
   * landed, while the server is unreachable (default 30 s); then AppendOutcomeUnknownError.
   */
  settleTimeoutMs?: number;
  /** Where trouble with the LISTEN connection is reported (default console.warn). */
  log?: (message: string) => void;
}

/** The NOTIFY channel; the payload is the head position after the notifying commit. */
export const EVENTS_CHANNEL = 'dojang_events';

/** The advisory lock every append transaction holds from before its positions are drawn to commit. */
const APPEND_LOCK = `hashtext('dojang_events.append')`;

/** The listener's role in `pg_stat_activity` (its `application_name` is this, the host and the pid). */
export const LISTENER_APPLICATION_NAME = 'dojang-events-listener';

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

interface StreamHead {
  revision: number;
  hash: string;
}

/** Stream heads remembered per instance (the streams this process worked on lately). */
const KNOWN_HEADS = 10_000;

interface InsertRow {
  ord: number;
  stream_id: string;
  stream_revision: number;
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

interface PlannedAppend {
  append: PendingAppend;
  /** Set when the append was rejected before writing. */
  error?: unknown;
  rows: InsertRow[];
}

interface EventRow {
  global_position: string;
  stream_id: string;
  stream_revision: number;
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: StoredEvent['metadata'];
}

const COLUMNS = 'global_position, stream_id, stream_revision, event_id, type, data, metadata';

export class PostgresEventStore implements EventStore {
  private readonly listeners = new Set<() => void>();
  /** Appends waiting for the next group transaction. */
  private group: PendingAppend[] = [];
  private inFlight: Promise<void> | null = null;
  private scheduled = false;
  /** The highest head the listeners have been signalled for. */
  private signalledHead = 0;
  private listener: ListeningConnection | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** The last event (revision, hash) of streams this instance read or appended lately, oldest first. */
  private readonly heads = new Map<string, StreamHead>();

  constructor(private readonly pool: Pool, private readonly options: PostgresEventStoreOptions = {}) {}

  /** Applies the migrations and starts listening for other processes' appends. */
  async init(): Promise<void> {
    await runMigrations(this.pool, EVENT_STORE_MIGRATIONS);
    this.signalledHead = await this.headPosition();
    this.listener = new ListeningConnection({
      config: this.listenerConfig(),
      channel: EVENTS_CHANNEL,
      role: LISTENER_APPLICATION_NAME,
      reconnectDelayMs: this.options.reconnectDelayMs,
      maxReconnectDelayMs: this.options.maxReconnectDelayMs,
      onNotification: (payload) => this.noticed(Number(payload)),
      up: async () => {
        this.stopPolling();
        // Whatever committed while nobody listened.
        await this.pollHead();
      },
      down: (err, retryInMs) => {
        (this.options.log ?? console.warn)(
          `[event-store] LISTEN connection down (${err.message}); polling the head, reconnecting in ${retryInMs} ms`,
        );
        this.startPolling();
      },
    });
    await this.listener.start();
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append of no events');
    if (this.closed) throw new Error('the event store is closed');
    // Refused alone, before it joins a group: a value the group's JSON could not encode, or text
    // jsonb refuses, would otherwise fail every append of the group.
    assertStorableEvents(streamId, events);
    return new Promise<AppendResult>((resolve, reject) => {
      this.group.push({ streamId, events, expected, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    // Every append requested during this round of the event loop joins the group.
    setImmediate(() => {
      this.scheduled = false;
      this.startGroup();
    });
  }

  private startGroup(): void {
    if (this.inFlight || this.group.length === 0) return;
    const group = this.group;
    this.group = [];
    this.inFlight = this.commitGroup(group).finally(() => {
      this.inFlight = null;
      if (this.group.length) this.schedule();
    });
  }

  /** Never rejects: each append of the group is resolved or rejected on its own. */
  private async commitGroup(group: PendingAppend[]): Promise<void> {
    let planned: PlannedAppend[];
    try {
      planned = plan(group, await this.headsFor(group));
    } catch (err) {
      for (const a of group) a.reject(err);
      return;
    }
    const rows = planned.flatMap((p) => p.rows);
    if (rows.length === 0) {
      // Every append was refused by the plan: nothing to write.
      group.forEach((a, i) => a.reject(planned[i].error));
      return;
    }
    // With the pool's guard: pg emits a connection lost between two queries (the server ended the
    // session, restarted) on the checked-out client, and an 'error' event with no listener kills
    // the process. The next query fails anyway and the catch below rejects the group.
    let held: GuardedClient;
    try {
      held = await checkoutClient(this.pool);
    } catch (err) {
      for (const a of group) a.reject(err);
      return;
    }
    const client: PoolClient = held.client;
    const release = (err?: Error | boolean) => held.release(err);
    let outcomes: Outcome[];
    let head = 0;
    let planUsed = false;
    try {
      // A process that stalls or is cut off while holding the lock would block every writer until
      // TCP keep-alive gives up (hours): the server ends such a session, which releases the lock.
      const idleLimit = Math.max(1, Math.round(this.options.appendIdleTimeoutMs ?? 10_000));
      const begin =
        `BEGIN; SET LOCAL synchronous_commit TO on; SET LOCAL idle_in_transaction_session_timeout TO ${idleLimit};` +
        ` SELECT pg_advisory_xact_lock(${APPEND_LOCK}); SAVEPOINT group_append; ${INSERT_ROWS.replace('$1', () => escapeLiteral(JSON.stringify(rows)))}`;
      // The highest position this session drew is the group's last row: the head after commit.
      const end = `SELECT pg_notify('${EVENTS_CHANNEL}', currval(pg_get_serial_sequence('events', 'global_position'))::text); COMMIT`;
      const hooked = this.beforeCommit !== PostgresEventStore.prototype.beforeCommit;
      let results: QueryResult[];
      try {
        results = (await client.query(hooked ? begin : `${begin}; ${end}`)) as unknown as QueryResult[];
      } catch (err) {
        // The statements after a failing one are skipped, COMMIT included, and the transaction is
        // aborted. Past the savepoint (the INSERT failed), fall back to one append at a time.
        // A ROLLBACK TO SAVEPOINT that fails means the connection is gone: what became of the
        // transaction is then the connection's story, not the INSERT's refusal (a raw unique
        // violation on an event id, say, answered 500 though the append may be one that landed),
        // so its error is the one thrown, and settled below like any connection lost mid-append.
        const rolledBack = await client.query('ROLLBACK TO SAVEPOINT group_append').then(
          () => null,
          (rollbackError: unknown) => rollbackError,
        );
        if (rolledBack !== null) throw rolledBack;
        results = [];
      }
      planUsed = results.length > 0;
      if (planUsed) {
        const inserted = (results.find((r) => r.command === 'INSERT')?.rows ?? []) as Array<{ event_id: string; global_position: string }>;
        const positions = new Map(inserted.map((r) => [r.event_id, Number(r.global_position)]));
        outcomes = planned.map((p) => outcomeOf(p, positions));
      } else {
        outcomes = await this.appendOneByOne(client, group);
      }
      head = Math.max(0, ...outcomes.map((o) => (o.ok ? o.result.position : 0)));
      if (results.length && !hooked) {
        assertCommitted(results);
      } else if (head > 0) {
        await this.beforeCommit(client);
        // A number formatted by us: safe as a literal.
        const tail = results.length ? end : `SELECT pg_notify('${EVENTS_CHANNEL}', '${head}'); COMMIT`;
        assertCommitted((await client.query(tail)) as unknown as QueryResult[]);
      } else {
        await client.query('ROLLBACK');
      }
      release(held.lost);
    } catch (err) {
      release(err instanceof Error ? err : true);
      if (!outcomeInDoubt(err)) {
        // The server answered: the transaction did not commit.
        for (const a of group) a.reject(err);
        return;
      }
      // The connection died around the commit: the group may have landed with its answer lost.
      // Answering an error then would have the caller retry a command that already took effect.
      // pg's Client knows its server process id (BackendKeyData) but does not declare it.
      const settled = await this.settle((client as unknown as { processID?: number | null }).processID, group, err);
      head = Math.max(0, ...settled.map((o) => (o.ok ? o.result.position : 0)));
      if (head > 0) this.noticed(head);
      group.forEach((a, i) => {
        const outcome = settled[i];
        if (outcome.ok) a.resolve(outcome.result);
        else a.reject(outcome.error);
      });
      return;
    }
    if (head > 0) this.noticed(head);
    group.forEach((a, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) {
        const last = a.events.length - 1;
        // After the fallback the rows are a second plan's: the next readStream tells the head.
        const row = planned[i].rows[last] ?? null;
        if (planUsed && row) this.remember(a.streamId, row.stream_revision, String(row.metadata.hash));
        a.resolve(outcome.result);
      } else {
        a.reject(outcome.error);
      }
    });
  }

  /**
   * Learns what became of a group whose connection died around its commit. First the session that
   * ran it must be over: it may still be executing, or not yet have read the query the client
   * sent, and could commit after a look that found nothing. So it is ended
   * (`pg_terminate_backend`: a transaction not yet committed rolls back, one committing finishes)
   * and awaited until it has left `pg_stat_activity`. Then each append's event ids are looked up:
   * all stored → it landed, answered with its stored position; none → it did not, and its error
   * stands (a retry is safe). While the server cannot be reached this keeps trying, up to
   * `settleTimeoutMs`; past that each append fails with AppendOutcomeUnknownError.
   */
  private async settle(pid: number | null | undefined, group: PendingAppend[], lost: unknown): Promise<Outcome[]> {
    const giveUp = Date.now() + (this.options.settleTimeoutMs ?? 30_000);
    let pause = 25;
    for (;;) {
      try {
        if (typeof pid === 'number') {
          const { rows } = await this.pool.query(prepared(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1`, [pid]));
          if (rows.length > 0) throw new Error(`the append's session ${pid} is still ending`);
        }
        const ids = group.flatMap((a) => a.events.map((e) => e.event_id));
        const { rows } = await this.pool.query<{ event_id: string; stream_id: string; stream_revision: number; global_position: string; hash: string }>(
          prepared(`SELECT event_id, stream_id, stream_revision, global_position, metadata->>'hash' AS hash FROM events WHERE event_id = ANY($1::text[])`, [ids]),
        );
        const stored = new Map(rows.map((r) => [r.event_id, r]));
        return group.map((a): Outcome => {
          const found = a.events.map((e) => stored.get(e.event_id));
          const last = found[found.length - 1];
          // An append is atomic: all of its rows or none.
          if (!last || found.some((r) => !r || r.stream_id !== a.streamId)) return { ok: false, error: lost };
          this.remember(a.streamId, last.stream_revision, last.hash);
          return { ok: true, result: { next_expected_revision: last.stream_revision, position: Number(last.global_position) } };
        });
      } catch (err) {
        if (Date.now() + pause > giveUp) return group.map((a) => ({ ok: false, error: new AppendOutcomeUnknownError(a.streamId, err) }));
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, 1000);
      }
    }
  }

  /**
   * The heads the plan needs: remembered ones where the append names the revision this process
   * last saw, one read for the rest. A stream created by the append (`no_stream`) needs none.
   */
  private async headsFor(group: PendingAppend[]): Promise<Heads> {
    const streams = new Map<string, StreamHead>();
    const missing = new Set<string>();
    for (const a of group) {
      const known = this.heads.get(a.streamId);
      if (a.expected === 'no_stream') {
        // Known to exist: the plan refuses it without a write.
        if (known) streams.set(a.streamId, known);
      } else if (known && known.revision === a.expected) {
        streams.set(a.streamId, known);
      } else {
        missing.add(a.streamId);
      }
    }
    if (missing.size) {
      // Outside the lock, so possibly behind by the time the group commits: then the INSERT
      // conflicts and the fallback re-reads under the lock. Never ahead, so a refusal is right.
      const { rows } = await this.pool.query<{ stream_id: string; revision: number; hash: string }>(prepared(HEADS_SQL, [[...missing]]));
      for (const r of rows) streams.set(r.stream_id, { revision: r.revision, hash: r.hash });
    }
    // Event ids already stored are left to the unique constraint (the fallback names the append).
    return { streams, taken: new Set() };
  }

  private remember(streamId: string, revision: number, hash: string | undefined): void {
    if (typeof hash !== 'string') return;
    this.heads.delete(streamId);
    this.heads.set(streamId, { revision, hash });
    if (this.heads.size > KNOWN_HEADS) this.heads.delete(this.heads.keys().next().value as string);
  }

  /**
   * Called inside the append transaction, on its connection, after the inserts and before the
   * commit (the lock held). For tests: holding a transaction open, looking at its settings. A
   * store that overrides it sends its group in two round trips instead of one.
   */
  protected async beforeCommit(_client: PoolClient): Promise<void> {}

  /** The group after its single INSERT failed: each append in its own savepoint, re-read under the lock. */
  private async appendOneByOne(client: PoolClient, group: PendingAppend[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const a of group) {
      await client.query('SAVEPOINT one_append');
      try {
        const [p] = plan([a], await readHeads(client, [a]));
        const positions = await insertRows(client, p.rows);
        outcomes.push(outcomeOf(p, positions));
        await client.query('RELEASE SAVEPOINT one_append');
      } catch (err) {
        await client.query('ROLLBACK TO SAVEPOINT one_append');
        outcomes.push({ ok: false, error: await this.translate(client, err, a) });
      }
    }
    return outcomes;
  }

  private async translate(client: PoolClient, err: unknown, a: PendingAppend): Promise<unknown> {
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code !== '23505') return err;
    if (constraint === 'events_event_id_key') return new DuplicateEventError(a.streamId);
    // Two writers racing on the same revision: the loser's unique violation is the same fact as
    // a wrong expected revision.
    const heads = await readHeads(client, [a]);
    return new WrongExpectedRevisionError(a.streamId, a.expected, heads.streams.get(a.streamId)?.revision ?? 'no_stream');
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const from = fromRevisionOf(options);
    const { rows } = await this.pool.query<EventRow>(
      from > 0
        ? prepared(`SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND stream_revision >= $2 ORDER BY stream_revision`, [streamId, from])
        : prepared(`SELECT ${COLUMNS} FROM events WHERE stream_id = $1 ORDER BY stream_revision`, [streamId]),
    );
    // What a command handler reads before it appends: the head the append will name.
    const last = rows[rows.length - 1];
    if (last) this.remember(streamId, last.stream_revision, last.metadata.hash as string | undefined);
    return rows.map(toStored);
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    if (limit <= 0) return [];
    // Commit order is position order (see the header), so this never returns a position with a
    // lower one still to commit.
    const { rows } = await this.pool.query<EventRow>(
      prepared(`SELECT ${COLUMNS} FROM events WHERE global_position > $1 ORDER BY global_position LIMIT $2`, [after, limit]),
    );
    return rows.map(toStored);
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ head: string }>(prepared(`SELECT coalesce(max(global_position), 0) AS head FROM events`, []));
    return Number(rows[0].head);
  }

  onAppended(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Signals the listeners when `head` is beyond what they were last signalled for. */
  private noticed(head: number): void {
    if (Number.isFinite(head) && head <= this.signalledHead) return;
    if (Number.isFinite(head)) this.signalledHead = head;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the append has succeeded.
      }
    }
  }

  private listenerConfig(): ClientConfig {
    return this.options.connectionString ? { connectionString: this.options.connectionString } : { ...(this.pool.options as ClientConfig) };
  }

  private startPolling(): void {
    if (this.pollTimer) return;
    this.pollTimer = setInterval(() => void this.pollHead(), this.options.pollIntervalMs ?? 1000);
    this.pollTimer.unref();
  }

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  private async pollHead(): Promise<void> {
    try {
      this.noticed(await this.headPosition());
    } catch {
      // The server may be away too; the next tick tries again.
    }
  }

  /** Stops the listener and timers after the appends already requested. The pool is the caller's. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.inFlight || this.group.length) {
      this.startGroup();
      await this.inFlight;
    }
    this.stopPolling();
    await this.listener?.close();
    this.listener = null;
    this.listeners.clear();
  }
}

interface Heads {
  streams: Map<string, StreamHead>;
  /** Event ids of the group already stored. */
  taken: Set<string>;
}

/** The last event (revision, hash) of each of the streams in $1. */
const HEADS_SQL = `SELECT s.stream_id, last.stream_revision AS revision, last.metadata->>'hash' AS hash
   FROM unnest($1::text[]) AS s(stream_id)
   CROSS JOIN LATERAL (
     SELECT stream_revision, metadata FROM events e WHERE e.stream_id = s.stream_id ORDER BY stream_revision DESC LIMIT 1
   ) last`;

/** The last event of each stream of the group, and which of its event ids are already stored: one round trip. */
async function readHeads(client: PoolClient, group: PendingAppend[]): Promise<Heads> {
  const streams = [...new Set(group.map((a) => a.streamId))];
  const ids = group.flatMap((a) => a.events.map((e) => e.event_id));
  const { rows } = await client.query<{ heads: Array<{ stream_id: string; revision: number; hash: string }>; taken: string[] }>(
    `SELECT
       (SELECT coalesce(json_agg(json_build_object('stream_id', h.stream_id, 'revision', h.revision, 'hash', h.hash)), '[]') FROM (${HEADS_SQL}) h) AS heads,
       (SELECT coalesce(array_agg(event_id), '{}') FROM events WHERE event_id = ANY($2::text[])) AS taken`,
    [streams, ids],
  );
  return {
    streams: new Map(rows[0].heads.map((h) => [h.stream_id, { revision: h.revision, hash: h.hash }])),
    taken: new Set(rows[0].taken),
  };
}

/**
 * Checks each append in order against the stored heads and the appends before it in the group,
 * and builds the rows of those that pass, hash-chained. Mutates `heads` as it goes.
 */
function plan(group: PendingAppend[], heads: Heads): PlannedAppend[] {
  let ord = 0;
  return group.map((append) => {
    const head = heads.streams.get(append.streamId);
    const actual = head ? head.revision : 'no_stream';
    if (append.expected !== 'any' && append.expected !== actual) {
      return { append, rows: [], error: new WrongExpectedRevisionError(append.streamId, append.expected, actual) };
    }
    const ids = append.events.map((e) => e.event_id);
    if (new Set(ids).size !== ids.length || ids.some((id) => heads.taken.has(id))) {
      return { append, rows: [], error: new DuplicateEventError(append.streamId) };
    }
    let revision = head ? head.revision : -1;
    let prevHash = head ? head.hash : GENESIS_HASH;
    let rows: InsertRow[];
    try {
      rows = append.events.map((event, i): InsertRow => {
        revision += 1;
        const hash = eventHash({ ...event, stream_id: append.streamId, stream_revision: revision }, prevHash);
        const metadata = { ...event.metadata, prev_hash: prevHash, hash };
        prevHash = hash;
        return {
          ord: ord + i,
          stream_id: append.streamId,
          stream_revision: revision,
          event_id: event.event_id,
          type: event.type,
          data: event.data,
          metadata,
        };
      });
    } catch (err) {
      // append() checked the events already; whatever still throws here is this append's alone.
      return { append, rows: [], error: err };
    }
    ord += rows.length;
    heads.streams.set(append.streamId, { revision, hash: prevHash });
    for (const id of ids) heads.taken.add(id);
    return { append, rows };
  });
}

/**
 * One INSERT for the rows of a whole group, in group order, so positions (drawn from the identity
 * sequence as the rows are inserted) increase with revision inside each stream. $1 is the rows as
 * JSON: a parameter, or a literal in the one-round-trip group (JSON.stringify stores what the hash
 * covered: toJSON applied, undefined dropped).
 */
const INSERT_ROWS = `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
     SELECT r.stream_id, r.stream_revision, r.event_id, r.type, r.data, r.metadata
       FROM jsonb_to_recordset($1::jsonb)
         AS r(ord integer, stream_id text, stream_revision integer, event_id text, type text, data jsonb, metadata jsonb)
      ORDER BY r.ord
     RETURNING event_id, global_position`;

/** Returns the position of each event id inserted. */
async function insertRows(client: PoolClient, rows: InsertRow[]): Promise<Map<string, number>> {
  if (rows.length === 0) return new Map();
  const { rows: inserted } = await client.query<{ event_id: string; global_position: string }>(INSERT_ROWS, [JSON.stringify(rows)]);
  return new Map(inserted.map((r) => [r.event_id, Number(r.global_position)]));
}

/** The server answered an append transaction's COMMIT with ROLLBACK: a definite failure. */
class NotCommittedError extends Error {}

/** COMMIT of a transaction that failed answers ROLLBACK, not an error. */
function assertCommitted(results: QueryResult[]): void {
  const tag = results[results.length - 1]?.command;
  if (tag !== 'COMMIT') throw new NotCommittedError(`append transaction ended with ${String(tag)}, not COMMIT`);
}

/**
 * Whether an append transaction that failed with `err` may have committed. An error the server
 * sent (a SQLSTATE) aborted it, except the classes that mean the session itself ended
 * (08 connection exception, 57 operator intervention, 58 system error, XX internal); anything
 * else (a socket closed, a timeout, a lost connection) leaves the COMMIT's fate unknown.
 */
function outcomeInDoubt(err: unknown): boolean {
  if (err instanceof NotCommittedError) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|57|58|XX)/.test(code);
  return true;
}

function outcomeOf(planned: PlannedAppend, positions: Map<string, number>): Outcome {
  if (planned.error) return { ok: false, error: planned.error };
  const last = planned.rows[planned.rows.length - 1];
  const position = positions.get(last.event_id);
  if (position === undefined) return { ok: false, error: new Error(`event ${last.event_id} was not inserted`) };
  return { ok: true, result: { next_expected_revision: last.stream_revision, position } };
}

function toStored(row: EventRow): StoredEvent {
  return {
    event_id: row.event_id,
    stream_id: row.stream_id,
    stream_revision: row.stream_revision,
    global_position: Number(row.global_position),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
  };
}
