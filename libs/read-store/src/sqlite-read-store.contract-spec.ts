import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { readStoreContract } from './read-store.contract';
import { SqliteReadStore } from './sqlite-read-store.adapter';

const dir = mkdtempSync(path.join(tmpdir(), 'dojang-read-'));
const file = path.join(dir, 'read.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

readStoreContract('SQLite', async () => new SqliteReadStore(file), {
  indexCount: async (store, collection) =>
    (
      (store as SqliteReadStore).db
        .prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
        .get(`rm_${collection}`) as { n: number }
    ).n,
});
