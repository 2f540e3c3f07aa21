// A relative path: libs/seals builds from its own sources without the @dojang path aliases; key-names.ts is pure and imports nothing.
import { PLACEHOLDER_NAME_SOURCE, keyName } from '@dojang/domain/shared/key-names';

/**
 * `{{ name }}` placeholders in template HTML. Names follow the domain's key-name rule (a letter of
 * any script or _ first: `{{ 직원.이름 }}`, `{{ party.name }}`); braces around anything else (e.g.
 * `{{ 1st }}` or `{{ a b }}`) are not placeholders and are left as written, so prose that happens
 * to contain double braces survives. Names are compared composed (NFC), as role names are.
 */
const PLACEHOLDER = new RegExp(`\\{\\{\\s*(${PLACEHOLDER_NAME_SOURCE})\\s*\\}\\}`, 'gu');

/** Distinct placeholder names in order of first appearance. */
export function extractTemplateVariables(content: string): string[] {
  const names = new Set<string>();
  for (const m of content.matchAll(PLACEHOLDER)) names.add(keyName(m[1]));
  return [...names];
}

export type RenderTemplateResult =
  | { ok: true; html: string }
  | {
      ok: false;
      /** Every placeholder that could not be filled, in order of first appearance. */
      missing: string[];
      /**
       * The subset of `missing` that had a value of an unusable kind (object, array, NaN, ...)
       * rather than none, so an error message can tell "not given" from "wrong type".
       */
      invalid: string[];
    };

/**
 * Fills `{{ name }}` placeholders with HTML-escaped values.
 *
 * Value rules:
 * - string: used as is (an empty string is a deliberate value, not missing);
 * - finite number, bigint, boolean: `String(value)`;
 * - absent, `undefined`, `null`: missing;
 * - object, array, function, symbol, NaN, ±Infinity: invalid (and listed in `missing` too),
 *   because there is no single obvious text for them and "[object Object]" in a contract is
 *   worse than a refusal.
 *
 * A dotted name such as `party.name` is first looked up as a literal key, then as a path into
 * nested plain objects. Only own properties count, so `{{ constructor }}` cannot reach
 * Object.prototype.
 *
 * Substitution is a single pass: a value that itself contains `{{ x }}` is not expanded again,
 * and its braces can never form a field placeholder either (see insertAsText).
 */
export function renderTemplate(
  content: string,
  variables: Record<string, unknown>,
  /** 'text': values as they are (a document title, not HTML). Default: HTML-escaped. */
  as: 'html' | 'text' = 'html',
): RenderTemplateResult {
  const missing = new Set<string>();
  const invalid = new Set<string>();
  // Whether the placeholder sits inside a tag (an attribute value) or in text: tracked in one pass
  // over the content, up to each placeholder in turn.
  let scanned = 0;
  let inTag = false;
  const html = content.replace(PLACEHOLDER, (whole: string, written: string, offset: number) => {
    const name = keyName(written);
    for (; scanned < offset; scanned++) {
      const c = content.charCodeAt(scanned);
      if (c === 0x3c) inTag = true;
      else if (c === 0x3e) inTag = false;
    }
    scanned = offset + whole.length;
    const value = lookup(variables ?? {}, name);
    const text = toText(value);
    if (text !== undefined) return as === 'html' ? insertAsText(text, inTag) : text;
    missing.add(name);
    if (value !== undefined && value !== null) invalid.add(name);
    return whole;
  });
  if (missing.size > 0) return { ok: false, missing: [...missing], invalid: [...invalid] };
  return { ok: true, html };
}

function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

function lookup(variables: Record<string, unknown>, name: string): unknown {
  if (hasOwn(variables, name)) return variables[name];
  if (!name.includes('.')) return undefined;
  let current: unknown = variables;
  for (const key of name.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function toText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      return undefined;
  }
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * A value as text that can never form markup, a placeholder or a field anchor: HTML-escaped, and in
 * text every brace in an element of its own. Field placeholders (`{{signature:employee}}`) are
 * found in each run of text the PDF converter makes (libs/pdf anchors.ts), and an element ends a
 * run, so braces from a value never join each other or the template's own into a placeholder: a
 * value `{{signature:employee}}` stays those characters on the page, and the anchor lands on the
 * template's own placeholder (issue 33 §13). In an attribute value (no runs there) the braces
 * become character references, so the attribute stays well-formed.
 */
function insertAsText(text: string, inAttribute: boolean): string {
  const escaped = escapeHtml(text);
  if (!escaped.includes('{') && !escaped.includes('}')) return escaped;
  return escaped.replace(/[{}]/g, (c) => (inAttribute ? `&#${c.charCodeAt(0)};` : `<span>${c}</span>`));
}

/** Escapes for both text and quoted attribute contexts, since a placeholder may sit in either. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]);
}
