import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { Write } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { PROJECTION_STATUS, recordProjectionError } from './projection-status';

const COUNTS = 'report_counts';
/** Version 1 counts ticks; version 2 counts them double (evolve changed what it writes). */
const counter = (version: number): Projection => ({
  name: 'counter',
  version,
  collections: [{ name: COUNTS }],
  handles: new Set(['Tick']),
  keys: () => [{ collection: COUNTS, id: 'n' }],
  evolve: (_e, rows): Write[] => [{ op: 'put', collection: COUNTS, doc: { id: 'n', n: Number(rows(COUNTS, 'n')?.n ?? 0) + version } }],
});

describe('projection versions', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-version-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    const tick = () => ({ event_id: randomUUID(), type: 'Tick', data: {}, metadata: { occurred_at: '2026-03-02T09:00:00.000Z', actor: 'test', schema_version: 1 } });
    await events.append('ticks', [tick(), tick(), tick()], 'no_stream');
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function project(p: Projection) {
    const runner = new ProjectionRunner(events, reads, [p]);
    await runner.init();
    await runner.catchUp();
    return runner;
  }

  it('a new version resets the projection and replays the log into it', async () => {
    await project(counter(1));
    expect(await reads.get(COUNTS, 'n')).toMatchObject({ n: 3 });
    await project(counter(2));
    expect(await reads.get(COUNTS, 'n')).toMatchObject({ n: 6 });
    expect(await reads.getGenerations(['counter'])).toEqual({ counter: 1 });
    expect(await reads.get(PROJECTION_STATUS, 'counter')).toMatchObject({ version: 2 });
  });

  it('the same version resumes from its checkpoint (no replay on restart)', async () => {
    await project(counter(1));
    await project(counter(1));
    expect(await reads.get(COUNTS, 'n')).toMatchObject({ n: 3 });
    expect(await reads.getGenerations(['counter'])).toEqual({ counter: 0 });
  });

  it('a projection never recorded (an existing data directory) keeps its rows and checkpoint', async () => {
    await project(counter(1));
    // As before versions existed: no status row.
    await reads.commit([{ op: 'delete', collection: PROJECTION_STATUS, id: 'counter' }], {});
    await project(counter(1));
    expect(await reads.get(COUNTS, 'n')).toMatchObject({ n: 3 });
    expect(await reads.getGenerations(['counter'])).toEqual({ counter: 0 });
    expect(await reads.get(PROJECTION_STATUS, 'counter')).toMatchObject({ version: 1 });
  });

  it('records the last error per projection, keeping the version', async () => {
    await project(counter(1));
    await recordProjectionError(reads, ['counter'], new Error('boom'), new Date('2026-03-02T10:00:00.000Z'));
    expect(await reads.get(PROJECTION_STATUS, 'counter')).toMatchObject({ version: 1, last_error: 'boom', last_error_at: '2026-03-02T10:00:00.000Z' });
  });
});
