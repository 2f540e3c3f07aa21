import { ApiError } from './api-error';

/**
 * The deepest nesting any request body needs is a handful of levels (`fields[0].x`,
 * `metadata.key`); class-transformer and class-validator recurse once per level, so a body nested
 * thousands deep overflows the stack. Refused before anything walks it recursively.
 */
export const MAX_JSON_DEPTH = 32;

/** A UTF-16 string with an unpaired surrogate: JSON's `\ud800` escapes allow it, UTF-8 cannot encode it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * C0 control characters other than tab, line feed and carriage return. PostgreSQL's jsonb cannot
 * hold NUL, so one rule for every store refuses it at the door (with the parameter named) rather
 * than a 500 on one store and a stored value on another; the rest of C0 has no place in a title,
 * a name or a document either (terminal escapes in logs, invisible text in PDFs).
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** Why a string cannot be accepted, or null. */
function textProblem(text: string): string | null {
  if (CONTROL.test(text)) return 'contains a control character (NUL or another C0 character other than tab, line feed or carriage return)';
  if (hasLoneSurrogate(text)) return 'is not valid Unicode text (it contains an unpaired surrogate)';
  return null;
}

function pathOf(parent: string, key: string, inArray: boolean): string {
  if (inArray) return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/**
 * Checks a parsed JSON body (or query string) without recursion (it may be nested deeper than the
 * stack allows): at most MAX_JSON_DEPTH levels, and every string and key valid Unicode without C0
 * controls but tab, line feed and carriage return, so nothing downstream (a store, PDF rendering,
 * Content-Disposition, e-mail) meets text it cannot keep or encode.
 */
export function assertAcceptableJson(body: unknown): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) throw ApiError.invalid(path || 'body', `${path || 'The body'} ${problem}.`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw ApiError.invalid(path || 'body', `The request body is nested too deeply: at most ${MAX_JSON_DEPTH} levels of objects and arrays.`);
    }
    const inArray = Array.isArray(value);
    for (const key of Object.keys(value)) {
      const here = pathOf(path, key, inArray);
      const problem = textProblem(key);
      if (problem) throw ApiError.invalid(path || 'body', `A key in ${path || 'the body'} ${problem}.`);
      stack.push({ value: (value as Record<string, unknown>)[key], path: here, depth: depth + 1 });
    }
  }
}

/**
 * The request path by the same rule, segment by segment as the router decodes it: `/v1/templates/%00`
 * named a stream PostgreSQL cannot even read (`invalid byte sequence for encoding "UTF8": 0x00`,
 * a 500) while SQLite answered 404. No id, token or name of this API holds such text, so the
 * request is refused before any route or store sees it. A segment that is not valid percent-encoded
 * UTF-8 (a lone surrogate's bytes) is refused likewise.
 */
export function assertAcceptablePath(path: string): void {
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) {
      const problem = textProblem(segment);
      if (problem) throw ApiError.invalid('path', `The request path ${problem}.`);
      continue;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw ApiError.invalid('path', 'The request path is not valid percent-encoded UTF-8 text.');
    }
    const problem = textProblem(decoded);
    if (problem) throw ApiError.invalid('path', `The request path ${problem}.`);
  }
}
