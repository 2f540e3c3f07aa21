import { EVENT_STORE_MIGRATIONS } from './postgres-event-store.migrations';

describe('PostgreSQL event store migrations', () => {
  // A released migration may already have run on a server: editing it would leave that server's
  // schema different from a fresh one's. Changes go in a new migration after the last; adding one
  // updates this snapshot by appending to it, and the diff must show nothing else changed.
  it('past migrations never change', () => {
    expect(EVENT_STORE_MIGRATIONS).toMatchSnapshot();
  });

  it('names every migration once, with the event store prefix, in order', () => {
    const ids = EVENT_STORE_MIGRATIONS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^events_\d{4}_[a-z0-9_]+$/);
    expect([...ids].sort()).toEqual(ids);
  });
});
