import { toApiError } from './http-error.filter';

/** Issue 24 §7: an unreachable store answered 500 internal_error ("Try again later"). */
describe('toApiError for a store that is away', () => {
  it.each([
    ['PostgreSQL stopped', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a backend terminated', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['the connection dropped', new Error('Connection terminated unexpectedly')],
    ['the pool could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['SQLite busy', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })],
  ])('%s → 503 service_unavailable with Retry-After', (_what, err) => {
    const e = toApiError(err);
    expect(e.status).toBe(503);
    expect(e.code).toBe('service_unavailable');
    expect(Number(e.headers['Retry-After'])).toBeGreaterThan(0);
  });

  it('anything else stays 500 internal_error', () => {
    expect(toApiError(new Error('bug')).status).toBe(500);
  });
});
