import { createHash, randomBytes } from 'crypto';
import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { Pool, PoolClient } from 'pg';
import { BLOB_CHUNK_BYTES, PostgresBlobStore } from './postgres-blob-store.adapter';
import { CachedBlobStore } from './cached-blob-store';

const server = postgresTestServer();
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What the PostgreSQL adapter adds to the contract: large blobs in bounded rows, atomic puts. */
(server ? describe : describe.skip)(`PostgresBlobStore${server ? '' : ` (${POSTGRES_SKIP_MESSAGE})`}`, () => {
  let pool: Pool;
  let store: PostgresBlobStore;
  afterAll(async () => {
    await pool?.end();
  });
  const database = server ? throwawayPostgresDatabase(server, 'dojang_blob_pg') : undefined;
  beforeAll(async () => {
    pool = createPostgresPool(database!.url(), { max: 4, applicationName: 'blob-store-spec' });
    store = new PostgresBlobStore(pool);
    await store.init();
  });

  async function chunkSizes(hash: string): Promise<number[]> {
    const { rows } = await pool.query<{ size: number }>(`SELECT length(data) AS size FROM blob_chunks WHERE sha256 = $1 ORDER BY n`, [hash]);
    return rows.map((r) => r.size);
  }

  it('round-trips 20 MB in rows of at most 1 MiB', async () => {
    const bytes = randomBytes(20 * 1024 * 1024 + 123);
    const ref = await store.put(bytes);
    expect(ref).toEqual({ sha256: sha256(bytes), byte_size: bytes.length });
    const back = await store.get(ref.sha256);
    expect(back?.length).toBe(bytes.length);
    expect(back?.equals(bytes)).toBe(true);
    const sizes = await chunkSizes(ref.sha256);
    expect(sizes).toHaveLength(21);
    expect(Math.max(...sizes)).toBe(BLOB_CHUNK_BYTES);
    expect(sizes[20]).toBe(123);
  });

  it('leaves nothing visible of a put cut short, and the next put of the bytes stores them', async () => {
    const bytes = randomBytes(3 * BLOB_CHUNK_BYTES + 10);
    const hash = sha256(bytes);
    // The connection fails while the third chunk is being written. pool.query() (has, get)
    // checks out clients through connect(callback): those pass through untouched.
    const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<PoolClient>;
    const spy = jest.spyOn(pool, 'connect').mockImplementation((async (...args: unknown[]) => {
      if (args.length) return connect(...args);
      const client = await connect();
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      let chunks = 0;
      const querySpy = jest.spyOn(client, 'query').mockImplementation(((...queryArgs: unknown[]) => {
        if (String(queryArgs[0]).startsWith('INSERT INTO blob_chunks') && ++chunks === 3) return Promise.reject(new Error('connection lost'));
        return query(...queryArgs);
      }) as never);
      const release = client.release.bind(client);
      client.release = ((err?: Error | boolean) => {
        querySpy.mockRestore();
        client.release = release;
        release(err);
      }) as typeof client.release;
      return client;
    }) as never);
    try {
      await expect(store.put(bytes)).rejects.toThrow('connection lost');
    } finally {
      spy.mockRestore();
    }
    expect(await store.has(hash)).toBe(false);
    expect(await store.get(hash)).toBeNull();
    expect(await chunkSizes(hash)).toEqual([]);

    expect(await store.put(bytes)).toEqual({ sha256: hash, byte_size: bytes.length });
    expect((await store.get(hash))?.equals(bytes)).toBe(true);
  });

  it('lets many concurrent puts of the same new bytes all succeed, storing them once', async () => {
    const bytes = randomBytes(2 * BLOB_CHUNK_BYTES + 1);
    const stores = Array.from({ length: 4 }, () => new PostgresBlobStore(pool));
    const refs = await Promise.all(stores.map((s) => s.put(bytes)));
    expect(new Set(refs.map((r) => r.sha256))).toEqual(new Set([sha256(bytes)]));
    expect(await chunkSizes(sha256(bytes))).toEqual([BLOB_CHUNK_BYTES, BLOB_CHUNK_BYTES, 1]);
    expect((await store.get(sha256(bytes)))?.equals(bytes)).toBe(true);
  });

  /** Queries sent through the pool while `work` runs. */
  async function queries(work: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const original = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    const spy = jest.spyOn(pool, 'query').mockImplementation(((...args: unknown[]) => {
      sent.push(String(args[0]));
      return original(...args);
    }) as never);
    try {
      await work();
    } finally {
      spy.mockRestore();
    }
    return sent;
  }

  it('stores a document-sized blob in one statement and, behind the process cache, serves it back and its hash from memory', async () => {
    const bytes = Buffer.from(`<p>${randomBytes(16).toString('hex')}</p>`.repeat(50), 'utf8');
    const hash = sha256(bytes);
    // As every process opens it (openStores).
    const store = new CachedBlobStore(new PostgresBlobStore(pool));
    expect(await queries(() => store.put(bytes))).toHaveLength(1);
    let back: Buffer | null = null;
    expect(
      await queries(async () => {
        back = await store.get(hash);
        expect(await store.has(hash)).toBe(true);
        await store.put(bytes);
      }),
    ).toEqual([]);
    expect(back!.equals(bytes)).toBe(true);
    // A copy: a caller writing into it does not change what the next get returns.
    back!.fill(0);
    expect((await store.get(hash))?.equals(bytes)).toBe(true);
    // Another process (another store on the pool) reads it in one statement.
    const other = new PostgresBlobStore(pool);
    let read: Buffer | null = null;
    expect(await queries(async () => (read = await other.get(hash)))).toHaveLength(1);
    expect(read!.equals(bytes)).toBe(true);
    expect(await chunkSizes(hash)).toEqual([bytes.length]);
  });

  it('stores the empty blob as a head without chunks', async () => {
    const ref = await store.put(Buffer.alloc(0));
    expect(await chunkSizes(ref.sha256)).toEqual([]);
    expect((await new PostgresBlobStore(pool).get(ref.sha256))?.length).toBe(0);
  });

  it('lets concurrent puts of the same new small bytes from several stores all succeed, storing them once', async () => {
    const bytes = randomBytes(1000);
    const refs = await Promise.all(Array.from({ length: 4 }, () => new PostgresBlobStore(pool).put(bytes)));
    expect(new Set(refs.map((r) => r.sha256))).toEqual(new Set([sha256(bytes)]));
    expect(await chunkSizes(sha256(bytes))).toEqual([1000]);
  });

  it('refuses to return a blob whose chunks went missing instead of returning short bytes', async () => {
    const bytes = randomBytes(BLOB_CHUNK_BYTES + 5);
    const ref = await store.put(bytes);
    await pool.query(`DELETE FROM blob_chunks WHERE sha256 = $1 AND n = 1`, [ref.sha256]);
    await expect(store.get(ref.sha256)).rejects.toThrow(/damaged/);
  });
});
