import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore } from '@dojang/blob-store/file';
import { BlobStore } from '@dojang/blob-store';
import { putBody, readBody, storedBody } from './bodies';
import { EvidenceIntegrityError } from './evidence-integrity.error';

describe('document and template bodies in the blob store', () => {
  let dir: string;
  let blobs: FileBlobStore;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-bodies-'));
    blobs = new FileBlobStore(dir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const text = '<p>갑과 을은 계약한다.</p>';

  it('stores a body and reads it back through its ref', async () => {
    const ref = await putBody(blobs, text);
    expect(ref.byte_size).toBe(Buffer.byteLength(text, 'utf8'));
    expect(await readBody(blobs, { content_blob: ref })).toBe(text);
  });

  it('reads an old inline body from its ref, and stores it when a new event must name it', async () => {
    const inline = { sha256: 'f'.repeat(64), byte_size: 3, inline: 'old' };
    expect(await readBody(blobs, { content_blob: inline })).toBe('old');
    const stored = await storedBody(blobs, inline);
    expect(stored).not.toHaveProperty('inline');
    expect((await blobs.get(stored.sha256))?.toString('utf8')).toBe('old');
  });

  it('reads a row projected before bodies moved (content, no content_blob), preferring a newer ref', async () => {
    expect(await readBody(blobs, { content: 'row text' })).toBe('row text');
    const ref = await putBody(blobs, 'newer');
    expect(await readBody(blobs, { content: 'row text', content_blob: ref })).toBe('newer');
    expect(await readBody(blobs, { content_blob: null, content: null })).toBeNull();
  });

  it('fails loudly when the blob a ref names is missing', async () => {
    await expect(readBody(blobs, { content_blob: { sha256: '0'.repeat(64), byte_size: 1 } })).rejects.toThrow(/missing from the blob store/);
  });

  it('refuses a body whose stored bytes no longer hash to its ref, and does not keep it', async () => {
    const ref = await putBody(blobs, '<p>원래 조항</p>');
    const file = path.join(dir, ref.sha256.slice(0, 2), ref.sha256);
    fs.chmodSync(file, 0o644);
    fs.writeFileSync(file, Buffer.from('<p>바뀐 조항</p>', 'utf8'));
    const read = readBody(blobs, { content_blob: ref });
    await expect(read).rejects.toBeInstanceOf(EvidenceIntegrityError);
    await expect(readBody(blobs, { content_blob: ref })).rejects.toThrow(/fails its integrity check/);
  });

  it('decodes a body once: later reads of the same ref ask the store nothing', async () => {
    const gets: string[] = [];
    const counting: BlobStore = {
      put: (bytes) => blobs.put(bytes),
      get: (sha256) => (gets.push(sha256), blobs.get(sha256)),
      has: (sha256) => blobs.has(sha256),
      close: async () => undefined,
    };
    const ref = await putBody(blobs, '<p>목록마다 읽히는 본문</p>');
    for (let i = 0; i < 3; i++) expect(await readBody(counting, { content_blob: ref })).toBe('<p>목록마다 읽히는 본문</p>');
    expect(gets).toEqual([ref.sha256]);
    // Another store has its own memory: it never answers from this one's.
    const other: BlobStore = { ...counting, get: async () => null };
    await expect(readBody(other, { content_blob: ref })).rejects.toThrow(/missing from the blob store/);
  });
});
