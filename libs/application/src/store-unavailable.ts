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
      // PostgreSQL: class 08 (connection exception), 57P01–57P03 (the server shut down or is
      // starting), 53300 (too many connections), 40001/40P01 are not here (they are answers).
      if (/^08...$/.test(code) || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED') return true;
    }
    if (typeof name === 'string' && MONGO_NAMES.has(name)) return true;
    if (typeof message === 'string' && PG_MESSAGES.some((m) => m.test(message))) return true;
  }
  return false;
}

const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
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
