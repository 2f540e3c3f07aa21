import { ClientConfig, Pool, PoolClient, QueryResult, escapeLiteral } from 'pg';
import { Migration, inTransaction, prepared, runMigrations } from '@dojang/postgres';
import { CHECKPOINTS_CHANNEL, ProjectorSeat, ProjectorSeatOptions } from './postgres-projector-seat';
import {
  assertCollectionName,
  assertFieldName,
  CollectionSpec,
  Condition,
  FindQuery,
  ProjectorElection,
  ProjectorHandlers,
  ReadDoc,
  BatchReads,
  ReadStore,
  readsByCollection,
  RowConflictError,
  RowRead,
  Scalar,
  StaleGenerationError,
  Write,
} from './read-store.port';

/**
 * The read store's own tables. Collections are not here: each is a table made on first use
 * (`rm_<name>`), like SQLite's, because projections declare them at run time. Append-only.
 */
export const READ_MIGRATIONS: readonly Migration[] = [
  {
    id: 'read_0001_checkpoints_windows',
    sql: `
      CREATE TABLE read_checkpoints (
        name text PRIMARY KEY,
        position bigint NOT NULL DEFAULT 0,
        generation integer NOT NULL DEFAULT 0
      );
      CREATE TABLE read_windows (
        key text NOT NULL,
        window_start bigint NOT NULL,
        count bigint NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (key, window_start)
      );
      CREATE INDEX read_windows_expires_at ON read_windows (expires_at);
    `,
  },
  {
    // The generation fence of a projection batch as one call, so a whole batch is one query: the
    // checkpoints are made if missing, locked and moved forward, and their generations compared;
    // a mismatch raises DJ001 (the stale names as JSON in DETAIL), which aborts the batch.
    id: 'read_0002_fence_function',
    sql: `
      CREATE FUNCTION dojang_read_fence(batch jsonb) RETURNS void LANGUAGE plpgsql AS $fence$
      DECLARE
        stale text[];
      BEGIN
        WITH w AS (
          SELECT * FROM jsonb_to_recordset(batch) AS w(name text, position bigint, generation integer)
        ), c AS (
          INSERT INTO read_checkpoints AS c (name, position, generation)
          SELECT w.name, w.position, 0 FROM w ORDER BY w.name
          ON CONFLICT (name) DO UPDATE SET position = GREATEST(c.position, EXCLUDED.position)
          RETURNING c.name, c.generation
        )
        SELECT array_agg(c.name ORDER BY c.name) INTO stale FROM c JOIN w USING (name) WHERE c.generation <> w.generation;
        IF stale IS NOT NULL THEN
          RAISE EXCEPTION 'projection(s) % were reset since this runner loaded them', array_to_string(stale, ', ')
            USING ERRCODE = 'DJ001', DETAIL = to_json(stale)::text;
        END IF;
      END
      $fence$;
    `,
  },
  {
    // A projection batch's read fence, one call per collection: the rows the batch read, each as
    // it found it (present with its generation and position, or absent), must still be so. Any
    // that moved raise DJ002 (the table and the ids as JSON in DETAIL), which aborts the batch.
    // Run after dojang_read_fence, whose checkpoint row locks order the commits of a projection:
    // this statement's snapshot then holds every commit that came before.
    id: 'read_0003_expect_function',
    sql: `
      CREATE FUNCTION dojang_read_expect(collection_table text, expected jsonb) RETURNS void LANGUAGE plpgsql AS $expect$
      DECLARE
        moved text[];
      BEGIN
        EXECUTE format(
          'SELECT array_agg(e.id ORDER BY e.id) FROM jsonb_to_recordset($1) AS e(id text, present boolean, position bigint, generation integer) ' ||
          'LEFT JOIN %I AS r ON r.id = e.id ' ||
          'WHERE CASE WHEN e.present THEN r.id IS NULL OR r._generation <> e.generation OR r._position IS DISTINCT FROM e.position ELSE r.id IS NOT NULL END',
          collection_table
        ) INTO moved USING expected;
        IF moved IS NOT NULL THEN
          RAISE EXCEPTION 'rows of % changed since the batch read them', collection_table
            USING ERRCODE = 'DJ002', DETAIL = json_build_object('table', collection_table, 'ids', moved)::text;
        END IF;
      END
      $expect$;
    `,
  },
];

/** SQLSTATE of dojang_read_fence's refusal. */
const STALE_GENERATION = 'DJ001';
/** SQLSTATE of dojang_read_expect's refusal. */
const ROW_CONFLICT = 'DJ002';


function table(collection: string): string {
  assertCollectionName(collection);
  return `rm_${collection}`;
}

/**
 * The one expression a field is filtered, sorted and indexed by: the jsonb value, with JSON null
 * folded into SQL NULL so null and missing are one value, as in SQLite's json_extract. jsonb
 * compares numbers as numbers and strings by the database collation; the planner matches an
 * expression index only on this exact text, so every query goes through here.
 */
function field(name: string): string {
  assertFieldName(name);
  return `NULLIF(doc -> '${name}', 'null'::jsonb)`;
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, which JSON (and so SQLite and MongoDB) can: a
 * client's title with a NUL in it would otherwise stop a projection for good. Strings (values and
 * keys) are stored with NUL as U+E000 '0' and U+E000 itself doubled, and decoded on the way out;
 * documents without either character (all but a few) skip both steps.
 */
const ESC = '\uE000';
const NEEDS_ESCAPE = /[\u0000\uE000]/;
const encodeString = (s: string): string => (NEEDS_ESCAPE.test(s) ? s.replace(/[\u0000\uE000]/g, (c) => (c === ESC ? ESC + ESC : `${ESC}0`)) : s);
const decodeString = (s: string): string => (s.includes(ESC) ? s.replace(/\uE000([\uE0000])/g, (_, c: string) => (c === '0' ? '\u0000' : ESC)) : s);

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), mapStrings(v, f)]));
  }
  return value;
}

function docText(doc: ReadDoc): string {
  const text = JSON.stringify(doc);
  // JSON.stringify writes U+0000 as the escape \u0000; U+E000 appears as itself.
  return text.includes('\\u0000') || text.includes(ESC) ? JSON.stringify(mapStrings(JSON.parse(text), encodeString)) : text;
}

function parseDoc<T>(text: string): T {
  const doc = JSON.parse(text) as unknown;
  return (text.includes(ESC) ? mapStrings(doc, decodeString) : doc) as T;
}

/** A scalar as a jsonb parameter; null stays SQL NULL (a comparison with it matches nothing). */
function jsonParam(value: Scalar): string | null {
  return value === null ? null : JSON.stringify(typeof value === 'string' ? encodeString(value) : value);
}

interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Read models in PostgreSQL, one table per collection: `id` (primary key), the document as jsonb,
 * and `_position` / `_generation` mirrored into columns so the replay guard compares columns. One
 * table per collection rather than one for all: each gets the expression indexes its own queries
 * use (no collection column in front of every index), its own planner statistics, and a reset
 * empties it with TRUNCATE instead of deleting row by row.
 *
 * A projection batch commits in one transaction: the checkpoints first, locked and compared with
 * the generation fence (so a concurrent reset waits for the batch, or the batch sees the reset
 * and rolls back), then the rows, a few multi-row statements per collection. The whole batch is
 * one query (the statements with their rows as JSON literals, run by the server as one implicit
 * transaction), so it costs one round trip and holds its row locks for the server's work only.
 */
export class PostgresReadStore implements ReadStore, ProjectorElection {
  private readonly known = new Set<string>();
  private readonly indexed = new Set<string>();
  /** The latest window whose start swept the expired counters. */
  private sweptWindow = Number.NEGATIVE_INFINITY;

  /** The pool is shared with the other stores: close() leaves it open. */
  constructor(
    readonly pool: Pool,
    private readonly options: ProjectorSeatOptions = {},
  ) {}

  /**
   * One process of those sharing the database runs the projections (see ProjectorSeat); every
   * projection batch announces its checkpoints on CHECKPOINTS_CHANNEL, so the others can answer
   * read-your-writes waits without projecting.
   */
  async joinProjectors(handlers: ProjectorHandlers): Promise<() => Promise<void>> {
    const seat = new ProjectorSeat({ ...(this.pool.options as ClientConfig) }, handlers, this.options);
    await seat.start();
    return () => seat.close();
  }

  async init(): Promise<void> {
    await runMigrations(this.pool, READ_MIGRATIONS);
  }

  async ensureCollection(spec: CollectionSpec): Promise<void> {
    await this.ensureTable(spec.name);
    const t = table(spec.name);
    const ddl: string[] = [];
    for (const index of spec.indexes ?? []) {
      const name = indexName(spec.name, index);
      if (this.indexed.has(name)) continue;
      // NULLS FIRST: ascending sorts put null and missing first (as SQLite does); scanned
      // backwards, the same index serves the descending sorts with them last.
      ddl.push(`CREATE INDEX IF NOT EXISTS ${name} ON ${t} (${index.map((f) => `(${field(f)}) NULLS FIRST`).join(', ')})`);
    }
    if (!ddl.length) return;
    await this.ddl(ddl);
    for (const index of spec.indexes ?? []) this.indexed.add(indexName(spec.name, index));
  }

  private async ensureTable(collection: string): Promise<void> {
    if (this.known.has(collection)) return;
    await this.ddl([
      `CREATE TABLE IF NOT EXISTS ${table(collection)} (id text PRIMARY KEY, doc jsonb NOT NULL, _position bigint, _generation integer NOT NULL DEFAULT 0)`,
    ]);
    this.known.add(collection);
  }

  /**
   * Schema changes under one advisory lock: two processes running CREATE TABLE IF NOT EXISTS for
   * the same name at once can both miss it and one then fails on the catalog's unique index. A
   * multi-statement simple query is one implicit transaction, which ends (and frees the lock)
   * with the query whether it succeeds or not.
   */
  private async ddl(statements: string[]): Promise<void> {
    await this.pool.query(`SELECT pg_advisory_xact_lock(hashtext('dojang_read_ddl')); ${statements.join('; ')}`);
  }

  async get<T extends ReadDoc = ReadDoc>(collection: string, id: string): Promise<T | null> {
    await this.ensureTable(collection);
    const { rows } = await this.pool.query<{ doc: string }>(prepared(`SELECT doc::text AS doc FROM ${table(collection)} WHERE id = $1`, [encodeString(id)]));
    return rows.length ? parseDoc<T>(rows[0].doc) : null;
  }

  async getMany<T extends ReadDoc = ReadDoc>(collection: string, ids: string[]): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    if (!ids.length) return out;
    await this.ensureTable(collection);
    const { rows } = await this.pool.query<{ doc: string }>(
      prepared(`SELECT doc::text AS doc FROM ${table(collection)} WHERE id = ANY($1::text[])`, [ids.map(encodeString)]),
    );
    for (const row of rows) {
      const doc = parseDoc<T>(row.doc);
      out.set(doc.id, doc);
    }
    return out;
  }

  async find<T extends ReadDoc = ReadDoc>(collection: string, query: FindQuery): Promise<T[]> {
    const { sql, params } = findStatement(collection, query);
    await this.ensureTable(collection);
    const { rows } = await this.pool.query<{ doc: string }>(sql, params);
    return rows.map((r) => parseDoc<T>(r.doc));
  }

  async commit(writes: Write[], checkpoints: Record<string, number>, generations: Record<string, number> = {}, reads?: BatchReads): Promise<void> {
    const readRows = readsByCollection(reads?.rows ?? []);
    const statements = [...expectStatements(readRows), ...writeStatements(writes)];
    for (const w of writes) await this.ensureTable(w.collection);
    for (const collection of readRows.keys()) await this.ensureTable(collection);
    const names = [...new Set([...Object.keys(checkpoints), ...Object.keys(generations)])].sort();
    if (!names.length && !statements.length) return;
    // The fence first: every checkpoint row is made if missing (absent = position 0, generation 0)
    // and locked, in name order, and its generation compared. A reset takes the same row lock, so
    // it cannot slip in between this check and the row writes after it; one that committed first
    // shows its generation here. Positions only move forward; on a mismatch the whole query,
    // positions included, is rolled back.
    const fence = names.map((name) => ({ name, position: checkpoints[name] ?? 0, generation: generations[name] ?? 0 }));
    const sql = [...(names.length ? [`SELECT dojang_read_fence(${escapeLiteral(JSON.stringify(fence))}::jsonb)`] : []), ...statements];
    // Delivered at commit, to the processes waiting for these positions (ProjectorSeat).
    if (names.length) sql.push(`SELECT pg_notify('${CHECKPOINTS_CHANNEL}', ${escapeLiteral(checkpointPayload(names, checkpoints))})`);
    let results: QueryResult | QueryResult[];
    try {
      // Several statements and no parameters: the simple protocol, one implicit transaction that
      // the server rolls back by itself on any error (the connection returns to the pool clean).
      results = await this.pool.query(sql.join(';\n'));
    } catch (err) {
      const { code, detail } = err as { code?: string; detail?: string };
      if (code === STALE_GENERATION) throw new StaleGenerationError(JSON.parse(detail ?? '[]') as string[]);
      if (code === ROW_CONFLICT) {
        const moved = JSON.parse(detail ?? '{}') as { table?: string; ids?: string[] };
        const collection = (moved.table ?? '').replace(/^rm_/, '');
        throw new RowConflictError((moved.ids ?? []).map((id) => ({ collection, id: decodeString(id) })));
      }
      throw err;
    }
    const count = Array.isArray(results) ? results.length : 1;
    if (count !== sql.length) throw new Error(`projection batch ran ${count} of ${sql.length} statements`);
  }

  async putIfVersion(collection: string, doc: ReadDoc, expectedVersion: number | null): Promise<boolean> {
    if (typeof doc.id !== 'string' || doc.id === '') throw new Error('read-model document without an id');
    await this.ensureTable(collection);
    const t = table(collection);
    const text = docText({ ...doc, _version: (expectedVersion ?? 0) + 1 });
    // One statement either way, so two processes claiming the same version cannot both win: the
    // UPDATE re-checks the version on the row it locked, the INSERT conflicts on the primary key.
    const result =
      expectedVersion === null
        ? await this.pool.query(prepared(`INSERT INTO ${t} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO NOTHING`, [encodeString(doc.id), text]))
        : await this.pool.query(
            prepared(`UPDATE ${t} SET doc = $2::jsonb WHERE id = $1 AND COALESCE(${field('_version')}, '0'::jsonb) = $3::jsonb`, [
              encodeString(doc.id),
              text,
              JSON.stringify(expectedVersion),
            ]),
          );
    return result.rowCount === 1;
  }

  async getCheckpoint(name: string): Promise<number> {
    return (await this.getCheckpoints([name]))[name];
  }

  async getCheckpoints(names: string[]): Promise<Record<string, number>> {
    return this.checkpointColumn(names, 'position');
  }

  async getGenerations(names: string[]): Promise<Record<string, number>> {
    return this.checkpointColumn(names, 'generation');
  }

  private async checkpointColumn(names: string[], column: 'position' | 'generation'): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    if (!names.length) return out;
    const { rows } = await this.pool.query<{ name: string; value: string }>(
      prepared(`SELECT name, ${column}::text AS value FROM read_checkpoints WHERE name = ANY($1::text[])`, [names]),
    );
    const found = new Map(rows.map((r) => [r.name, Number(r.value)]));
    for (const name of names) out[name] = found.get(name) ?? 0;
    return out;
  }

  async reset(name: string, collections: string[]): Promise<number> {
    const tables = collections.map(table);
    return this.transaction(async (client) => {
      // The checkpoint row first, as commit() takes it: a batch in flight finishes before the
      // tables are emptied, and any later one sees the new generation and rolls back. The row
      // stays (position 0, next generation): deleting it would restart the generation count.
      const { rows } = await client.query<{ generation: number }>(
        `INSERT INTO read_checkpoints AS c (name, position, generation) VALUES ($1, 0, 1)
         ON CONFLICT (name) DO UPDATE SET position = 0, generation = c.generation + 1 RETURNING c.generation`,
        [name],
      );
      // Emptied, not dropped: a running server keeps reading and writing these tables, and must
      // never meet a missing one. TRUNCATE holds its lock only until this commits.
      const existing = await client.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_class c WHERE c.relname = ANY($1::text[]) AND c.relkind = 'r' AND pg_table_is_visible(c.oid) ORDER BY c.relname`,
        [tables],
      );
      if (existing.rows.length) await client.query(`TRUNCATE ${existing.rows.map((r) => r.name).join(', ')}`);
      return rows[0].generation;
    });
  }

  async serverTime(): Promise<Date> {
    const { rows } = await this.pool.query<{ now: Date }>(prepared(`SELECT clock_timestamp() AS now`, []));
    return rows[0].now;
  }

  async incrementWindow(key: string, windowStart: number, ttlMs: number, hits = 1): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>(
      // A counter, not a record: it commits without waiting for the WAL flush (the next durable
      // commit of any session flushes it; a server crash may forget the last fraction of a second
      // of hits, letting a few more requests through). A synchronous commit costs the server
      // about three times the CPU of the upsert itself, on every request. Set for this statement's
      // own transaction only.
      prepared(
        `WITH quick AS (SELECT set_config('synchronous_commit', 'off', true))
         INSERT INTO read_windows AS w (key, window_start, count, expires_at) SELECT $1, $2, $3, $4 FROM quick
         ON CONFLICT (key, window_start) DO UPDATE SET count = w.count + EXCLUDED.count RETURNING w.count::text AS count`,
        [encodeString(key), windowStart, hits, windowStart + ttlMs],
      ),
    );
    const count = Number(rows[0].count);
    // The first hits of a window this process sees sweep the counters whose windows are over:
    // cheap (indexed), once per window and process (keys per signing link start a counter per
    // document, and each swept once before, a durable commit per document).
    if (count === hits && windowStart > this.sweptWindow) {
      this.sweptWindow = windowStart;
      await this.pool.query(prepared(`DELETE FROM read_windows WHERE expires_at <= $1`, [windowStart]));
    }
    return count;
  }

  async close(): Promise<void> {
    // The pool belongs to whoever made it (it also serves the event and blob stores).
  }

  private transaction<R>(work: (client: PoolClient) => Promise<R>): Promise<R> {
    return inTransaction(this.pool, work);
  }
}

/** `{ name: position }` as JSON, within NOTIFY's 8000-byte payload (names past it are left out: their waiters poll). */
function checkpointPayload(names: string[], checkpoints: Record<string, number>): string {
  const out: Record<string, number> = {};
  let length = 2;
  for (const name of names) {
    const position = checkpoints[name] ?? 0;
    length += JSON.stringify(name).length + String(position).length + 2;
    if (length > 7_900) break;
    out[name] = position;
  }
  return JSON.stringify(out);
}

/** Readable when it fits PostgreSQL's 63 bytes; else cut and told apart by a hash of the fields. */
function indexName(collection: string, fields: string[]): string {
  const readable = `ix_${collection}_${fields.join('_')}`;
  if (readable.length <= 63) return readable;
  return `ix_${collection}_${fnv1a(fields.join(',')).toString(16).padStart(8, '0')}`;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The read fence of a batch: one dojang_read_expect per collection read, after the generation
 * fence (whose locks order the commits) and before the writes, so a batch built on rows another
 * runner has moved since is refused whole.
 */
function expectStatements(reads: Map<string, RowRead[]>): string[] {
  return [...reads].map(([collection, rows]) => {
    const expected = rows.map((r) => ({ id: encodeString(r.id), present: r.found !== null, position: r.found?.position ?? null, generation: r.found?.generation ?? 0 }));
    return `SELECT dojang_read_expect(${escapeLiteral(table(collection))}, ${escapeLiteral(JSON.stringify(expected))}::jsonb)`;
  });
}

/**
 * The writes as a few multi-row statements, their rows in a JSON literal each. Only writes to the
 * same row depend on their order, so each collection's writes are grouped by id and sent in
 * layers: the first write of every id, then the second, and so on (one layer in the usual batch),
 * each layer one DELETE and one upsert. Ids are sorted so concurrent batches lock rows in the same
 * order.
 */
function writeStatements(writes: Write[]): string[] {
  const byCollection = new Map<string, Map<string, Write[]>>();
  for (const w of writes) {
    const id = w.op === 'put' ? w.doc.id : w.id;
    if (typeof id !== 'string' || id === '') throw new Error('read-model document without an id');
    const t = table(w.collection);
    let byId = byCollection.get(t);
    if (!byId) byCollection.set(t, (byId = new Map()));
    const queue = byId.get(id);
    if (queue) queue.push(w);
    else byId.set(id, [w]);
  }
  const out: string[] = [];
  for (const [t, byId] of byCollection) {
    const ids = [...byId.keys()].sort();
    const depth = Math.max(...[...byId.values()].map((q) => q.length));
    for (let layer = 0; layer < depth; layer++) {
      const puts: string[] = [];
      const deletes: string[] = [];
      for (const id of ids) {
        const w = byId.get(id)![layer];
        if (w?.op === 'put') {
          const position = Number.isSafeInteger(w.doc._position) ? w.doc._position : null;
          const generation = typeof w.doc._generation === 'number' ? w.doc._generation : 0;
          // The document is spliced in as JSON text (docText escapes what jsonb cannot hold).
          puts.push(`{"id":${JSON.stringify(encodeString(id))},"doc":${docText(w.doc)},"position":${JSON.stringify(position)},"generation":${JSON.stringify(generation)}}`);
        } else if (w) {
          deletes.push(JSON.stringify({ id: encodeString(id), generation: w.generation ?? 0 }));
        }
      }
      if (deletes.length) {
        out.push(
          `DELETE FROM ${t} AS r USING jsonb_to_recordset(${escapeLiteral(`[${deletes.join(',')}]`)}::jsonb) AS w(id text, generation integer)` +
            ` WHERE r.id = w.id AND r._generation <= w.generation`,
        );
      }
      if (puts.length) {
        // (generation, position) in order: a newer generation always wins, an older one never
        // does, and within one generation a replay of an older event is a no-op (a row or a put
        // without a position is not ordered, and the put wins).
        out.push(
          `INSERT INTO ${t} AS r (id, doc, _position, _generation)
           SELECT w.id, w.doc, w.position, w.generation FROM jsonb_to_recordset(${escapeLiteral(`[${puts.join(',')}]`)}::jsonb)
             AS w(id text, doc jsonb, position bigint, generation integer)
           ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, _position = EXCLUDED._position, _generation = EXCLUDED._generation
           WHERE r._generation < EXCLUDED._generation
              OR (r._generation = EXCLUDED._generation AND (r._position IS NULL OR EXCLUDED._position IS NULL OR r._position <= EXCLUDED._position))`,
        );
      }
    }
  }
  return out;
}

/** The SELECT a find() sends; exported so a test can EXPLAIN the exact statement. */
export function findStatement(collection: string, query: FindQuery): Statement {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  for (const [name, cond] of Object.entries(query.where ?? {})) {
    clauses.push(...conditionSql(field(name), cond, param));
  }
  let sql = `SELECT doc::text AS doc FROM ${table(collection)}`;
  if (clauses.length) sql += ` WHERE ${clauses.join(' AND ')}`;
  if (query.orderBy?.length) {
    sql += ` ORDER BY ${query.orderBy.map((o) => `${field(o.field)} ${o.direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`).join(', ')}`;
  }
  if (query.limit !== undefined) sql += ` LIMIT ${param(Math.max(0, Math.floor(query.limit)))}`;
  return { sql, params };
}

function conditionSql(f: string, cond: Condition, param: (value: unknown) => string): string[] {
  if (cond === null) return [`${f} IS NULL`];
  if (typeof cond !== 'object') return [`${f} = ${param(jsonParam(cond))}::jsonb`];
  const out: string[] = [];
  const ops: Array<[keyof typeof cond, string]> = [
    ['$gt', '>'],
    ['$gte', '>='],
    ['$lt', '<'],
    ['$lte', '<='],
  ];
  for (const [op, sqlOp] of ops) {
    const v = cond[op];
    if (v !== undefined) out.push(`${f} ${sqlOp} ${param(jsonParam(v as Scalar))}::jsonb`);
  }
  if (cond.$ne !== undefined) {
    out.push(cond.$ne === null ? `${f} IS NOT NULL` : `(${f} IS NULL OR ${f} <> ${param(jsonParam(cond.$ne))}::jsonb)`);
  }
  if (cond.$in !== undefined) {
    // SQL's IN never matches NULL; null in the list means "null or missing", as `field: null` does.
    const values = cond.$in.filter((v) => v !== null);
    const alternatives: string[] = [];
    if (values.length) alternatives.push(`${f} = ANY(${param(values.map(jsonParam))}::jsonb[])`);
    if (values.length < cond.$in.length) alternatives.push(`${f} IS NULL`);
    out.push(alternatives.length ? `(${alternatives.join(' OR ')})` : 'FALSE');
  }
  return out;
}
