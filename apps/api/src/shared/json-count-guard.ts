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
  /** Objects: the byte range of the current key, quotes included, to name it in an error. */
  keyStart: number;
  keyEnd: number;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** `fields[1000]`, `brand`, `rows[3].variables`: the path of the innermost container, as params are named. */
function pathOf(bytes: Uint8Array, frames: Frame[], depth: number): string {
  let path = '';
  for (let d = 0; d < depth; d++) {
    const frame = frames[d];
    if (frame.array) {
      path += `[${frame.count - 1}]`;
    } else {
      let key: string;
      try {
        const raw: number[] = [];
        for (let k = frame.keyStart; k < frame.keyEnd; k++) raw.push(bytes[k]);
        key = JSON.parse(Buffer.from(raw).toString('utf8')) as string;
      } catch {
        key = '?';
      }
      path += path ? `.${key}` : key;
    }
  }
  return path || 'body';
}

/**
 * Throws a 400 naming the first array, object or body over `limits`. Bytes of UTF-8 JSON: every
 * structural character is ASCII, and no byte of a multi-byte character is one. A malformed body is
 * left to JSON.parse (this only counts what it sees).
 */
export function assertJsonCounts(bytes: Uint8Array, limits: JsonCountLimits): void {
  const frames: Frame[] = [];
  let depth = 0;
  let values = 0;
  let needValue = true;
  const n = bytes.length;
  const valueStarts = () => {
    values++;
    if (values > limits.values) {
      const path = pathOf(bytes, frames, Math.min(depth, 1));
      throw ApiError.invalid(path, `The request body holds more than ${limits.values.toLocaleString('en')} values; no request of this API needs that many.`);
    }
    if (depth > 0) {
      const top = frames[depth - 1];
      if (top.array) {
        top.count++;
        if (top.count > limits.items) {
          const path = pathOf(bytes, frames, depth - 1);
          throw ApiError.invalid(path, `${path === 'body' ? 'The body' : path} holds more than ${limits.items.toLocaleString('en')} elements; see the parameter's maxItems in the API reference.`);
        }
      }
    }
    needValue = false;
  };
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (isSpace(c)) continue;
    const top = depth > 0 ? frames[depth - 1] : undefined;
    if (c === QUOTE) {
      const start = i;
      for (i++; i < n; i++) {
        const s = bytes[i];
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
      if (top && !top.array && top.expectKey) {
        top.count++;
        top.expectKey = false;
        top.keyStart = start;
        top.keyEnd = i + 1;
        if (top.count > limits.keys) {
          const path = pathOf(bytes, frames, depth - 1);
          throw ApiError.invalid(path, `${path === 'body' ? 'The body' : path} holds more than ${limits.keys.toLocaleString('en')} keys; see the parameter's maxProperties in the API reference.`);
        }
      } else if (needValue) valueStarts();
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      valueStarts();
      const frame = frames[depth] ?? (frames[depth] = { array: false, count: 0, expectKey: false, keyStart: 0, keyEnd: 0 });
      frame.array = c === OPEN_ARRAY;
      frame.count = 0;
      frame.expectKey = !frame.array;
      depth++;
      needValue = frame.array;
      continue;
    }
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--;
      needValue = false;
      continue;
    }
    if (c === COMMA) {
      if (top && !top.array) top.expectKey = true;
      else needValue = true;
      continue;
    }
    if (c === COLON) {
      needValue = true;
      continue;
    }
    // The first byte of a number or literal; the rest of it is skipped by needValue staying false.
    if (needValue) valueStarts();
  }
}
