import { BLOB_MIGRATIONS } from './postgres-blob-store.adapter';

describe('PostgreSQL blob store migrations', () => {
  // A database records a migration as applied by id and never runs it again: editing a released
  // one would leave existing databases without the change. Append a new migration instead; its
  // snapshot is written the first time this runs (commit it with the migration).
  it.each(BLOB_MIGRATIONS.map((m) => [m.id, m] as const))('past migration %s never changes', (id, migration) => {
    expect(migration).toMatchSnapshot(id);
  });

  it('are prefixed blobs_, numbered in order, each id once', () => {
    const ids = BLOB_MIGRATIONS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    ids.forEach((id, i) => expect(id).toMatch(new RegExp(`^blobs_${String(i + 1).padStart(4, '0')}_[a-z0-9_]+$`)));
  });
});
