import { BlobStore, SizedLru } from '@dojang/blob-store';
import { BlobPointer, BodyRef } from '@dojang/domain';
import { EvidenceIntegrityError } from './evidence-integrity.error';
import { sha256Hex } from './runtime/secrets';

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

/** Characters of body text kept per blob store (at most two bytes each in V8: 16 MiB). */
const MEMO_CHARS = 8 * 1024 * 1024;
/** Bodies longer than this are decoded on each read rather than kept (a 2,000,000-character body would evict every other). */
const MEMO_ITEM_CHARS = 512 * 1024;

/**
 * Decoded bodies are kept by SHA-256. Every document in a list page carries its body: decoding it
 * from bytes on each request (and copying those bytes out of the blob cache) cost a page of twenty
 * 20-page contracts about 20 ms of CPU, almost all of the request. A body is addressed by its
 * content, so its text never changes; it is kept only after its bytes were checked against that
 * address, so a body altered where it is stored is refused, not served. One memo per blob store,
 * so stores never answer for each other (tests open many).
 */
const memos = new WeakMap<BlobStore, SizedLru<string, string>>();

/**
 * The body's text, or null when there is none (an uploaded PDF). Throws EvidenceIntegrityError
 * when the stored bytes no longer hash to the ref: the text a signer would be shown, rendered
 * and sent is the text the events name, or none.
 */
export async function readBody(blobs: BlobStore, holder: WithBody): Promise<string | null> {
  const ref = holder.content_blob;
  if (!ref) return typeof holder.content === 'string' ? holder.content : null;
  if (ref.inline !== undefined) return ref.inline;
  let memo = memos.get(blobs);
  if (!memo) memos.set(blobs, (memo = new SizedLru(MEMO_CHARS)));
  const known = memo.get(ref.sha256);
  if (known !== undefined) return known;
  const bytes = await blobs.get(ref.sha256);
  if (!bytes) throw new Error(`body blob ${ref.sha256} is missing from the blob store`);
  const actual = sha256Hex(bytes);
  if (actual !== ref.sha256) throw new EvidenceIntegrityError(ref.sha256, actual);
  const text = bytes.toString('utf8');
  if (text.length <= MEMO_ITEM_CHARS) memo.set(ref.sha256, text, text.length);
  return text;
}
