import { createHash } from 'crypto';
import { BlobReadOptions, BlobRef, BlobStore } from './blob-store.port';
import { SizedLru } from './sized-lru';

export interface BlobCacheOptions {
  /** Blobs up to this size are kept once read or written (default 256 KiB: bodies, signature images). */
  itemBytes?: number;
  /** Upper bound of the bytes kept (default 32 MiB); the least recently used go first. */
  totalBytes?: number;
  /** Hashes remembered as stored, whatever their size (default 100,000). */
  knownHashes?: number;
}

/**
 * A process's memory of the blobs it has read or written, in front of any blob store. A blob is
 * never changed or removed once stored (its address is its content), so nothing here can go
 * stale: small blobs' bytes are kept (LRU, bounded by bytes) and the hashes known to be stored (a
 * put or `has` of them asks the store nothing). Only what is known to exist is remembered: a miss
 * is asked again, since another process may store those bytes a moment later.
 *
 * Every document list and detail carries the document's body, which lives in the blob store:
 * without this a page of 20 documents was 20 file reads (or round trips), the largest cost of the
 * list on every store.
 *
 * Memory is not storage: a read with `fresh` (every read checked as evidence) goes to the store,
 * so a blob altered where it is stored is detected rather than served from the copy kept here.
 */
export class CachedBlobStore implements BlobStore {
  private readonly bytes: SizedLru<string, Buffer>;
  private readonly known = new Set<string>();
  private readonly itemBytes: number;
  private readonly knownHashes: number;

  constructor(readonly inner: BlobStore, options: BlobCacheOptions = {}) {
    this.itemBytes = options.itemBytes ?? 256 * 1024;
    this.bytes = new SizedLru(options.totalBytes ?? 32 * 1024 * 1024);
    this.knownHashes = options.knownHashes ?? 100_000;
  }

  async put(bytes: Buffer): Promise<BlobRef> {
    // Small bytes (the same body sent again, a template's) are hashed here to skip the store;
    // large ones go straight on, to be hashed once, by the store.
    if (bytes.length <= this.itemBytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (this.known.has(sha256)) return { sha256, byte_size: bytes.length };
    }
    const ref = await this.inner.put(bytes);
    this.remember(ref.sha256, bytes);
    return ref;
  }

  async get(sha256: string, options: BlobReadOptions = {}): Promise<Buffer | null> {
    if (options.fresh) return this.inner.get(sha256);
    const cached = this.bytes.get(sha256);
    // A copy, so a caller that writes into it cannot alter the cache.
    if (cached) return Buffer.from(cached);
    const found = await this.inner.get(sha256);
    // Only bytes that hash to their address are kept: a blob altered where it is stored is handed
    // to this caller (who may check it) but not remembered, so restoring the file is enough.
    if (found && (found.length > this.itemBytes || createHash('sha256').update(found).digest('hex') === sha256)) this.remember(sha256, found);
    return found;
  }

  async has(sha256: string): Promise<boolean> {
    if (this.known.has(sha256)) return true;
    const stored = await this.inner.has(sha256);
    if (stored) this.remember(sha256);
    return stored;
  }

  /** Notes a stored blob: its hash always, its bytes when small (a copy: callers keep theirs). */
  private remember(sha256: string, bytes?: Buffer): void {
    if (this.known.size >= this.knownHashes) this.known.clear();
    this.known.add(sha256);
    if (!bytes || bytes.length > this.itemBytes || this.bytes.has(sha256)) return;
    this.bytes.set(sha256, Buffer.from(bytes), bytes.length);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
