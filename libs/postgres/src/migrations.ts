import { Pool } from 'pg';
import { checkoutClient } from './checkout';

/** One schema change. Append-only: a released migration is never edited, only followed. */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}

/**
 * Applies the migrations not yet recorded in `dojang_migrations`, in order, each in its own
 * transaction under one advisory lock, so several processes starting at once apply each exactly
 * once. Every adapter names its migrations with its own prefix (`events_0001`, `read_0001`, …).
 */
export async function runMigrations(pool: Pool, migrations: readonly Migration[]): Promise<void> {
  const held = await checkoutClient(pool);
  const { client } = held;
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS dojang_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (const migration of migrations) {
      await client.query('BEGIN');
      try {
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('dojang_migrations'))`);
        const done = await client.query('SELECT 1 FROM dojang_migrations WHERE id = $1', [migration.id]);
        if (done.rowCount === 0) {
          await client.query(migration.sql);
          await client.query('INSERT INTO dojang_migrations (id) VALUES ($1)', [migration.id]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`migration ${migration.id} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    held.release();
  }
}
