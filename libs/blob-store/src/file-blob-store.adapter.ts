import { createHash, randomUUID } from 'crypto';
import { promises as fs } from 'fs';
import * as path from 'path';
import { BlobRef, BlobStore } from './blob-store.port';

const SHA256 = /^[0-9a-f]{64}$/;

async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Blobs as files under DATA_DIR/blobs/ab/abcdef…, written via a temp file, fsync, rename and an
 * fsync of the directory, so a blob is on disk before the event naming it is appended.
 */
export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(sha256: string): string {
    if (!SHA256.test(sha256)) throw new Error('invalid blob address');
    return path.join(this.root, sha256.slice(0, 2), sha256);
  }

  async put(bytes: Buffer): Promise<BlobRef> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const target = this.pathOf(sha256);
    try {
      await fs.access(target);
    } catch {
      const dir = path.dirname(target);
      const created = await fs.mkdir(dir, { recursive: true });
      const tmp = `${target}.${randomUUID()}.tmp`;
      const handle = await fs.open(tmp, 'w');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(tmp, target);
      // The rename is durable only once its directory is: until then a power cut can lose the
      // blob an event already names. New directories' own entries likewise, up to the first
      // directory that already existed.
      await syncDirectory(dir);
      if (created) {
        for (let d = dir; d !== path.dirname(created); ) {
          d = path.dirname(d);
          await syncDirectory(d);
        }
      }
    }
    return { sha256, byte_size: bytes.length };
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!SHA256.test(sha256)) return null;
    try {
      return await fs.readFile(this.pathOf(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async has(sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    try {
      await fs.access(this.pathOf(sha256));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {}
}
