import sanitizeHtml from 'sanitize-html';
import { assertOffMainThread } from './main-thread-guard';

/**
 * Contract bodies are HTML written by API users and rendered on our servers,
 * into PDFs and into the signing page. The allow-list is therefore tight:
 * formatting only, no scripts, no event handlers, no links, and no URL that
 * could make a renderer or a browser reach a network or a file. The only
 * embeddable resources are inline PNG/JPEG data URLs.
 */

const DATA_IMAGE_URL = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$/;

/** Whitespace inside base64 is legal in data URLs; normalise it so the check is exact. */
export function normalizeDataImageUrl(src: string | undefined): string | undefined {
  if (!src) return undefined;
  const compact = src.replace(/\s+/g, '');
  return DATA_IMAGE_URL.test(compact) ? compact : undefined;
}

const BLOCK_STYLE = ['style'];
const TEXT_ALIGN = { 'text-align': [/^(left|right|center|justify)$/] };

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'b', 'strong', 'i', 'em', 'u', 's',
    'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'blockquote', 'hr',
    'span', 'div', 'img',
  ],
  allowedAttributes: {
    h1: BLOCK_STYLE, h2: BLOCK_STYLE, h3: BLOCK_STYLE, h4: BLOCK_STYLE, h5: BLOCK_STYLE, h6: BLOCK_STYLE,
    p: BLOCK_STYLE, div: BLOCK_STYLE, li: BLOCK_STYLE,
    th: ['colspan', 'rowspan', 'style'],
    td: ['colspan', 'rowspan', 'style'],
    ol: ['start'],
    img: ['src', 'alt', 'width', 'height'],
  },
  allowedStyles: { '*': TEXT_ALIGN },
  // No scheme is allowed anywhere except data: on img, and the img transform
  // below narrows that to base64 PNG/JPEG; relative and protocol-relative URLs
  // are also dropped there because sanitize-html lets scheme-less URLs pass.
  allowedSchemes: [],
  allowedSchemesByTag: { img: ['data'] },
  allowedSchemesAppliedToAttributes: ['src', 'href', 'cite', 'action', 'formaction', 'background', 'poster'],
  allowProtocolRelative: false,
  transformTags: {
    strike: 's',
    del: 's',
    ins: 'u',
    img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, src: normalizeDataImageUrl(attribs.src) ?? '' } }),
    // <span data-field="signature:employee"></span> is the element form of a field placeholder:
    // it becomes the placeholder's text, which the renderer turns into blank room (anchors.ts).
    span: (tagName, attribs) => {
      const field = attribs['data-field'];
      return field !== undefined && DATA_FIELD.test(field) ? { tagName, attribs: {}, text: `{{${field}}}` } : { tagName, attribs };
    },
  },
  exclusiveFilter: (frame) => frame.tag === 'img' && !normalizeDataImageUrl(frame.attribs.src),
  disallowedTagsMode: 'discard',
  // Text inside these is code or chrome, never contract wording.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'title', 'head', 'iframe', 'object', 'svg', 'math', 'xmp'],
  // The PDF converter walks the tree recursively; bound the depth it can see.
  nestingLimit: 64,
  enforceHtmlBoundary: true,
};

/** The value of a data-field attribute: a placeholder's inside (`type:name`, see FIELD_PLACEHOLDER). */
const DATA_FIELD = /^[a-z_]{1,20}:[^\s{}]{1,60}$/;

export function sanitizeContentHtml(html: string): string {
  assertOffMainThread('sanitizeContentHtml');
  return sanitizeHtml(html, OPTIONS);
}
