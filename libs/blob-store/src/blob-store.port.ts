/** Blobs (PDFs, images) are content-addressed by SHA-256; events carry only the hash and size. */
export const BLOB_STORE = Symbol('BLOB_STORE');

export interface BlobRef {
  sha256: string;
  byte_size: number;
}

export interface BlobReadOptions {
  fresh?: boolean;
}

export interface BlobStore {
  /** Stores the bytes (idempotent: the same bytes give the same ref) and returns their address. */
  put(bytes: Buffer): Promise<BlobRef>;
  /**
   * The bytes, or null when no blob has that hash. `fresh`: read from storage itself, past any
   * copy the process keeps (CachedBlobStore); every read whose bytes are checked as evidence
   * (served PDFs, verification) asks for it, so an altered stored blob is found, not hidden.
   */
  get(sha256: string, options?: BlobReadOptions): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
  close(): Promise<void>;
}
