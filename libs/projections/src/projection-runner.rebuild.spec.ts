import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { documentDecider, documentStreamId, organizationDecider, organizationStreamId, DocumentCommand, OrganizationCommand } from '@dojang/domain';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { ReadDoc } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { GenericCommandHandler } from '../../application/src/commands/command-handler';
import { ALL_PROJECTIONS, Projection, ProjectionRunner } from './index';

const T0 = Date.parse('2026-03-02T09:00:00.000Z');

/** Deterministic pseudo-random numbers (mulberry32): a failing seed can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every row of every collection the built-in projections write, by collection, ordered by id. */
async function dump(store: SqliteReadStore, projections: Projection[] = ALL_PROJECTIONS): Promise<Record<string, ReadDoc[]>> {
  const out: Record<string, ReadDoc[]> = {};
  for (const p of projections) for (const c of p.collections) out[c.name] = await store.find(c.name, { orderBy: [{ field: 'id', direction: 'asc' }] });
  return out;
}

function withoutGeneration(dumped: Record<string, ReadDoc[]>): Record<string, ReadDoc[]> {
  return Object.fromEntries(Object.entries(dumped).map(([c, rows]) => [c, rows.map(({ _generation, ...row }) => row as ReadDoc)]));
}

describe('projection rebuilds', () => {
  let dir: string;
  let events: SqliteEventStore;
  let commands: GenericCommandHandler;
  const opened: SqliteReadStore[] = [];
  const open = (name = 'read.sqlite') => {
    const store = new SqliteReadStore(path.join(dir, name));
    opened.push(store);
    return store;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-rebuild-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    commands = new GenericCommandHandler(events);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await events.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A random history over a few documents, so that most rows are touched many times and in every
   * order: edits, participants coming and going, fields, locks, sending, viewing, signing,
   * declining, trashing. Commands the decider refuses are skipped.
   */
  async function randomHistory(seed: number, steps: number): Promise<void> {
    const rnd = random(seed);
    const pick = <T>(items: T[]): T => items[Math.floor(rnd() * items.length)];
    const org = 'org_1';
    const ctx = { actor: 'test', organization_id: org, livemode: false };
    let clock = T0;
    const now = () => new Date((clock += 1000)).toISOString();
    const o = (c: Omit<OrganizationCommand, 'now'>) => commands.execute(organizationDecider, organizationStreamId(org), { ...c, now: now() } as OrganizationCommand, ctx, now);
    await o({ type: 'CreateOrganization', organization_id: org, name: 'Acme', workspace_kind: 'personal', plan: 'business' } as never);
    await o({ type: 'IssueApiKey', key_id: 'key_1', mode: 'test', key_hash: 'a'.repeat(64), key_hint: 'abcd' } as never);
    const docs: Array<{ id: string; participants: string[] }> = [];
    for (let i = 0; i < steps; i++) {
      const doc = docs.length < 3 || rnd() < 0.08 ? null : pick(docs);
      let command: Record<string, unknown>;
      if (!doc) {
        const id = `00000000-0000-4000-8000-${String(docs.length + 1).padStart(12, '0')}`;
        docs.push({ id, participants: [] });
        command = { type: 'CreateDocument', document_id: id, organization_id: org, livemode: false, title: `계약서 ${docs.length}`, content_blob: { sha256: 'b'.repeat(64), byte_size: 8 }, content_format: 'html', file: null, author_name: 'Acme', metadata: {}, from_template: null };
      } else {
        const participant = doc.participants.length ? pick(doc.participants) : 'none';
        const choice = rnd();
        if (choice < 0.2) command = { type: 'UpdateDocument', title: `제목 ${i}`, metadata: rnd() < 0.5 ? { round: String(i) } : {} };
        else if (choice < 0.35) {
          const p = `p${i}`;
          doc.participants.push(p);
          command = { type: 'AddParticipants', participants: [{ id: p, name: `참여자 ${i}`, phone: '01012345678', email: `p${i}@example.com`, role: 'signer', signing_order: 1, auth: 'none' }] };
        } else if (choice < 0.42) command = { type: 'RemoveParticipant', participant_id: participant };
        else if (choice < 0.5) command = { type: 'ReplaceFields', fields: doc.participants.map((p, k) => ({ id: `f${i}_${k}`, participant_id: p, type: 'signature', page: 1, x: 10 + (Math.floor(k / 8) % 3) * 30, y: 10 + (k % 8) * 11, width: 20, height: 10, required: true, upload_only: false })) };
        else if (choice < 0.55) command = { type: 'SetEditLock', locked: rnd() < 0.5 };
        else if (choice < 0.65) command = { type: 'SendDocument', expires_at: null, message: null, page_count: 1, original_pdf: null, links: doc.participants.map((p) => ({ participant_id: p, token_hash: `${p}`.padEnd(64, '0') })) };
        else if (choice < 0.75) command = { type: 'OpenSigningLink', participant_id: participant, ip: '203.0.113.7', user_agent: 'jest' };
        else if (choice < 0.87) command = { type: 'SignDocument', participant_id: participant, consent: true, signature: { sha256: 'c'.repeat(64), byte_size: 10 }, seal: null, ip: '203.0.113.7', user_agent: 'jest', final_pdf: { sha256: 'd'.repeat(64), byte_size: 100 }, original_sha256: null };
        else if (choice < 0.95) command = { type: 'DeclineDocument', participant_id: participant, reason: `call 010-1234-${String(i).padStart(4, '0')}`, ip: null, user_agent: null };
        else command = { type: 'TrashDocument' };
      }
      const target = doc ?? docs[docs.length - 1];
      try {
        await commands.execute(documentDecider, documentStreamId(target.id), { ...command, now: now() } as DocumentCommand, ctx, now);
      } catch {
        // Refused by the decider (the document's state does not allow it): no event.
      }
    }
  }

  /** The rows of a runner that commits after every single event: nothing coalesced, nothing batched. */
  async function oneEventPerCommit(): Promise<{ rows: Record<string, ReadDoc[]>; writes: number }> {
    const store = open('reference.sqlite');
    const runner = new ProjectionRunner(events, store, ALL_PROJECTIONS, { batchSize: 1 });
    await runner.init();
    const commit = jest.spyOn(store, 'commit');
    await runner.catchUp();
    return { rows: await dump(store), writes: commit.mock.calls.reduce((n, [batch]) => n + batch.length, 0) };
  }

  it.each([
    { seed: 1, rebuildBatchSize: 1_000, rebuildStepSize: 500 },
    { seed: 2, rebuildBatchSize: 17, rebuildStepSize: 5 },
    { seed: 3, rebuildBatchSize: 50, rebuildStepSize: 50 },
    { seed: 4, rebuildBatchSize: 1, rebuildStepSize: 1 },
  ])('gives the rows of one event per commit, writing each row once per commit (seed $seed, $rebuildBatchSize events per commit, $rebuildStepSize per step)', async ({ seed, rebuildBatchSize, rebuildStepSize }) => {
    await randomHistory(seed, 300);
    const head = await events.headPosition();
    const { rows: reference, writes: perEvent } = await oneEventPerCommit();

    const reads = open();
    const runner = new ProjectionRunner(events, reads, ALL_PROJECTIONS, { rebuildBatchSize, rebuildStepSize });
    await runner.init();
    await runner.catchUp();
    const commit = jest.spyOn(reads, 'commit');
    await runner.rebuild();

    expect(withoutGeneration(await dump(reads))).toEqual(reference);
    expect(commit).toHaveBeenCalledTimes(Math.ceil(head / rebuildBatchSize));
    let writes = 0;
    for (const [batch] of commit.mock.calls) {
      const rows = batch.map((w) => `${w.collection}/${w.op === 'put' ? w.doc.id : w.id}`);
      expect(new Set(rows).size).toBe(rows.length);
      writes += rows.length;
    }
    // Rows many events touched are written once per commit, not once per event: fewer writes than
    // the same events committed one at a time (not fewer than events: a document's event may write
    // several rows, its metadata rows among them).
    if (rebuildBatchSize >= 50) expect(writes).toBeLessThan(perEvent * 0.8);
  });

  it('builds rows no event named yet from nothing, without reading them, and reads those an earlier commit wrote', async () => {
    await randomHistory(5, 120);
    // Counts each document's edits: a row built on a wrongly absent one would count fewer.
    const titles: Projection = {
      name: 'titles',
      collections: [{ name: 'titles' }],
      handles: new Set(['DocumentCreated', 'DocumentUpdated']),
      keys: (event) => [{ collection: 'titles', id: event.stream_id.slice('document-'.length) }],
      evolve: (event, rows) => {
        const id = event.stream_id.slice('document-'.length);
        const previous = rows('titles', id) as (ReadDoc & { edits: number }) | null;
        return [{ op: 'put', collection: 'titles', doc: { id, title: (event.data as { title?: string }).title ?? null, edits: (previous?.edits ?? -1) + 1 } }];
      },
    };
    const projections = [...ALL_PROJECTIONS, titles];
    const reference = open('reference.sqlite');
    const scratch = new ProjectionRunner(events, reference, projections, { batchSize: 1 });
    await scratch.init();
    await scratch.catchUp();

    const reads = open();
    const batchSize = 20;
    const runner = new ProjectionRunner(events, reads, projections, { rebuildBatchSize: batchSize, rebuildStepSize: 7 });
    await runner.init();
    await runner.catchUp();
    const getMany = jest.spyOn(reads, 'getMany');
    let commits = 0;
    const commit = reads.commit.bind(reads);
    jest.spyOn(reads, 'commit').mockImplementation(async (...args) => {
      commits++;
      return commit(...args);
    });
    const readsIn: Array<{ collection: string; ids: string[]; batch: number }> = [];
    getMany.mockImplementation(async function (this: SqliteReadStore, collection: string, ids: string[]) {
      readsIn.push({ collection, ids, batch: commits });
      return SqliteReadStore.prototype.getMany.call(reads, collection, ids);
    } as never);
    await runner.rebuild(['titles']);

    // A titles row is read only in a batch after the one its document was created in (an earlier
    // commit wrote it); the batch that first names it builds it from nothing.
    const createdAt = new Map((await events.readAll(0, 10_000)).filter((e) => e.type === 'DocumentCreated').map((e) => [e.stream_id.slice('document-'.length), e.global_position]));
    const titleReads = readsIn.filter((r) => r.collection === 'titles');
    expect(titleReads.length).toBeGreaterThan(0);
    for (const { ids, batch } of titleReads) for (const id of ids) expect(createdAt.get(id)).toBeLessThanOrEqual(batch * batchSize);
    const firstBatchIds = [...createdAt].filter(([, position]) => position <= batchSize).map(([id]) => id);
    expect(firstBatchIds.length).toBeGreaterThan(0);
    expect(titleReads.filter((r) => r.batch === 0)).toEqual([]);
    const rebuilt = withoutGeneration(await dump(reads, [titles]));
    expect(rebuilt).toEqual(await dump(reference, [titles]));
    expect(rebuilt.titles.some((row) => (row.edits as number) > 1)).toBe(true);
  });

  it('goes on from the rows of a rebuild that overtook it, not from what it had seen itself', async () => {
    await randomHistory(6, 400);
    const head = await events.headPosition();
    const { rows: reference, writes: perEvent } = await oneEventPerCommit();

    // The first rebuild (A) commits a few small batches, then a second one (B) on another
    // connection resets the projections again and gets further before it dies; A's next commit
    // is refused by the generation fence and A goes on from B's checkpoint, on B's rows.
    const readsA = open();
    const readsB = open();
    const a = new ProjectionRunner(events, readsA, ALL_PROJECTIONS, { rebuildBatchSize: 5, rebuildStepSize: 5 });
    const b = new ProjectionRunner(events, readsB, ALL_PROJECTIONS, { rebuildBatchSize: 40, rebuildStepSize: 10 });
    await a.init();
    await b.init();
    const commitB = readsB.commit.bind(readsB);
    let commitsB = 0;
    jest.spyOn(readsB, 'commit').mockImplementation(async (...args) => {
      if (++commitsB > 3) throw new Error('B died');
      return commitB(...args);
    });
    const commitA = readsA.commit.bind(readsA);
    let commitsA = 0;
    let overtaken = false;
    jest.spyOn(readsA, 'commit').mockImplementation(async (...args) => {
      if (++commitsA === 3) {
        await expect(b.rebuild()).rejects.toThrow('B died');
        overtaken = true;
      }
      return commitA(...args);
    });
    await a.rebuild();

    expect(overtaken).toBe(true);
    expect(commitsB).toBe(4);
    // B got past where A was when it was overtaken (A's 2 commits of 5 events, B's 3 of 40).
    expect(head).toBeGreaterThan(120);
    expect(withoutGeneration(await dump(readsA))).toEqual(reference);
  });
  it('lets the event loop in between commits and stops after the commit under way (the CLI on Ctrl-C), with the indexes back; a server goes on from there', async () => {
    await randomHistory(7, 200);
    const head = await events.headPosition();
    const { rows: reference, writes: perEvent } = await oneEventPerCommit();
    const reads = open();
    const indexes = () => (reads.db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`).get() as { n: number }).n;
    const runner = new ProjectionRunner(events, reads, ALL_PROJECTIONS, { rebuildBatchSize: 10, rebuildStepSize: 10 });
    await runner.init();
    await runner.catchUp();
    const indexCount = indexes();
    const positions: number[] = [];
    let during = -1;
    await runner.rebuild(undefined, (p) => {
      positions.push(p.position);
      // As a signal handler would: from the event loop, not from inside the replay.
      if (positions.length === 1) {
        during = indexes();
        setImmediate(() => void runner.stop());
      }
    });
    expect(positions).toEqual([10, 20]);
    expect(during).toBeLessThan(indexCount);
    expect(indexes()).toBe(indexCount);
    expect(await reads.getCheckpoint('documents')).toBe(20);
    expect(head).toBeGreaterThan(20);

    // A server's runner (at the rebuild's generation, as after its reload) replays the rest.
    const server = new ProjectionRunner(events, open(), ALL_PROJECTIONS);
    await server.init();
    await server.catchUp();
    expect(withoutGeneration(await dump(reads))).toEqual(reference);
  });
});
