/**
 * Download header for a document title, e.g. "근로계약서" →
 * attachment; filename="document.pdf"; filename*=UTF-8''%EA%B7%BC...pdf
 *
 * Browsers that understand RFC 6266 use filename* (the real Korean name);
 * the ASCII fallback only has to be safe, so everything outside a small
 * set becomes "_" and an all-Korean title falls back to "document".
 */

const MAX_TITLE_CHARS = 150;

/**
 * Bidirectional controls (embeddings, overrides, isolates, marks, the Arabic letter mark): a title
 * "\u202egnp.exe" would be shown by a file manager as "exe.png", so a download's name is never
 * what it seems (issue 24, item 18). File names carry none of them.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function baseName(title: string): string {
  const cleaned = title
    .normalize('NFC')
    .replace(BIDI_CONTROLS, '')
    // Control characters and path separators have no place in a file name.
    .replace(/[\u0000-\u001f\u007f/\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\.pdf$/i, '')
    .trim();
  return Array.from(cleaned).slice(0, MAX_TITLE_CHARS).join('') || 'document';
}

function asciiFallback(name: string): string {
  const ascii = name
    .replace(/[^A-Za-z0-9 ._()\-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[ ._]+|[ ._]+$/g, '');
  return /[A-Za-z0-9]/.test(ascii) ? ascii : 'document';
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** RFC 5987 attr-char: encodeURIComponent leaves ' ( ) * unescaped, which it must not. */
function encodeRfc5987(value: string): string {
  // encodeURIComponent throws on a lone surrogate; a title stored before the API refused them
  // must still download, so it is replaced like any other malformed character.
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function contentDispositionFor(title: string): string {
  const name = baseName(title);
  return `attachment; filename="${asciiFallback(name)}.pdf"; filename*=UTF-8''${encodeRfc5987(name)}.pdf`;
}
