import { READ_MIGRATIONS } from './postgres-read-store.adapter';

describe('PostgreSQL read store migrations', () => {
  // A database records a migration as applied by id and never runs it again: editing a released
  // one would leave existing databases without the change. Append a new migration instead; its
  // snapshot is written the first time this runs (commit it with the migration).
  it.each(READ_MIGRATIONS.map((m) => [m.id, m] as const))('past migration %s never changes', (id, migration) => {
    expect(migration).toMatchSnapshot(id);
  });

  it('are prefixed read_, numbered in order, each id once', () => {
    const ids = READ_MIGRATIONS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    ids.forEach((id, i) => expect(id).toMatch(new RegExp(`^read_${String(i + 1).padStart(4, '0')}_[a-z0-9_]+$`)));
  });
});
