import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { Decider } from '@dojang/domain';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { TracingHandle, startTracing } from '../runtime/observability/tracing';
import { ProjectionDriver } from '../runtime/projection-driver';
import { CommandEntry } from './command-entry';

type Counted = { type: 'Counted'; data: { n: number } };
const counter: Decider<number, { type: 'Count' }, Counted> = {
  initialState: () => 0,
  evolve: (_n, e) => e.data.n,
  decide: (_c, n) => [{ type: 'Counted', data: { n: n + 1 } }],
};
const now = () => '2026-11-28T07:00:00.000Z';

/** A projection driver that has applied up to `position` and never gets further by waiting. */
function stuckProjections(position: number) {
  return { position, waitFor: jest.fn(async (p: number) => p <= position), catchUp: jest.fn(async () => undefined) };
}

describe('CommandEntry, the one way into the write side', () => {
  let dir: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-entry-'));
    store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('waits for the projections only when asked, and projects in place when the wait gives up', async () => {
    const projections = stuckProjections(0);
    const warn = jest.fn();
    const entry = new CommandEntry(store, projections as unknown as ProjectionDriver, { warn } as never);

    // A reactor's command: decided and appended, nothing waited on.
    const quiet = await entry.decide(counter, 'count-1', { type: 'Count' }, { actor: 'system' }, now);
    expect(quiet.state).toBe(1);
    expect(projections.waitFor).not.toHaveBeenCalled();

    // An answer to a client: waits for its position; the stuck follower is caught up here, and
    // what is still missing is logged, not hidden.
    const answered = await entry.decide(counter, 'count-1', { type: 'Count' }, { actor: 'test' }, now, { waitForProjections: true });
    expect(projections.waitFor).toHaveBeenCalledWith(answered.position);
    expect(projections.catchUp).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith({ projections_position: 0, append_position: answered.position }, 'read-your-writes wait gave up');
  });

  it('decides on from a folded stream the caller kept, reading only what came after it', async () => {
    const entry = new CommandEntry(store);
    const first = await entry.decide(counter, 'count-2', { type: 'Count' }, { actor: 'test' }, now, { newStream: true });
    const read = jest.spyOn(store, 'readStream');
    const next = await entry.decide(counter, 'count-2', { type: 'Count' }, { actor: 'test' }, now, { known: { state: first.state, revision: first.revision } });
    expect(next.state).toBe(2);
    expect(read).toHaveBeenCalledWith('count-2', { fromRevision: first.revision + 1 });
  });

  it('opens one span per command, named for its stream kind', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing: TracingHandle = await startTracing({ serviceName: 'command-entry-spec', exporter });
    try {
      await new CommandEntry(store).decide(counter, 'count-3', { type: 'Count' }, { actor: 'test' }, now);
      const span = exporter.getFinishedSpans().find((s) => s.name === 'command count');
      expect(span?.attributes['dojang.stream_id']).toBe('count-3');
    } finally {
      await tracing.shutdown();
    }
  });

  it('refuses a read-your-writes wait it has no projections for before writing anything', async () => {
    await expect(new CommandEntry(store).decide(counter, 'count-4', { type: 'Count' }, { actor: 'test' }, now, { waitForProjections: true })).rejects.toThrow(
      'read-your-writes asked of a command entry with no projections',
    );
    expect(await store.readStream('count-4')).toEqual([]);
  });
});
