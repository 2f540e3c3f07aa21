/**
 * Whether an error says the store could not be reached or dropped the connection, rather than
 * that the request or the data was wrong: the same request may succeed once the store is back.
 * The API answers those with 503 and `Retry-After` (never 500), and the background runners retry
 * them with back-off instead of counting them against an event (a database outage must not park
 * every event it happened to be in the middle of).
 */
export function isStoreUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    if ((e as { [NOT_A_STORE]?: boolean })[NOT_A_STORE]) return false;
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (NODE_CODES.has(code)) return true;
      if (PG_REFUSALS.test(code)) return true;
      if (SQLITE_REFUSALS.test(code)) return true;
    }
    if (typeof name === 'string' && MONGO_NAMES.has(name)) return true;
    if (typeof code === 'number' && typeof name === 'string' && name.startsWith('Mongo') && MONGO_CODES.has(code)) return true;
    const labels = (e as { errorLabels?: unknown }).errorLabels;
    if (Array.isArray(labels) && (labels.includes('TransientTransactionError') || labels.includes('RetryableWriteError'))) return true;
    if (typeof message === 'string' && PG_MESSAGES.some((m) => m.test(message))) return true;
  }
  return false;
}

/**
 * PostgreSQL's refusals that say nothing about the request (SQLSTATE): class 08 (connection
 * exception), 25006 (read-only transaction: a replica, or default_transaction_read_only during a
 * failover), 25P03 (our own transaction ended idle), class 53 (disk full 53100, out of memory 53200,
 * too many connections 53300), 57P01–57P05 (shut down, crash, starting, database dropped, idle
 * session ended), 40001/40P01 (serialization failure, deadlock: the same request succeeds when run
 * again), 55P03 (lock not available), 58030 (I/O error).
 */
const PG_REFUSALS = /^(08...|25006|25P03|53...|57P0[1-5]|40001|40P01|55P03|58030)$/;
/** SQLite's (better-sqlite3's `code`, extended codes included): busy or locked, full, read-only, I/O, cannot open. */
const SQLITE_REFUSALS = /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|NOMEM|PROTOCOL)(_[A-Z_]+)?$/;
const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
/** MongoDB server codes of a primary stepping down or shutting down, a write conflict, a full disk or a timeout. */
const MONGO_CODES = new Set([6, 7, 89, 91, 112, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 14031]);
const MONGO_NAMES = new Set(['MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError']);
/** What node-postgres says when the connection went away under a query or could not be had in time. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Query read timeout/,
  /^terminating connection due to/,
  /^canceling statement due to statement timeout/,
];

const NOT_A_STORE = Symbol.for('dojang.notAStoreError');

/**
 * Marks an error that came from somewhere else than the stores (a mail server or SMS provider
 * that refused the connection): the same network error codes, but an outage of the provider is
 * the event's failure (retried, then parked so other events flow), not a database outage.
 */
export function notAStoreError<E>(err: E): E {
  if (err && typeof err === 'object') Object.defineProperty(err, NOT_A_STORE, { value: true, enumerable: false });
  return err;
}
