/**
 * A certificate's distinguished name on one line, `O=주식회사 한빛소프트, CN=홍길동`, from the form
 * OpenSSL prints it in (Node's `X509Certificate.subject` / `.issuer`: one attribute a line, each
 * value decoded as its ASN.1 string type says — UTF8String, BMPString, PrintableString… — and
 * escaped as RFC 2253 says: `\,` `\+` and control characters as `\XX`).
 *
 * Decoding is OpenSSL's; this only joins the lines and escapes what OpenSSL leaves as it is but a
 * reader must not be shown raw: Unicode format characters (bidi overrides such as U+202E, which
 * reorder what follows them on screen and in a PDF) and any control character left, each as the
 * `\XX` hex of its UTF-8 bytes, the RFC 4514 way. Never truncated: a 4 KB subject is shown whole.
 */
export function oneLineDistinguishedName(multiline: string): string {
  return multiline
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => line.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, escapeUtf8))
    .join(', ');
}

const escapeUtf8 = (char: string): string =>
  Array.from(new TextEncoder().encode(char), (byte) => `\\${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
