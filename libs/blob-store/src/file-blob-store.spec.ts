import { promises as fsp } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore } from './file-blob-store.adapter';

/**
 * A blob must be on disk before the event naming it is appended: the rename that publishes it is
 * durable only after an fsync of its directory. Checked by recording the file system calls in
 * order (a power cut cannot be staged here).
 */
describe('FileBlobStore.put durability', () => {
  let root: string;
  const calls: string[] = [];
  beforeEach(async () => {
    root = await fsp.mkdtemp(path.join(os.tmpdir(), 'dojang-blobs-'));
    calls.length = 0;
    const open = fsp.open.bind(fsp);
    jest.spyOn(fsp, 'open').mockImplementation(async (file, flags, mode) => {
      const handle = await open(file, flags, mode);
      const name = path.relative(root, String(file)) || '.';
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        calls.push(`sync ${name.endsWith('.tmp') ? 'tmp' : name}`);
        return sync();
      };
      return handle;
    });
    const rename = fsp.rename.bind(fsp);
    jest.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      calls.push(`rename -> ${path.relative(root, String(to))}`);
      return rename(from, to);
    });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await fsp.rm(root, { recursive: true, force: true });
  });

  it('fsyncs the file, renames it into place, then fsyncs the directory holding it (and any directory it created)', async () => {
    const store = new FileBlobStore(path.join(root, 'blobs'));
    const ref = await store.put(Buffer.from('%PDF-1.7 first'));
    const shard = path.join('blobs', ref.sha256.slice(0, 2));
    expect(calls).toEqual(['sync tmp', `rename -> ${path.join(shard, ref.sha256)}`, `sync ${shard}`, 'sync blobs', 'sync .']);

    // A second blob in a shard that exists: only that directory needs its entry made durable.
    calls.length = 0;
    const again = await store.put(Buffer.from('%PDF-1.7 second'));
    const shard2 = path.join('blobs', again.sha256.slice(0, 2));
    const created = shard2 !== shard;
    expect(calls).toEqual(['sync tmp', `rename -> ${path.join(shard2, again.sha256)}`, `sync ${shard2}`, ...(created ? ['sync blobs'] : [])]);
    expect(await store.get(again.sha256)).toEqual(Buffer.from('%PDF-1.7 second'));
  });
});
