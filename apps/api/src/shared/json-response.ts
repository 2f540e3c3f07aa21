import { randomBytes } from 'crypto';
import { Response } from 'express';
import { SizedLru } from '@dojang/blob-store';

/** Strings at least this long are sent from their encoded copy (document and template bodies). */
const LONG_STRING_CHARS = 4096;
/** Bytes of encoded strings kept, least recently used first. */
const CACHE_BYTES = 16 * 1024 * 1024;

/**
 * The JSON of long strings that responses send again and again, by the string itself. Document
 * bodies are the case: every page of GET /v1/documents carries twenty of them, and escaping and
 * UTF-8-encoding the same Korean text on every request was most of the request's CPU. The body
 * memo (`readBody`) hands out one string instance per body, whose hash V8 keeps, so finding it
 * here costs a map lookup, not a pass over the text.
 */
export class EncodedStrings {
  private readonly encoded: SizedLru<string, Buffer>;

  constructor(capacity = CACHE_BYTES) {
    this.encoded = new SizedLru(capacity);
  }

  /** The string as JSON (quoted and escaped), UTF-8 encoded. */
  get(text: string): Buffer {
    let json = this.encoded.get(text);
    if (json) return json;
    json = Buffer.from(JSON.stringify(text), 'utf8');
    if (json.length <= this.encoded.capacity / 4) this.encoded.set(text, json, json.length);
    return json;
  }
}

/**
 * `value` as UTF-8 JSON, byte for byte what `Buffer.from(JSON.stringify(value))` gives, with each
 * long string taken from `strings` instead of escaped and encoded again. The long strings are
 * swapped for markers carrying a random per-process nonce, which no client can put in a string
 * because none ever sees it, and the markers are then replaced by the encoded copies.
 */
export function encodeJson(value: unknown, strings: EncodedStrings, nonce = NONCE): Buffer {
  const long: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'string' && v.length >= LONG_STRING_CHARS) return `${nonce}${long.push(v) - 1}`;
    return v;
  });
  if (text === undefined) return Buffer.alloc(0);
  if (long.length === 0) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  const marker = `"${nonce}`;
  let from = 0;
  for (let i = 0; i < long.length; i++) {
    const at = text.indexOf(marker, from);
    const end = text.indexOf('"', at + marker.length);
    // The markers come back in the order the strings were met; anything else means a marker was
    // not where it was put, and the plain encoding is the safe answer.
    if (at < 0 || end < 0 || text.slice(at + marker.length, end) !== String(i)) return Buffer.from(JSON.stringify(value), 'utf8');
    parts.push(Buffer.from(text.slice(from, at), 'utf8'), strings.get(long[i]));
    from = end + 1;
  }
  parts.push(Buffer.from(text.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

const NONCE = `dojang-long-string-${randomBytes(16).toString('hex')}-`;

/**
 * Replaces `res.json` on one Express application's responses with one that encodes through
 * `encodeJson`. Headers are what Express sets for JSON (its ETag is computed over the same bytes).
 */
export function useEncodedStrings(response: Response, strings = new EncodedStrings()): void {
  response.json = function json(this: Response, value: unknown) {
    // What Express's json and send set for a string: JSON unless the route chose a type, in UTF-8.
    const type = this.get('Content-Type');
    if (!type) this.set('Content-Type', 'application/json; charset=utf-8');
    else if (!/;\s*charset=/i.test(type)) this.set('Content-Type', `${type}; charset=utf-8`);
    return this.send(encodeJson(value, strings));
  };
}
