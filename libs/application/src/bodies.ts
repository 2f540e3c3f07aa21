import { BlobStore } from '@dojang/blob-store';
import { BlobPointer, BodyRef } from '@dojang/domain';

/**
 * Document and template bodies live in the blob store; events, commands and read rows carry
 * `content_blob` (SHA-256 and size of the UTF-8 bytes). These are the only ways in and out.
 */

/** Stores a body before the command that names it is decided. */
export async function putBody(blobs: BlobStore, text: string): Promise<BlobPointer> {
  const ref = await blobs.put(Buffer.from(text, 'utf8'));
  return { sha256: ref.sha256, byte_size: ref.byte_size };
}

/** A ref a new event may carry: a body read from an old inline event is stored first. */
export async function storedBody(blobs: BlobStore, ref: BodyRef): Promise<BlobPointer> {
  return ref.inline !== undefined ? putBody(blobs, ref.inline) : { sha256: ref.sha256, byte_size: ref.byte_size };
}

/**
 * A state or read row with a body. Rows projected before bodies left the events still hold the
 * text as `content` (and keep it until a rebuild); `content_blob`, when present, is newer.
 */
export interface WithBody {
  content_blob?: BodyRef | null;
  content?: string | null;
}

/** The body's text, or null when there is none (an uploaded PDF). */
export async function readBody(blobs: BlobStore, holder: WithBody): Promise<string | null> {
  const ref = holder.content_blob;
  if (!ref) return typeof holder.content === 'string' ? holder.content : null;
  if (ref.inline !== undefined) return ref.inline;
  const bytes = await blobs.get(ref.sha256);
  if (!bytes) throw new Error(`body blob ${ref.sha256} is missing from the blob store`);
  return bytes.toString('utf8');
}
