import { createHash } from 'crypto';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { GridFSBucket, MongoClient } from 'mongodb';
import { BlobRef, BlobStore } from './blob-store.port';

const SHA256 = /^[0-9a-f]{64}$/;

export interface GridFsBlobStoreOptions {
  /** Defaults to the database named in the connection string. */
  dbName?: string;
  bucketName?: string;
}

/**
 * Blobs in MongoDB GridFS, one file per content hash (filename = SHA-256). GridFS writes the chunks
 * first and the files document last, so an upload cut short leaves no visible file and the next
 * put simply uploads again.
 */
export class GridFsBlobStore implements BlobStore {
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  private readonly bucket: GridFSBucket;

  /** Pass a MongoClient to share its connection pool (e.g. with the read store). */
  constructor(urlOrClient: string | MongoClient, options: GridFsBlobStoreOptions = {}) {
    this.ownsClient = typeof urlOrClient === 'string';
    this.client = typeof urlOrClient === 'string' ? new MongoClient(urlOrClient) : urlOrClient;
    this.bucket = new GridFSBucket(this.client.db(options.dbName), {
      bucketName: options.bucketName ?? 'blobs',
      // Events point at blobs by hash, so a blob must be as durable as the event naming it.
      writeConcern: { w: 'majority', journal: true },
    });
  }

  async put(bytes: Buffer): Promise<BlobRef> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    // Two concurrent puts of the same bytes may both upload; both files hold the same bytes and
    // reads take the newest, so the duplicate costs space, never correctness.
    if (!(await this.has(sha256))) {
      await pipeline(Readable.from([bytes]), this.bucket.openUploadStream(sha256, { metadata: { byte_size: bytes.length } }));
    }
    return { sha256, byte_size: bytes.length };
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!SHA256.test(sha256)) return null;
    const [file] = await this.bucket.find({ filename: sha256 }, { sort: { uploadDate: -1 }, limit: 1 }).toArray();
    if (!file) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStream(file._id)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async has(sha256: string): Promise<boolean> {
    if (!SHA256.test(sha256)) return false;
    const found = await this.bucket.find({ filename: sha256 }, { limit: 1, projection: { _id: 1 } }).toArray();
    return found.length > 0;
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}
