import Database from 'better-sqlite3';
import * as fs from 'fs';
import {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadStreamOptions,
  DuplicateEventError,
  StoredEvent,
  WrongExpectedRevisionError,
  fromRevisionOf,
} from './event-store.port';
import { GENESIS_HASH, eventHash } from './hash-chain';
import { assertStorableEvents } from './storable-events';
import { SQLITE_BUSY_BUDGET_MS, SQLITE_SYNC_BUSY_TIMEOUT_MS, isSqliteBusy, nextBusyPause } from '@dojang/sqlite';

interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
}

interface Row {
  global_position: number;
  stream_id: string;
  stream_revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
}

export interface SqliteEventStoreOptions {
  /** How often to look for appends made by other processes (the CLI, a worker, a second API process). */
  pollIntervalMs?: number;
}

/**
 * Embedded event store on SQLite. Durability by group commit: transactions commit into the WAL
 * (synchronous=NORMAL), and `append` resolves only after an fdatasync of the WAL file that started
 * after its commit. One fsync, run on libuv's thread pool, covers every append that committed
 * before it, so the event loop never waits for the disk and concurrent appends share the cost —
 * the same guarantee as synchronous=FULL (nothing acknowledged is lost on power failure).
 *
 * Readers (`readAll`, what projections and reactors follow) see the log only up to `durableHead`,
 * the highest position this process knows to be on disk, whichever process appended it. Several
 * processes may share the file (API processes, workers, the CLI on one DATA_DIR): another
 * process's commit is in the shared WAL as soon as it commits, but on disk only once an fsync ran
 * after it. So when the poll finds the log grown past `durableHead`, this process fdatasyncs the
 * WAL itself before handing the new events out: an fsync of the file covers every frame written
 * to it before, by any process, and is nearly free when the appender's own fsync already ran. A
 * worker therefore never sends an e-mail, and no projection shows a row, for an event a power
 * failure could still take back.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  private readonly listeners = new Set<() => void>();
  private pollTimer: NodeJS.Timeout | null = null;
  private readonly stmts: ReturnType<SqliteEventStore['prepare']>;
  private walFd: number | null = null;
  private flushing: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /**
   * Every position up to this one is on disk: readers see no further. Positions are handed out by
   * one writer at a time (SQLite's write lock), so a head read in one snapshot has no uncommitted
   * position below it, and an fsync started after that read covers all of them.
   */
  private durableHead = 0;
  /** The highest position the fsync in flight covers. */
  private flushingCovers = 0;
  /** Appends waiting for the next group transaction. */
  private group: PendingAppend[] = [];
  /** One append; nested in the group transaction, better-sqlite3 runs it as a savepoint. */
  private readonly appendOne: (streamId: string, events: NewEvent[], expected: ExpectedRevision) => AppendResult;

  constructor(private readonly file: string, private readonly options: SqliteEventStoreOptions = {}) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma(`busy_timeout = ${SQLITE_SYNC_BUSY_TIMEOUT_MS}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        global_position INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_id TEXT NOT NULL,
        stream_revision INTEGER NOT NULL,
        event_id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        UNIQUE (stream_id, stream_revision)
      );
    `);
    this.stmts = this.prepare();
    this.appendOne = this.db.transaction(this.appendTx);
    // What a process killed before its fsync left in the WAL is made durable before anything
    // follows it here (once, at open; small, and off every request path).
    const head = this.head();
    try {
      fs.fdatasyncSync(this.wal());
    } catch {
      // No WAL file yet: nothing was ever committed into it.
    }
    this.durableHead = head;
  }

  /** Resolves once `position` (committed by this connection) is on disk. */
  private durable(position: number): Promise<void> {
    if (!this.flushing) return this.startFlush();
    // The fsync in flight covers the appends committed before it started; later ones ride on
    // the next.
    if (position <= this.flushingCovers) return this.flushing;
    this.queued ??= this.flushing.then(
      () => this.nextFlush(),
      () => this.nextFlush(),
    );
    return this.queued;
  }

  private nextFlush(): Promise<void> {
    this.queued = null;
    return this.startFlush();
  }

  private startFlush(): Promise<void> {
    // Everything committed so far, by this process or another, is in the WAL this fsync covers.
    const covers = this.head();
    this.flushingCovers = covers;
    const flush = new Promise<void>((resolve, reject) => {
      let fd: number;
      try {
        fd = this.wal();
      } catch (err) {
        this.release(covers);
        return reject(err);
      }
      fs.fdatasync(fd, (err) => {
        // Released for every append the fsync covered at once, before any of them resumes, so a
        // projection pass started by the first sees the whole group, not one append at a time.
        this.release(covers);
        if (err) return reject(err);
        resolve();
        this.notify();
      });
    });
    this.flushing = flush;
    const clear = () => {
      if (this.flushing === flush) this.flushing = null;
    };
    flush.then(clear, clear);
    return flush;
  }

  /**
   * Makes positions up to `covers` visible to readers. Also after a failed fsync: those appends are
   * rejected, but they did commit, and hiding them would stall every reader behind them.
   */
  private release(covers: number): void {
    this.durableHead = Math.max(this.durableHead, covers);
  }

  /** The WAL file's descriptor, reopened if SQLite replaced the file (e.g. after the last close elsewhere). */
  private wal(): number {
    const walPath = `${this.file}-wal`;
    if (this.walFd !== null) {
      try {
        const open = fs.fstatSync(this.walFd);
        const onDisk = fs.statSync(walPath);
        if (open.nlink > 0 && open.ino === onDisk.ino) return this.walFd;
      } catch {
        // fall through and reopen
      }
      try {
        fs.closeSync(this.walFd);
      } catch {
        // already closed
      }
    }
    this.walFd = fs.openSync(walPath, 'r');
    return this.walFd;
  }

  private prepare() {
    return {
      last: this.db.prepare<[string]>(
        `SELECT stream_revision, json_extract(metadata, '$.hash') AS hash FROM events
          WHERE stream_id = ? ORDER BY stream_revision DESC LIMIT 1`,
      ),
      insert: this.db.prepare(
        `INSERT INTO events (stream_id, stream_revision, event_id, type, data, metadata)
         VALUES (@stream_id, @stream_revision, @event_id, @type, @data, @metadata)`,
      ),
      stream: this.db.prepare<[string]>(`SELECT * FROM events WHERE stream_id = ? ORDER BY stream_revision`),
      streamFrom: this.db.prepare<[string, number]>(`SELECT * FROM events WHERE stream_id = ? AND stream_revision >= ? ORDER BY stream_revision`),
      all: this.db.prepare<[number, number, number]>(
        `SELECT * FROM events WHERE global_position > ? AND global_position <= ? ORDER BY global_position LIMIT ?`,
      ),
      head: this.db.prepare(`SELECT COALESCE(MAX(global_position), 0) AS head FROM events`),
    };
  }

  private readonly appendTx = (streamId: string, events: NewEvent[], expected: ExpectedRevision): AppendResult => {
    const last = this.stmts.last.get(streamId) as { stream_revision: number; hash: string } | undefined;
    const actual: number | 'no_stream' = last ? last.stream_revision : 'no_stream';
    if (expected !== 'any' && expected !== actual) {
      throw new WrongExpectedRevisionError(streamId, expected, actual);
    }
    let revision = last ? last.stream_revision : -1;
    let prevHash = last ? last.hash : GENESIS_HASH;
    let position = 0;
    for (const event of events) {
      revision += 1;
      const hash = eventHash({ ...event, stream_id: streamId, stream_revision: revision }, prevHash);
      const metadata = { ...event.metadata, prev_hash: prevHash, hash };
      const info = this.stmts.insert.run({
        stream_id: streamId,
        stream_revision: revision,
        event_id: event.event_id,
        type: event.type,
        data: JSON.stringify(event.data),
        metadata: JSON.stringify(metadata),
      });
      position = Number(info.lastInsertRowid);
      prevHash = hash;
    }
    return { next_expected_revision: revision, position };
  };

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append of no events');
    // Refused alone, before it joins a group (and with the same rule as every other store).
    assertStorableEvents(streamId, events);
    const result = await new Promise<AppendResult>((resolve, reject) => {
      this.group.push({ streamId, events, expected, resolve, reject });
      // Every append requested while the event loop handles one round of I/O shares one
      // transaction: one BEGIN/COMMIT and fewer WAL pages (and checkpoints) per event.
      if (this.group.length === 1) setImmediate(this.commitGroup);
    });
    await this.durable(result.position);
    return result;
  }

  /**
   * Commits the waiting appends in one IMMEDIATE transaction, each inside its own savepoint, so an
   * append that fails its revision check (or any other) is rolled back alone and rejected alone.
   */
  private readonly commitGroup = (): void => {
    const group = this.group;
    this.group = [];
    this.tryGroup(group, Date.now() + SQLITE_BUSY_BUDGET_MS, 5);
  };

  /** One attempt; while another connection holds the write lock, the next after a pause (see sqlite-busy.ts). */
  private tryGroup(group: PendingAppend[], giveUp: number, pause: number): void {
    const outcomes: Array<{ ok: true; result: AppendResult } | { ok: false; error: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const a of group) {
            try {
              outcomes.push({ ok: true, result: this.appendOne(a.streamId, a.events, a.expected) });
            } catch (err) {
              outcomes.push({ ok: false, error: this.translate(err, a.streamId, a.expected) });
            }
          }
        })
        .immediate();
    } catch (err) {
      // BEGIN IMMEDIATE did not get the lock: nothing was written, try the group again.
      if (isSqliteBusy(err) && Date.now() + pause <= giveUp) {
        setTimeout(() => this.tryGroup(group, giveUp, nextBusyPause(pause)), pause);
        return;
      }
      for (const a of group) a.reject(err);
      return;
    }
    // Hidden from readers until fsynced: they stop at durableHead, which only an fsync moves.
    group.forEach((a, i) => {
      const outcome = outcomes[i];
      if (!outcome.ok) return a.reject(outcome.error);
      a.resolve(outcome.result);
    });
  }


  private translate(err: unknown, streamId: string, expected: ExpectedRevision): unknown {
    // Two writers racing on the same revision: the loser sees the unique index, which is the
    // same fact as a wrong expected revision.
    // Translated into our own errors: the driver's error class is bound once per process by the
    // native addon, so it is not even an Error of every caller's realm (jest contexts).
    if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
      if (/event_id/.test(String((err as Error).message))) return new DuplicateEventError(streamId);
      const last = this.stmts.last.get(streamId) as { stream_revision: number } | undefined;
      return new WrongExpectedRevisionError(streamId, expected, last ? last.stream_revision : 'no_stream');
    }
    return err;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const from = fromRevisionOf(options);
    return ((from > 0 ? this.stmts.streamFrom.all(streamId, from) : this.stmts.stream.all(streamId)) as Row[]).map(toStored);
  }

  async readAll(after: number, limit: number): Promise<StoredEvent[]> {
    // Never hand out an event that is not on disk yet: a projection or a reactor must not get
    // ahead of a log that a power failure could still shorten.
    return (this.stmts.all.all(after, this.durableHead, limit) as Row[]).map(toStored);
  }

  async headPosition(): Promise<number> {
    return this.head();
  }

  private head(): number {
    return (this.stmts.head.get() as { head: number }).head;
  }

  onAppended(listener: () => void): () => void {
    this.listeners.add(listener);
    this.ensurePolling();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.pollTimer) {
        clearInterval(this.pollTimer);
        this.pollTimer = null;
      }
    };
  }

  private ensurePolling() {
    if (this.pollTimer) return;
    this.pollTimer = setInterval(() => {
      try {
        // Another process appended: make it durable here too (one fsync, shared with any append
        // of ours waiting), and the flush signals the listeners once it is.
        const head = this.head();
        if (head > this.durableHead) this.durable(head).catch(() => undefined);
      } catch {
        // The database may be closing; the next tick or close() settles it.
      }
    }, this.options.pollIntervalMs ?? 100);
    this.pollTimer.unref();
  }

  private notify() {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the append has succeeded.
      }
    }
  }

  async close(): Promise<void> {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
    this.listeners.clear();
    await this.flushing?.catch(() => undefined);
    if (this.db.open) this.db.close();
    if (this.walFd !== null) {
      try {
        fs.closeSync(this.walFd);
      } catch {
        // already closed
      }
      this.walFd = null;
    }
  }

  /** For auditors' tooling and tests only: the raw database, e.g. to show that tampering is detected. */
  get rawDatabase(): Database.Database {
    return this.db;
  }
}

function toStored(row: Row): StoredEvent {
  return {
    event_id: row.event_id,
    stream_id: row.stream_id,
    stream_revision: row.stream_revision,
    global_position: row.global_position,
    type: row.type,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
  };
}
