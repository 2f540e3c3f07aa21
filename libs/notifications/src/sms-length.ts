import iconv from 'iconv-lite';

/**
 * Korean carriers bill a text by its EUC-KR size: up to 90 bytes is one SMS (a Hangul syllable
 * takes 2 bytes, ASCII 1), anything longer is an LMS (up to 2,000 bytes, with a subject). Counted
 * with iconv-lite's EUC-KR (CP949) table rather than by hand; a character EUC-KR cannot write
 * (an emoji) is counted as 2 bytes, as the carriers' gateways replace it.
 */
export const SMS_MAX_BYTES = 90;
export const LMS_MAX_BYTES = 2000;

/**
 * Bytes of each non-ASCII character already counted. The notifier asks for the type of every SMS
 * body (when it records the message and again when it sends), and iconv-lite allocates a buffer
 * per character: a Korean body of 60 characters was 60 encodes each time. Messages reuse a small
 * alphabet (Hangul syllables, punctuation), so the table stays small; capped all the same.
 */
const CHAR_BYTES = new Map<string, number>();
const CHAR_BYTES_MAX = 20_000;

export function eucKrByteLength(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    // ASCII is one byte in EUC-KR (CP949 leaves 0x00-0x7F as they are).
    if (ch.charCodeAt(0) < 0x80) {
      bytes += 1;
      continue;
    }
    let n = CHAR_BYTES.get(ch);
    if (n === undefined) {
      const encoded = iconv.encode(ch, 'euc-kr');
      // iconv-lite writes an unmappable character as '?' (1 byte): count it as a double-byte one.
      n = encoded.length === 1 && encoded[0] === 0x3f ? 2 : encoded.length;
      if (CHAR_BYTES.size < CHAR_BYTES_MAX) CHAR_BYTES.set(ch, n);
    }
    bytes += n;
  }
  return bytes;
}

export type SmsType = 'SMS' | 'LMS';

/** SMS when the body fits 90 EUC-KR bytes, else LMS. */
export function smsTypeFor(body: string): SmsType {
  return eucKrByteLength(body) <= SMS_MAX_BYTES ? 'SMS' : 'LMS';
}
