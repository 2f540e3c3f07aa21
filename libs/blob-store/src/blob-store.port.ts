/** Blobs (PDFs, images) are content-addressed by SHA-256; events carry only the hash and size. */
export const BLOB_STORE = Symbol('BLOB_STORE');

export interface BlobRef {
  sha256: string;
  byte_size: number;
}

export interface BlobStore {
  /** Stores the bytes (idempotent: the same bytes give the same ref) and returns their address. */
  put(bytes: Buffer): Promise<BlobRef>;
  /** The bytes, or null when no blob has that hash. */
  get(sha256: string): Promise<Buffer | null>;
  has(sha256: string): Promise<boolean>;
  close(): Promise<void>;
}
