/**
 * Minimal DER for the handful of CMS / RFC 3161 structures we write and read.
 * Hand-rolled because byte-exact control matters here (signed attributes are
 * hashed as encoded) and node-forge's generic ASN.1 types fight strict TS.
 * Only single-byte tags, which is all CMS needs.
 */

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  SEQUENCE: 0x30,
  SET: 0x31,
  GENERALIZED_TIME: 0x18,
} as const;

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export const seq = (...items: Buffer[]): Buffer => tlv(TAG.SEQUENCE, Buffer.concat(items));

/** DER orders SET OF members by their encodings; signatures over signed attributes depend on it. */
export const set = (...items: Buffer[]): Buffer => tlv(TAG.SET, Buffer.concat([...items].sort(Buffer.compare)));

export const octetString = (content: Buffer): Buffer => tlv(TAG.OCTET_STRING, content);
export const nullValue = (): Buffer => Buffer.from([TAG.NULL, 0]);
export const bool = (value: boolean): Buffer => tlv(TAG.BOOLEAN, Buffer.from([value ? 0xff : 0]));
export const utf8String = (value: string): Buffer => tlv(TAG.UTF8_STRING, Buffer.from(value, 'utf8'));
export const generalizedTime = (date: Date): Buffer =>
  tlv(TAG.GENERALIZED_TIME, Buffer.from(date.toISOString().replace(/[-:T]/g, '').replace(/\.\d+Z$/, 'Z'), 'latin1'));

/** Context-specific tag [n]; constructed for EXPLICIT and for IMPLICIT SET/SEQUENCE. */
export const contextTag = (n: number, content: Buffer, constructed = true): Buffer =>
  tlv((constructed ? 0xa0 : 0x80) | n, content);

/** INTEGER from unsigned big-endian bytes (or a small number). */
export function integer(value: Buffer | number): Buffer {
  let bytes: Buffer;
  if (typeof value === 'number') {
    const hex = value.toString(16);
    bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  } else {
    bytes = value;
  }
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  bytes = bytes.subarray(start);
  if (bytes.length === 0) bytes = Buffer.from([0]);
  if (bytes[0] & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(TAG.INTEGER, bytes);
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [parts[0] * 40 + parts[1]];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(TAG.OID, Buffer.from(out));
}

export interface DerNode {
  tag: number;
  /** The whole element, header included: re-embeddable as is. */
  raw: Buffer;
  content: Buffer;
}

export function decode(buf: Buffer, offset = 0): DerNode {
  if (offset + 2 > buf.length) throw new Error('DER: truncated header');
  const tag = buf[offset];
  if ((tag & 0x1f) === 0x1f) throw new Error('DER: multi-byte tags are not supported');
  let length = buf[offset + 1];
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: unsupported length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + buf[offset + 2 + i];
    header += count;
  }
  const end = offset + header + length;
  if (end > buf.length) throw new Error('DER: element runs past the end');
  return { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + header, end) };
}

export function children(node: DerNode): DerNode[] {
  const out: DerNode[] = [];
  for (let offset = 0; offset < node.content.length; ) {
    const child = decode(node.content, offset);
    out.push(child);
    offset += child.raw.length;
  }
  return out;
}

export function decodeOid(node: DerNode): string {
  if (node.tag !== TAG.OID) throw new Error('DER: expected an OID');
  const bytes = node.content;
  const parts = [Math.floor(bytes[0] / 40), bytes[0] % 40];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** Unsigned big-endian bytes of an INTEGER (leading sign byte removed). */
export function decodeInteger(node: DerNode): Buffer {
  if (node.tag !== TAG.INTEGER) throw new Error('DER: expected an INTEGER');
  return node.content[0] === 0 && node.content.length > 1 ? node.content.subarray(1) : node.content;
}
