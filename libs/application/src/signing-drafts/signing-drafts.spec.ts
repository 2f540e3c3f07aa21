import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { SIGNING_DRAFTS, SigningDraftStore } from './signing-drafts';

describe('SigningDraftStore.clear', () => {
  let dir: string;
  let reads: SqliteReadStore;
  let drafts: SigningDraftStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'drafts-'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    drafts = new SigningDraftStore(reads);
  });
  afterEach(() => {
    reads.db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes nothing for a signer who never saved a draft (most of them): no write transaction at signing or by the reactor', async () => {
    await drafts.merge('d1', 'p1', 'h1', '2026-11-29T00:00:00.000Z', () => ({ f1: 'kept' }));
    const commit = jest.spyOn(reads, 'commit');
    await drafts.clear('d1', 'p2');
    await drafts.clear('d2', 'p1');
    await drafts.clear('d2');
    expect(commit).not.toHaveBeenCalled();
    expect(await reads.get(SIGNING_DRAFTS, 'd1:p1')).toMatchObject({ values: { f1: 'kept' } });
  });

  it("removes the participant's draft, or every draft of the document", async () => {
    for (const p of ['p1', 'p2', 'p3']) await drafts.merge('d1', p, 'h1', '2026-11-29T00:00:00.000Z', () => ({ f1: p }));
    await drafts.clear('d1', 'p1');
    expect(await drafts.get('d1', 'p1', 'h1')).toBeNull();
    expect(await drafts.get('d1', 'p2', 'h1')).toMatchObject({ values: { f1: 'p2' } });
    await drafts.clear('d1');
    expect(await drafts.get('d1', 'p2', 'h1')).toBeNull();
    expect(await drafts.get('d1', 'p3', 'h1')).toBeNull();
  });
});
