import { ApiError } from './api-error';

/**
 * How many elements a JSON body may hold, counted on its raw bytes before it is parsed.
 *
 * JSON.parse, then every walk after it (the text check, the idempotency fingerprint,
 * class-transformer, class-validator), costs time and memory per element: `{"fields":[{}, …]}`
 * three million times fits in 9 MB and held the event loop for minutes before the route's "at most
 * 500" was ever checked. Counting the raw bytes is one pass with no allocation, so a body with more
 * elements than any request of the API needs is refused at the cost of reading it. The exact
 * per-parameter limits (maxItems, maxProperties) are then checked on the parsed body before any
 * element is validated or copied (dto-bounds-guard.ts).
 */
export interface JsonCountLimits {
  /** Elements of one array. */
  items: number;
  /** Keys of one object. */
  keys: number;
  /** Values in the whole body (objects, arrays, strings, numbers, literals). */
  values: number;
}

/**
 * Every route but the bulk send takes at most 500 elements in a list (fields; options per field
 * 100) and 50 keys in a map, so 1,000 and 1,000 leave room; 100,000 values cover the largest
 * template (500 fields with 100 options each, about 57,500 values).
 */
export const DEFAULT_JSON_COUNT_LIMITS: JsonCountLimits = { items: 1_000, keys: 1_000, values: 100_000 };
/** POST /v1/bulk_sends takes up to 10,000 rows, each a few roles, variables and metadata. */
export const BULK_SEND_JSON_COUNT_LIMITS: JsonCountLimits = { items: 10_000, keys: 1_000, values: 1_000_000 };

export function jsonCountLimitsFor(method: string, path: string): JsonCountLimits {
  return method === 'POST' && /^\/v1\/bulk_sends\/?(\?|$)/.test(path) ? BULK_SEND_JSON_COUNT_LIMITS : DEFAULT_JSON_COUNT_LIMITS;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

interface Frame {
  array: boolean;
  count: number;
  /** Objects: the next string is a key (after `{` or `,`). */
  expectKey: boolean;
  /**
   * Objects: where the current key is, quotes included, to name it in an error: the chunk it ends
   * in and its byte range there, after `keyHead` (its bytes from earlier chunks, rarely any).
   */
  keyChunk: Uint8Array | null;
  keyStart: number;
  keyEnd: number;
  keyHead: Buffer | null;
}

/** More of a key than any param name needs: a longer one is named `?` rather than kept whole. */
const KEY_BYTES_KEPT = 1024;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function keyOf(frame: Frame): string {
  try {
    const tail = frame.keyChunk ? frame.keyChunk.subarray(frame.keyStart, frame.keyEnd) : new Uint8Array(0);
    if ((frame.keyHead?.length ?? 0) + tail.length > KEY_BYTES_KEPT) return '?';
    return JSON.parse(Buffer.concat([frame.keyHead ?? Buffer.alloc(0), tail]).toString('utf8')) as string;
  } catch {
    return '?';
  }
}

/** `fields[1000]`, `brand`, `rows[3].variables`: the path of the innermost container, as params are named. */
function pathOf(frames: Frame[], depth: number): string {
  let path = '';
  for (let d = 0; d < depth; d++) {
    const frame = frames[d];
    if (frame.array) path += `[${frame.count - 1}]`;
    else {
      const key = keyOf(frame);
      path += path ? `.${key}` : key;
    }
  }
  return path || 'body';
}

/**
 * Counts a JSON body's elements as its bytes arrive, chunk by chunk, and throws a 400 naming the
 * first array, object or body over `limits`: a body of millions of tiny elements is refused after
 * its first few kilobytes, before the rest is received, buffered or copied (create-app.ts feeds it
 * the request's chunks while the JSON parser reads them). Bytes of UTF-8 JSON: every structural
 * character is ASCII, and no byte of a multi-byte character is one. A malformed body is left to
 * JSON.parse (this only counts what it sees). The state that spans chunks is the stack of open
 * containers, whether a string is open (and an escape pending), and the bytes of a key cut in two.
 */
export class JsonCounter {
  private readonly frames: Frame[] = [];
  private depth = 0;
  private values = 0;
  private needValue = true;
  private inString = false;
  private escaped = false;
  /** The open string is an object's key. */
  private stringIsKey = false;

  constructor(private readonly limits: JsonCountLimits) {}

  write(bytes: Uint8Array): void {
    const { frames, limits } = this;
    const n = bytes.length;
    let i = 0;
    // A string (or key) that began in an earlier chunk.
    if (this.inString && this.stringIsKey) {
      const top = frames[this.depth - 1];
      top.keyChunk = bytes;
      top.keyStart = 0;
    }
    for (; i < n; i++) {
      if (this.inString) {
        let escaped = this.escaped;
        for (; i < n; i++) {
          const s = bytes[i];
          if (escaped) escaped = false;
          else if (s === BACKSLASH) escaped = true;
          else if (s === QUOTE) break;
        }
        this.escaped = escaped;
        if (i === n) break;
        this.inString = false;
        if (this.stringIsKey) frames[this.depth - 1].keyEnd = i + 1;
        continue;
      }
      const c = bytes[i];
      if (isSpace(c)) continue;
      const top = this.depth > 0 ? frames[this.depth - 1] : undefined;
      if (c === QUOTE) {
        if (top && !top.array && top.expectKey) {
          top.count++;
          top.expectKey = false;
          top.keyChunk = bytes;
          top.keyStart = i;
          top.keyEnd = i;
          top.keyHead = null;
          if (top.count > limits.keys) {
            const path = pathOf(frames, this.depth - 1);
            throw ApiError.invalid(path, `${path === 'body' ? 'The body' : path} holds more than ${limits.keys.toLocaleString('en')} keys; see the parameter's maxProperties in the API reference.`);
          }
          this.stringIsKey = true;
        } else {
          if (this.needValue) this.valueStarts();
          this.stringIsKey = false;
        }
        this.inString = true;
        this.escaped = false;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        this.valueStarts();
        const frame = frames[this.depth] ?? (frames[this.depth] = { array: false, count: 0, expectKey: false, keyChunk: null, keyStart: 0, keyEnd: 0, keyHead: null });
        frame.array = c === OPEN_ARRAY;
        frame.count = 0;
        frame.expectKey = !frame.array;
        frame.keyChunk = null;
        frame.keyHead = null;
        this.depth++;
        this.needValue = frame.array;
        continue;
      }
      if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (this.depth > 0) this.depth--;
        this.needValue = false;
        continue;
      }
      if (c === COMMA) {
        if (top && !top.array) top.expectKey = true;
        else this.needValue = true;
        continue;
      }
      if (c === COLON) {
        this.needValue = true;
        continue;
      }
      // The first byte of a number or literal; the rest of it is skipped by needValue staying false.
      if (this.needValue) this.valueStarts();
    }
    // The chunk ends inside a key: keep what it has so far, to name it if its object is refused
    // (one byte over the bound is enough to know it is too long to name).
    if (this.inString && this.stringIsKey) {
      const top = frames[this.depth - 1];
      const head = top.keyHead ?? Buffer.alloc(0);
      if (head.length <= KEY_BYTES_KEPT) top.keyHead = Buffer.concat([head, bytes.subarray(top.keyStart, Math.min(n, top.keyStart + KEY_BYTES_KEPT + 1))]);
      top.keyChunk = null;
    }
  }

  private valueStarts(): void {
    const { frames, limits, depth } = this;
    this.values++;
    if (this.values > limits.values) {
      const path = pathOf(frames, Math.min(depth, 1));
      throw ApiError.invalid(path, `The request body holds more than ${limits.values.toLocaleString('en')} values; no request of this API needs that many.`);
    }
    if (depth > 0) {
      const top = frames[depth - 1];
      if (top.array) {
        top.count++;
        if (top.count > limits.items) {
          const path = pathOf(frames, depth - 1);
          throw ApiError.invalid(path, `${path === 'body' ? 'The body' : path} holds more than ${limits.items.toLocaleString('en')} elements; see the parameter's maxItems in the API reference.`);
        }
      }
    }
    this.needValue = false;
  }
}

/** The whole body at once (a body that was not counted as it arrived: compressed, or not UTF-8). */
export function assertJsonCounts(bytes: Uint8Array, limits: JsonCountLimits): void {
  new JsonCounter(limits).write(bytes);
}
