import { createHash, randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { BlobRef, BlobStore } from './blob-store.port';
import { CachedBlobStore } from './cached-blob-store';
import { FileBlobStore } from './file-blob-store.adapter';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A store in memory that counts what it is asked. */
class CountingStore implements BlobStore {
  readonly blobs = new Map<string, Buffer>();
  readonly calls = { put: 0, get: 0, has: 0, close: 0 };
  async put(bytes: Buffer): Promise<BlobRef> {
    this.calls.put += 1;
    this.blobs.set(sha256(bytes), Buffer.from(bytes));
    return { sha256: sha256(bytes), byte_size: bytes.length };
  }
  async get(hash: string): Promise<Buffer | null> {
    this.calls.get += 1;
    const found = this.blobs.get(hash);
    return found ? Buffer.from(found) : null;
  }
  async has(hash: string): Promise<boolean> {
    this.calls.has += 1;
    return this.blobs.has(hash);
  }
  async close(): Promise<void> {
    this.calls.close += 1;
  }
}

describe('CachedBlobStore', () => {
  it('serves a blob it wrote, its hash and a second put of the same bytes without asking the store', async () => {
    const inner = new CountingStore();
    const store = new CachedBlobStore(inner);
    const body = Buffer.from('<p>계약 본문</p>', 'utf8');
    const ref = await store.put(body);
    expect((await store.get(ref.sha256))?.equals(body)).toBe(true);
    expect(await store.has(ref.sha256)).toBe(true);
    expect(await store.put(Buffer.from(body))).toEqual(ref);
    expect(inner.calls).toEqual({ put: 1, get: 0, has: 0, close: 0 });
  });

  it('reads a blob another process wrote once, then from memory', async () => {
    const inner = new CountingStore();
    const body = randomBytes(500);
    const { sha256: hash } = await inner.put(body);
    const store = new CachedBlobStore(inner);
    for (let i = 0; i < 3; i++) expect((await store.get(hash))?.equals(body)).toBe(true);
    expect(inner.calls.get).toBe(1);
  });

  it('hands out copies: a caller writing into what it got or what it put changes nothing kept', async () => {
    const store = new CachedBlobStore(new CountingStore());
    const body = Buffer.from('unchanged');
    const { sha256: hash } = await store.put(body);
    body.fill(0);
    const first = (await store.get(hash))!;
    first.fill(0);
    expect((await store.get(hash))?.toString()).toBe('unchanged');
  });

  it('asks the store again about a blob it did not have: another process may store it meanwhile', async () => {
    const inner = new CountingStore();
    const store = new CachedBlobStore(inner);
    const late = randomBytes(64);
    const hash = sha256(late);
    expect(await store.get(hash)).toBeNull();
    expect(await store.has(hash)).toBe(false);
    await inner.put(late);
    expect((await store.get(hash))?.equals(late)).toBe(true);
    expect(await store.has(hash)).toBe(true);
    expect(inner.calls.get).toBe(2);
  });

  it('keeps large blobs out of memory but remembers that they are stored', async () => {
    const inner = new CountingStore();
    const store = new CachedBlobStore(inner, { itemBytes: 1024 });
    const pdf = randomBytes(4096);
    const { sha256: hash } = await store.put(pdf);
    await store.get(hash);
    await store.get(hash);
    expect(inner.calls.get).toBe(2);
    expect(await store.has(hash)).toBe(true);
    expect(inner.calls.has).toBe(0);
    // A large put goes to the store, which hashes it (once).
    await store.put(pdf);
    expect(inner.calls.put).toBe(2);
  });

  it('holds at most its byte budget, dropping the least recently used first', async () => {
    const inner = new CountingStore();
    const store = new CachedBlobStore(inner, { itemBytes: 100, totalBytes: 250 });
    const [a, b, c] = [randomBytes(100), randomBytes(100), randomBytes(100)];
    const [ra, rb] = [await store.put(a), await store.put(b)];
    await store.get(ra.sha256); // a is now the most recent: b goes first
    await store.put(c);
    inner.calls.get = 0;
    await store.get(ra.sha256);
    expect(inner.calls.get).toBe(0);
    await store.get(rb.sha256);
    expect(inner.calls.get).toBe(1);
  });

  it('reads storage itself when asked for a fresh read: a blob altered where it is stored is not hidden by the copy', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-cached-blobs-'));
    try {
      const store = new CachedBlobStore(new FileBlobStore(dir));
      const pdf = Buffer.from('%PDF-1.7 signed');
      const { sha256: hash } = await store.put(pdf);
      const file = path.join(dir, hash.slice(0, 2), hash);
      fs.writeFileSync(file, Buffer.from('%PDF-1.7 forged'));
      expect((await store.get(hash))?.toString()).toBe('%PDF-1.7 signed');
      expect((await store.get(hash, { fresh: true }))?.toString()).toBe('%PDF-1.7 forged');
      fs.rmSync(file);
      expect(await store.get(hash, { fresh: true })).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps only bytes that hash to their address: an altered blob is handed out but not remembered', async () => {
    const inner = new CountingStore();
    const body = Buffer.from('<p>원래 본문</p>');
    const { sha256: hash } = await inner.put(body);
    inner.blobs.set(hash, Buffer.from('<p>바뀐 본문</p>'));
    const store = new CachedBlobStore(inner);
    expect((await store.get(hash))?.toString()).toBe('<p>바뀐 본문</p>');
    // Restored where it is stored: the next read finds the original, not a remembered forgery.
    inner.blobs.set(hash, Buffer.from(body));
    expect((await store.get(hash))?.equals(body)).toBe(true);
    expect((await store.get(hash))?.equals(body)).toBe(true);
    expect(inner.calls.get).toBe(2);
  });

  it('closes the store behind it', async () => {
    const inner = new CountingStore();
    await new CachedBlobStore(inner).close();
    expect(inner.calls.close).toBe(1);
  });

  it('in front of the file store, presents a page of bodies without opening a file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-cached-blobs-'));
    try {
      const files = new FileBlobStore(dir);
      const store = new CachedBlobStore(files);
      const bodies = Array.from({ length: 20 }, (_, i) => Buffer.from(`<p>문서 ${i}</p>`, 'utf8'));
      const refs = await Promise.all(bodies.map((b) => store.put(b)));
      const opened = jest.spyOn(fs.promises, 'readFile');
      try {
        const back = await Promise.all(refs.map((r) => store.get(r.sha256)));
        expect(back.map((b) => b?.toString('utf8'))).toEqual(bodies.map((b) => b.toString('utf8')));
        expect(opened).not.toHaveBeenCalled();
      } finally {
        opened.mockRestore();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
