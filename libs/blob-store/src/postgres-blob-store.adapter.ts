import { createHash } from 'crypto';
import { Pool, PoolClient } from 'pg';
import { Migration, inTransaction, prepared, runMigrations } from '@dojang/postgres';
import { BlobRef, BlobStore } from './blob-store.port';

/** Append-only: a released migration is never edited, only followed. */
export const BLOB_MIGRATIONS: readonly Migration[] = [
  {
    id: 'blobs_0001_blobs_chunks',
    sql: `
      CREATE TABLE blobs (
        sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
        byte_size bigint NOT NULL,
        chunk_count integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE blob_chunks (
        sha256 text NOT NULL REFERENCES blobs (sha256),
        n integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (sha256, n)
      );
      -- PDFs and images are compressed already: store the chunks out of line without trying to
      -- compress them again.
      ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
    `,
  },
];

/** Bytes per chunk row: no statement parameter or row is larger, whatever the blob's size. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Blobs in PostgreSQL, content-addressed by SHA-256: one `blobs` row per blob and its bytes as
 * 1 MiB `bytea` rows in `blob_chunks`. Plain rows rather than large objects: they commit, back
 * up and replicate (logical replication included) with everything else, need no unlinking of
 * orphans, and a chunk never needs the large-object privileges.
 *
 * A put is one transaction, the `blobs` row first: a put cut short leaves nothing visible, and a
 * second put of the same bytes waits on that row's key, then finds it and does nothing. A blob of
 * one chunk (every document body) is one statement, so one round trip; a read is one statement.
 *
 * What this process has read or written is remembered in front of it, as on every store
 * (CachedBlobStore): creating a document stores its body and presents it right after, which
 * would otherwise be three more round trips per request.
 */
export class PostgresBlobStore implements BlobStore {
  /** The pool is shared with the other stores: close() leaves it open. */
  constructor(readonly pool: Pool) {}

  async init(): Promise<void> {
    await runMigrations(this.pool, BLOB_MIGRATIONS);
  }

  async put(bytes: Buffer): Promise<BlobRef> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const ref = { sha256, byte_size: bytes.length };
    const chunks = Math.ceil(bytes.length / BLOB_CHUNK_BYTES);
    if (chunks <= 1) {
      // One statement, so one implicit transaction: both rows or neither. A concurrent put of the
      // same bytes waits on the key, then inserts nothing (and so no chunk either).
      await this.pool.query(
        chunks === 0
          ? prepared(`INSERT INTO blobs (sha256, byte_size, chunk_count) VALUES ($1, 0, 0) ON CONFLICT (sha256) DO NOTHING`, [sha256])
          : prepared(
              `WITH claimed AS (INSERT INTO blobs (sha256, byte_size, chunk_count) VALUES ($1, $2, 1) ON CONFLICT (sha256) DO NOTHING RETURNING sha256)
               INSERT INTO blob_chunks (sha256, n, data) SELECT sha256, 0, $3 FROM claimed`,
              [sha256, bytes.length, bytes],
            ),
      );
    } else {
      // Most puts of known large bytes (a re-sent upload) stop here, without sending them.
      if (await this.has(sha256)) return ref;
      await this.transaction(async (client) => {
        const claimed = await client.query(`INSERT INTO blobs (sha256, byte_size, chunk_count) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING`, [
          sha256,
          bytes.length,
          chunks,
        ]);
        if (claimed.rowCount === 0) return; // another put committed the same bytes meanwhile
        for (let n = 0; n < chunks; n++) {
          await client.query(`INSERT INTO blob_chunks (sha256, n, data) VALUES ($1, $2, $3)`, [
            sha256,
            n,
            bytes.subarray(n * BLOB_CHUNK_BYTES, (n + 1) * BLOB_CHUNK_BYTES),
          ]);
        }
      });
    }
    return ref;
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!SHA256.test(sha256)) return null;
    // One statement, one snapshot: the head and the chunks it promises.
    const { rows } = await this.pool.query<{ byte_size: string; chunk_count: number; data: Buffer | null }>(
      prepared(
        `SELECT b.byte_size::text AS byte_size, b.chunk_count, c.data
           FROM blobs b LEFT JOIN blob_chunks c ON c.sha256 = b.sha256
          WHERE b.sha256 = $1 ORDER BY c.n`,
        [sha256],
      ),
    );
    if (!rows.length) return null;
    const { byte_size, chunk_count } = rows[0];
    const parts = rows.flatMap((r) => (r.data ? [r.data] : []));
    const bytes = Buffer.concat(parts);
    if (parts.length !== chunk_count || bytes.length !== Number(byte_size)) {
      throw new Error(`blob ${sha256} is damaged: ${parts.length} of ${chunk_count} chunks, ${bytes.length} of ${byte_size} bytes`);
    }
    return bytes;
  }

  async has(sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    const { rowCount } = await this.pool.query(prepared(`SELECT 1 FROM blobs WHERE sha256 = $1`, [sha256]));
    return rowCount === 1;
  }

  async close(): Promise<void> {
    // The pool belongs to whoever made it (it also serves the event and read stores).
  }

  private transaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    return inTransaction(this.pool, work);
  }
}
