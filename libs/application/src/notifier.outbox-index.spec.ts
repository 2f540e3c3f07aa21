import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { OUTBOX, OUTBOX_COLLECTION } from './notifier';

/**
 * GET /v1/outbox lists by organization and mode, and by document or participant, newest first:
 * each filter has an index ending in the order, so a page reads its own rows, not the whole
 * organization's outbox (a test reading a PIN by participant walked every message sent before).
 */
describe('outbox indexes', () => {
  let dir: string;
  let store: SqliteReadStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-outbox-'));
    store = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    await store.ensureCollection(OUTBOX_COLLECTION);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The plan of the query `find` runs for `where`, newest first, a page of 11. */
  async function planOf(where: Record<string, string | boolean>): Promise<string> {
    let sql = '';
    const prepare = store.db.prepare.bind(store.db);
    const spy = jest.spyOn(store.db, 'prepare').mockImplementation((text: string) => {
      if (text.startsWith('SELECT doc FROM')) sql = text;
      return prepare(text);
    });
    await store.find(OUTBOX, { where, orderBy: [{ field: 'sort_key', direction: 'desc' }], limit: 11 });
    spy.mockRestore();
    const params = [...Object.values(where).map((v) => (typeof v === 'boolean' ? Number(v) : v)), 11];
    return (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((p) => p.detail).join(' | ');
  }

  it('lists a participant\'s messages through their own index, in order, with no sort step', async () => {
    const plan = await planOf({ organization_id: 'org_1', livemode: false, participant_id: 'p_1', channel: 'sms' });
    expect(plan).toContain('ix_outbox_organization_id_livemode_participant_id_sort_key');
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it('lists a document\'s messages and the organization\'s through theirs', async () => {
    expect(await planOf({ organization_id: 'org_1', livemode: false, document_id: 'd_1' })).toContain('ix_outbox_organization_id_livemode_document_id_sort_key');
    expect(await planOf({ organization_id: 'org_1', livemode: false })).toContain('ix_outbox_organization_id_livemode_sort_key');
  });
});
