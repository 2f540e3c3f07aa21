import iconv from 'iconv-lite';

/**
 * Korean carriers bill a text by its EUC-KR size: up to 90 bytes is one SMS (a Hangul syllable
 * takes 2 bytes, ASCII 1), anything longer is an LMS (up to 2,000 bytes, with a subject). Counted
 * with iconv-lite's EUC-KR (CP949) table rather than by hand; a character EUC-KR cannot write
 * (an emoji) is counted as 2 bytes, as the carriers' gateways replace it.
 */
export const SMS_MAX_BYTES = 90;
export const LMS_MAX_BYTES = 2000;

export function eucKrByteLength(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const encoded = iconv.encode(ch, 'euc-kr');
    // iconv-lite writes an unmappable character as '?' (1 byte): count it as a double-byte one.
    bytes += encoded.length === 1 && encoded[0] === 0x3f && ch !== '?' ? 2 : encoded.length;
  }
  return bytes;
}

export type SmsType = 'SMS' | 'LMS';

/** SMS when the body fits 90 EUC-KR bytes, else LMS. */
export function smsTypeFor(body: string): SmsType {
  return eucKrByteLength(body) <= SMS_MAX_BYTES ? 'SMS' : 'LMS';
}
