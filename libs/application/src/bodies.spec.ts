import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore } from '@dojang/blob-store/file';
import { putBody, readBody, storedBody } from './bodies';

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
});
