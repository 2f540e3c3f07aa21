import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { Pool } from 'pg';
import { EventStore, NewEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { createPostgresPool } from '@dojang/postgres';
import { POSTGRES_SKIP_MESSAGE, postgresTestServer, throwawayPostgresDatabase } from '@dojang/postgres/testing/postgres-test-database';
import { ReadDoc, ReadStore } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { PostgresReadStore } from '@dojang/read-store/postgres';
import { BULK_SENDS, BULK_SEND_ROWS, BulkSendRow, bulkSendProjection, bulkSendRowId } from './bulk-send.projection';
import { DOCUMENTS, documentProjection } from './document.projection';
import { ProjectionRunner } from './projection-runner';

const JOB = 'bulk_0123456789abcdef01234567';
const STREAM = `bulk-send-${JOB}`;
const T0 = '2027-01-04T01:00:00.000Z';
const meta = { occurred_at: T0, actor: 'test', organization_id: 'org_1', livemode: false, schema_version: 1 };
const event = (type: string, data: Record<string, unknown>): NewEvent => ({ event_id: randomUUID(), type, data, metadata: meta });
const started = (rowCount: number) =>
  event('BulkSendStarted', {
    bulk_send_id: JOB,
    organization_id: 'org_1',
    livemode: false,
    template_id: 'tmpl_1',
    template_version: 1,
    row_count: rowCount,
    rows_blob: { sha256: 'c'.repeat(64), byte_size: 10 },
    title: null,
    message: null,
    expires_in_days: null,
    started_at: T0,
  });
const rowSent = (row: number) => event('BulkSendRowSent', { row, document_id: `00000000-0000-4000-8000-${String(row).padStart(12, '0')}`, external_id: null, sent_at: T0 });

/** The log as a runner that read it before anything past `cap` was appended sees it. */
const upTo = (events: EventStore, cap: number): EventStore =>
  new Proxy(events, {
    get(target, prop, receiver) {
      if (prop === 'readAll') return async (after: number, limit: number) => (await target.readAll(after, limit)).filter((e) => e.global_position <= cap);
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

/** A read store that runs `meanwhile` (once) right after its first read of `collection`. */
const pausingAfterRead = (store: ReadStore, collection: string, meanwhile: () => Promise<void>): ReadStore => {
  let paused = false;
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'getMany') {
        return async (c: string, ids: string[]) => {
          const found = await target.getMany(c, ids);
          if (c === collection && !paused) {
            paused = true;
            await meanwhile();
          }
          return found;
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};

/**
 * Two processes projecting into one store (the embedded store: every API and worker process runs
 * its own runner; PostgreSQL: the elected projector beside a follower's fallback catch-up, or a
 * projector handing over). A runner reads the rows a batch touches with a few queries, outside
 * the commit's transaction; another runner's commit can land between them. Seen in the bulk-send
 * kill test as a job `completed` with `sent: 992, pending: 5` while all 997 rows were sent.
 */
function concurrentRunners(kind: string, open: () => Promise<{ events: EventStore; a: ReadStore; b: ReadStore; close(): Promise<void> }>) {
  describe(`two projection runners on one ${kind} store`, () => {
    let env: Awaited<ReturnType<typeof open>>;
    beforeEach(async () => {
      env = await open();
    });
    afterEach(async () => {
      await env.close();
    });

    it('a commit landing between a batch\'s reads of the job row and of its row outcomes loses no count', async () => {
      const { events, a, b } = env;
      await events.append(STREAM, [started(5)], 'no_stream');
      const first = new ProjectionRunner(events, a, [bulkSendProjection]);
      await first.init();
      await first.catchUp();
      await events.append(STREAM, [1, 2, 3, 4, 5].map(rowSent), 0);
      // The other runner read the log when rows 1-3 were in it (positions 2-4) and commits them
      // after this runner read the job row (sent 0) and before it reads the row outcomes.
      const other = new ProjectionRunner(upTo(events, 4), b, [bulkSendProjection]);
      await other.init();
      const runner = new ProjectionRunner(events, pausingAfterRead(a, BULK_SENDS, () => other.catchUp()), [bulkSendProjection]);
      await runner.init();
      await runner.catchUp();
      // It has applied the whole log (the other runner's three rows included): so has the job row.
      for (const row of [1, 2, 3, 4, 5]) expect(await a.get(BULK_SEND_ROWS, bulkSendRowId(JOB, row))).toMatchObject({ state: 'sent' });
      expect(await a.get<BulkSendRow>(BULK_SENDS, JOB)).toMatchObject({ sent: 5, _position: 6 });
    });

    it('many runners racing over a growing log end where one runner alone ends', async () => {
      const { events, a, b } = env;
      const ROWS = 60;
      await events.append(STREAM, [started(ROWS)], 'no_stream');
      // Each runner's reads yield to the others between queries, at pseudo-random moments. A
      // stress check beside the two exact interleavings: with real I/O timing it is not one
      // schedule (before the fence it ended 56-58 of 60 on SQLite every time, on PostgreSQL
      // once in two runs).
      let seed = 7;
      const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const yielding = (store: ReadStore): ReadStore =>
        new Proxy(store, {
          get(target, prop, receiver) {
            if (prop === 'getMany') {
              return async (c: string, ids: string[]) => {
                await new Promise((resolve) => setTimeout(resolve, Math.floor(rnd() * 3)));
                const found = await target.getMany(c, ids);
                await new Promise((resolve) => setTimeout(resolve, Math.floor(rnd() * 3)));
                return found;
              };
            }
            const value = Reflect.get(target, prop, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      const runners = [a, b, a, b].map((store, i) => new ProjectionRunner(events, yielding(store), [bulkSendProjection], { batchSize: 2 + i }));
      for (const r of runners) await r.init();
      let revision = 0;
      for (let row = 1; row <= ROWS; row += 3) {
        const appended = await events.append(STREAM, [row, row + 1, row + 2].filter((n) => n <= ROWS).map(rowSent), revision);
        revision = appended.next_expected_revision;
        await Promise.all(runners.map((r) => r.catchUp()));
      }
      await Promise.all(runners.map((r) => r.catchUp()));
      expect(await a.get<BulkSendRow>(BULK_SENDS, JOB)).toMatchObject({ sent: ROWS, failed: 0 });
    });

    it('a document row is not left behind by an event its metadata rows already carry', async () => {
      // The same shape in another projection: an event naming two rows (the document and a
      // metadata slot), one of them read before another runner's commit, the other after.
      const { events, a, b } = env;
      const DOC = '00000000-0000-4000-8000-0000000000d1';
      const docStream = `document-${DOC}`;
      const created = event('DocumentCreated', {
        document_id: DOC,
        organization_id: 'org_1',
        livemode: false,
        title: '계약서',
        content_blob: { sha256: 'b'.repeat(64), byte_size: 8 },
        content_format: 'html',
        file: null,
        author_name: 'Acme',
        metadata: {},
        from_template: null,
        created_at: T0,
      });
      await events.append(docStream, [created], 'no_stream');
      const first = new ProjectionRunner(events, a, [documentProjection]);
      await first.init();
      await first.catchUp();
      // Position 2 names the metadata slots; position 3 (a title alone) names the document only.
      await events.append(docStream, [event('DocumentUpdated', { title: '둘', metadata: { k: '1' }, updated_at: T0 }), event('DocumentUpdated', { title: '셋', updated_at: T0 })], 0);
      const other = new ProjectionRunner(upTo(events, 2), b, [documentProjection]);
      await other.init();
      const runner = new ProjectionRunner(events, pausingAfterRead(a, DOCUMENTS, () => other.catchUp()), [documentProjection]);
      await runner.init();
      await runner.catchUp();
      const doc = await a.get<ReadDoc>(DOCUMENTS, DOC);
      expect(doc).toMatchObject({ title: '셋', metadata: { k: '1' }, _position: 3 });
    });
  });
}

concurrentRunners('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-runners-'));
  const events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
  const a = new SqliteReadStore(path.join(dir, 'read.sqlite'));
  const b = new SqliteReadStore(path.join(dir, 'read.sqlite'));
  return {
    events,
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await events.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

const pgServer = postgresTestServer();
if (pgServer) {
  let pool: Pool;
  afterAll(async () => {
    await pool?.end();
  });
  const database = throwawayPostgresDatabase(pgServer, 'dojang_runners');
  beforeAll(() => {
    pool = createPostgresPool(database.url(), { max: 4, applicationName: 'concurrent-runners' });
  });
  concurrentRunners('PostgreSQL', async () => {
    // The log stays embedded: the race is the read store's.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-runners-'));
    const events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    await pool.query(`DROP SCHEMA public CASCADE; CREATE SCHEMA public`);
    const a = new PostgresReadStore(pool);
    await a.init();
    const b = new PostgresReadStore(pool);
    return {
      events,
      a,
      b,
      async close() {
        await events.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
} else {
  console.warn(POSTGRES_SKIP_MESSAGE);
}
