import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomUUID } from 'crypto';
import { documentDecider, documentStreamId, organizationDecider, organizationStreamId, DocumentCommand, OrganizationCommand } from '@dojang/domain';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { ReadDoc } from '@dojang/read-store';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { GenericCommandHandler } from '../../application/src/commands/command-handler';
import { ProjectionSpecification } from './testing';
import { ALL_PROJECTIONS, ProjectionRunner, auditTrailProjection, DOCUMENTS, AUDIT_ENTRIES, AUDIT_PEOPLE, PUBLIC_EVENTS, SIGNING_TOKENS, ORGANIZATIONS, API_KEYS } from './index';

const T0 = '2026-03-02T09:00:00.000Z';
const now = () => T0;

async function dump(store: SqliteReadStore): Promise<Record<string, ReadDoc[]>> {
  const out: Record<string, ReadDoc[]> = {};
  for (const c of [DOCUMENTS, AUDIT_ENTRIES, AUDIT_PEOPLE, PUBLIC_EVENTS, SIGNING_TOKENS, ORGANIZATIONS, API_KEYS]) {
    out[c] = await store.find(c, { orderBy: [{ field: 'id', direction: 'asc' }] });
  }
  return out;
}

/** Rows as a rebuild leaves them, minus the generation stamp it adds. */
function withoutGeneration(dumped: Record<string, ReadDoc[]>): Record<string, ReadDoc[]> {
  return Object.fromEntries(Object.entries(dumped).map(([c, rows]) => [c, rows.map(({ _generation, ...row }) => row as ReadDoc)]));
}

describe('projections', () => {
  let dir: string;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let commands: GenericCommandHandler;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-proj-'));
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    commands = new GenericCommandHandler(events);
  });
  afterEach(async () => {
    await events.close();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A small but complete history: an organization with a key, and a document signed to completion. */
  async function seed() {
    const org = 'org_1';
    const ctx = { actor: 'test', organization_id: org, livemode: false };
    const o = (c: Omit<OrganizationCommand, 'now'>) => commands.execute(organizationDecider, organizationStreamId(org), { ...c, now: T0 } as OrganizationCommand, ctx, now);
    await o({ type: 'CreateOrganization', organization_id: org, name: 'Acme', workspace_kind: 'personal', plan: 'business' } as never);
    await o({ type: 'IssueApiKey', key_id: 'key_1', mode: 'test', key_hash: 'a'.repeat(64), key_hint: 'abcd' } as never);
    const id = randomUUID();
    const p = randomUUID();
    const d = (c: Omit<DocumentCommand, 'now'>) => commands.execute(documentDecider, documentStreamId(id), { ...c, now: T0 } as DocumentCommand, ctx, now);
    await d({ type: 'CreateDocument', document_id: id, organization_id: org, livemode: false, title: '계약서', content_blob: { sha256: 'b'.repeat(64), byte_size: 8 }, content_format: 'html', file: null, author_name: 'Acme', metadata: {}, from_template: null } as never);
    await d({ type: 'AddParticipants', participants: [{ id: p, name: '김철수', phone: '01012345678', email: 'kim@example.com', role: 'signer', signing_order: 1, auth: 'none' }] } as never);
    await d({ type: 'ReplaceFields', fields: [{ id: randomUUID(), participant_id: p, type: 'signature', page: 1, x: 10, y: 10, width: 20, height: 10, required: true, upload_only: false }] } as never);
    await d({ type: 'SendDocument', expires_at: null, message: null, page_count: 1, original_pdf: null, links: [{ participant_id: p, token_hash: 'b'.repeat(64) }] } as never);
    await d({ type: 'OpenSigningLink', participant_id: p, ip: '203.0.113.7', user_agent: 'jest' } as never);
    await d({
      type: 'SignDocument', participant_id: p, consent: true, signature: { sha256: 'c'.repeat(64), byte_size: 10 }, seal: null,
      ip: '203.0.113.7', user_agent: 'jest', final_pdf: { sha256: 'd'.repeat(64), byte_size: 100 }, original_sha256: null,
    } as never);
    return { id, p };
  }

  it('builds every read model from the log', async () => {
    const { id } = await seed();
    const runner = new ProjectionRunner(events, reads, ALL_PROJECTIONS);
    await runner.init();
    await runner.catchUp();
    const doc = await reads.get<ReadDoc & { status: string }>(DOCUMENTS, id);
    expect(doc?.status).toBe('completed');
    const types = (await reads.find<ReadDoc & { type: string }>(PUBLIC_EVENTS, { orderBy: [{ field: 'seq', direction: 'asc' }] })).map((e) => e.type);
    expect(types).toEqual(['document.sent', 'document.viewed', 'participant.signed', 'document.completed']);
    expect(runner.position).toBe(await events.headPosition());
  });

  it('is idempotent: applying the whole log twice gives the same rows as once', async () => {
    await seed();
    const once = new ProjectionRunner(events, reads, ALL_PROJECTIONS);
    await once.init();
    await once.catchUp();
    const afterOnce = await dump(reads);
    // Lose every checkpoint (a crash between the row writes and the checkpoint write) and replay.
    reads.db.exec('DELETE FROM checkpoints');
    const twice = new ProjectionRunner(events, reads, ALL_PROJECTIONS);
    await twice.init();
    await twice.catchUp();
    expect(await dump(reads)).toEqual(afterOnce);
    expect((await reads.find(AUDIT_ENTRIES, {})).length).toBe(afterOnce[AUDIT_ENTRIES].length);
  });

  it('is idempotent from every position: a checkpoint behind rows already written (mid-stream) changes nothing', async () => {
    await seed();
    const once = new ProjectionRunner(events, reads, ALL_PROJECTIONS);
    await once.init();
    await once.catchUp();
    const afterOnce = await dump(reads);
    const head = await events.headPosition();
    expect(head).toBeGreaterThan(2);
    // From 0 the stream's first event (DocumentCreated, OrganizationCreated) resets its rows, which
    // hides a double application of what follows; from 1…head-1 only the "already applied" guard does.
    for (let from = 1; from < head; from++) {
      reads.db.prepare('UPDATE checkpoints SET position = ?').run(from);
      const replay = new ProjectionRunner(events, reads, ALL_PROJECTIONS, { batchSize: 2 });
      await replay.init();
      await replay.catchUp();
      expect({ from, rows: await dump(reads) }).toEqual({ from, rows: afterOnce });
    }
  });

  it('converges when two runners (server and CLI) project the same log concurrently', async () => {
    await seed();
    const a = new ProjectionRunner(events, reads, ALL_PROJECTIONS, { batchSize: 2 });
    const other = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    const b = new ProjectionRunner(events, other, ALL_PROJECTIONS, { batchSize: 3 });
    await a.init();
    await b.init();
    await Promise.all([a.catchUp(), b.catchUp()]);
    const together = await dump(reads);
    await other.close();
    const fresh = new SqliteReadStore(path.join(dir, 'fresh.sqlite'));
    const c = new ProjectionRunner(events, fresh, ALL_PROJECTIONS);
    await c.init();
    await c.catchUp();
    expect(await dump(fresh)).toEqual(together);
    await fresh.close();
  });

  it('rebuilds a projection from zero to the same state', async () => {
    await seed();
    const runner = new ProjectionRunner(events, reads, ALL_PROJECTIONS);
    await runner.init();
    await runner.catchUp();
    const before = await dump(reads);
    expect(await runner.rebuild(['documents', 'audit_trail'])).toEqual(['documents', 'audit_trail']);
    // The same rows, now stamped with the projections' new generation.
    expect(withoutGeneration(await dump(reads))).toEqual(before);
    await expect(runner.rebuild(['nope'])).rejects.toThrow(/unknown projection/);
  });

  it('rebuilds in batches: row reads and commits per batch, not per event, with progress after each', async () => {
    await seed();
    const ctx = { actor: 'test', organization_id: 'org_1', livemode: false };
    for (let i = 0; i < 40; i++) {
      const id = randomUUID();
      await commands.execute(documentDecider, documentStreamId(id), { type: 'CreateDocument', now: T0, document_id: id, organization_id: 'org_1', livemode: false, title: `계약서 ${i}`, content_blob: { sha256: 'a'.repeat(64), byte_size: 8 }, content_format: 'html', file: null, author_name: 'Acme', metadata: {}, from_template: null } as DocumentCommand, ctx, now);
    }
    const runner = new ProjectionRunner(events, reads, ALL_PROJECTIONS, { rebuildBatchSize: 10 });
    await runner.init();
    await runner.catchUp();
    const before = await dump(reads);
    const head = await events.headPosition();
    const getMany = jest.spyOn(reads, 'getMany');
    const commit = jest.spyOn(reads, 'commit');
    const progress: Array<{ position: number; head: number; events: number }> = [];
    await runner.rebuild(undefined, (p) => progress.push(p));
    const batches = Math.ceil(head / 10);
    expect(commit).toHaveBeenCalledTimes(batches);
    // At most one read per collection per batch (rows written earlier in the batch are not read again).
    const collections = ALL_PROJECTIONS.reduce((n, p) => n + p.collections.length, 0);
    expect(getMany.mock.calls.length).toBeLessThanOrEqual(batches * collections);
    expect(getMany.mock.calls.length).toBeLessThan(head);
    expect(progress.at(-1)).toEqual({ position: head, head, events: head });
    expect(progress.map((p) => p.position)).toEqual([...progress.map((p) => p.position)].sort((a, b) => a - b));
    expect(withoutGeneration(await dump(reads))).toEqual(before);
  });

  it('rebuilds correctly while a server keeps projecting new events into the same store', async () => {
    await seed();
    const org = 'org_1';
    const ctx = { actor: 'test', organization_id: org, livemode: false };
    const draft = randomUUID();
    const d = (c: Omit<DocumentCommand, 'now'>) => commands.execute(documentDecider, documentStreamId(draft), { ...c, now: T0 } as DocumentCommand, ctx, now);
    await d({ type: 'CreateDocument', document_id: draft, organization_id: org, livemode: false, title: '초안', content_blob: { sha256: 'b'.repeat(64), byte_size: 8 }, content_format: 'html', file: null, author_name: 'Acme', metadata: {}, from_template: null } as never);
    const server = new ProjectionRunner(events, reads, ALL_PROJECTIONS);
    await server.init();
    await server.catchUp();

    // The CLI rebuilds on its own connection. Right after its reset, before its replay, the
    // server projects an edit of a document the rebuild has not reached yet.
    const cliStore = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    const cli = new ProjectionRunner(events, cliStore, ALL_PROJECTIONS, { batchSize: 2 });
    await cli.init();
    const reset = cliStore.reset.bind(cliStore);
    jest.spyOn(cliStore, 'reset').mockImplementation(async (name, collections) => {
      const generation = await reset(name, collections);
      await d({ type: 'UpdateDocument', title: '수정된 초안' } as never);
      await server.catchUp();
      return generation;
    });
    await cli.rebuild(['documents']);
    // And the server goes on after the rebuild.
    await d({ type: 'UpdateDocument', metadata: { round: '2' } } as never);
    await server.catchUp();
    await cliStore.close();

    const row = await reads.get<ReadDoc & { title: string; organization_id: string; metadata: Record<string, string> }>(DOCUMENTS, draft);
    expect(row).toMatchObject({ title: '수정된 초안', organization_id: org, metadata: { round: '2' }, _generation: 1 });
    const fresh = new SqliteReadStore(path.join(dir, 'fresh.sqlite'));
    const scratch = new ProjectionRunner(events, fresh, ALL_PROJECTIONS);
    await scratch.init();
    await scratch.catchUp();
    expect(withoutGeneration(await dump(reads))).toEqual(await dump(fresh));
    expect(server.position).toBe(await events.headPosition());
    await fresh.close();
  });

  it('waitFor resolves once the position is projected (read-your-writes)', async () => {
    const runner = new ProjectionRunner(events, reads, ALL_PROJECTIONS);
    await runner.start();
    const { id } = await seed();
    const head = await events.headPosition();
    await expect(runner.waitFor(head, 5000)).resolves.toBe(true);
    expect((await reads.get(DOCUMENTS, id))?._position).toBe(head);
    await runner.stop();
  });

  it('masks personal data in the audit trail (test kit: also twice = once over a whole lifecycle)', async () => {
    await seed();
    const log = await events.readAll(0, 1000);
    ProjectionSpecification.for(auditTrailProjection)
      .given([])
      .when(log)
      .then((rows) => {
        const text = JSON.stringify(rows.all(AUDIT_ENTRIES));
        expect(text).not.toContain('01012345678');
        expect(text).not.toContain('kim@example.com');
        expect(text).toContain('203.0.113.7');
        // The people the entries are attributed to are kept masked too: no collection of this
        // projection holds a raw phone number or address.
        const people = rows.all(AUDIT_PEOPLE);
        expect(people).toHaveLength(1);
        const peopleText = JSON.stringify(people);
        expect(peopleText).toContain('김철수');
        expect(peopleText).not.toContain('01012345678');
        expect(peopleText).not.toContain('12345678');
        expect(peopleText).not.toContain('kim@example.com');
        expect(peopleText).not.toContain('kim@');
      });
  });
});
