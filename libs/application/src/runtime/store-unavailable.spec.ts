import { isStoreUnavailable, notAStoreError } from './store-unavailable';

const pg = (code: string, message = 'refused') => Object.assign(new Error(message), { code });

/**
 * Issue 33 finding 4: a read-only database answered 500 internal_error without Retry-After
 * (SQLSTATE 25006). Every refusal that says the store cannot take the request now, rather than
 * that the request is wrong, is an outage: 503 with Retry-After, retried by the workers.
 */
describe('isStoreUnavailable', () => {
  it.each([
    ['25006', 'cannot execute INSERT in a read-only transaction'],
    ['53100', 'could not extend file: No space left on device'],
    ['53200', 'out of memory'],
    ['53300', 'sorry, too many clients already'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['57P04', 'database dropped'],
    ['57P05', 'terminating connection due to idle-session timeout'],
    ['40001', 'could not serialize access due to concurrent update'],
    ['40P01', 'deadlock detected'],
    ['55P03', 'could not obtain lock'],
    ['58030', 'could not write to file'],
    ['08006', 'connection failure'],
    ['25P03', 'terminating connection due to idle-in-transaction timeout'],
  ])('PostgreSQL %s (%s) is an outage', (code, message) => {
    expect(isStoreUnavailable(pg(code, message))).toBe(true);
  });

  it.each(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN', 'SQLITE_NOMEM'])(
    'SQLite %s is an outage',
    (code) => {
      expect(isStoreUnavailable(pg(code))).toBe(true);
    },
  );

  it('MongoDB: a primary stepping down or a transient transaction error is an outage', () => {
    expect(isStoreUnavailable(Object.assign(new Error('not primary'), { name: 'MongoServerError', code: 10107 }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('write conflict'), { name: 'MongoServerError', code: 112, errorLabels: ['TransientTransactionError'] }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('duplicate key'), { name: 'MongoServerError', code: 11000 }))).toBe(false);
  });

  it('an answer about the request or the data is not: a unique violation, a bad value, a constraint, a syntax error, SQLite constraint', () => {
    for (const code of ['23505', '22P02', '23514', '42601', '22021', 'SQLITE_CONSTRAINT', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_MISMATCH']) {
      expect(isStoreUnavailable(pg(code))).toBe(false);
    }
    expect(isStoreUnavailable(new Error('boom'))).toBe(false);
  });

  it('looks through causes, and an error marked as not the store\'s is never one', () => {
    expect(isStoreUnavailable(new Error('wrapped', { cause: pg('25006') }))).toBe(true);
    expect(isStoreUnavailable(notAStoreError(Object.assign(new Error('smtp refused'), { code: 'ECONNREFUSED' })))).toBe(false);
  });
});
