import { NewEvent, UnstorableEventError } from './event-store.port';

/**
 * In JSON.stringify's output, an escape that stands for text no store keeps alike: a C0 control
 * other than tab, line feed and carriage return (`\u0000`…, `\b`, `\f`), or an unpaired surrogate
 * (well-formed JSON.stringify escapes those, and only those, as `\udXXX`). Preceded by an even
 * number of backslashes, so an escaped backslash followed by the letters "u0000" is not one.
 */
const BAD_ESCAPE = /(?<!\\)(?:\\\\)*\\(?:u00(?:0[0-8bcef]|1[0-9a-f])|[bf]|ud[89a-f][0-9a-f]{2})/;

/** The same test on a JavaScript string (used to name the place once the fast check failed). */
const BAD_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Checks, before an adapter plans or groups anything, that every event of one append can be
 * stored and hashed the same way by every store; throws UnstorableEventError naming the first
 * place that cannot. One JSON.stringify per event (what the stores do anyway); the walk that names
 * the place runs only for a refused event. Called by each adapter's `append`, so a bad append is
 * refused alone, never failing the other appends grouped with it.
 */
export function assertStorableEvents(streamId: string, events: NewEvent[]): void {
  events.forEach((event, i) => {
    let json: string;
    try {
      json = JSON.stringify([event.event_id, event.type, event.data, event.metadata]);
    } catch (err) {
      throw new UnstorableEventError(streamId, `events[${i}]`, `cannot be stored as JSON (${(err as Error).message.split('\n')[0]})`);
    }
    if (!BAD_ESCAPE.test(json)) return;
    const found = badTextPath({ event_id: event.event_id, type: event.type, data: event.data, metadata: event.metadata });
    throw new UnstorableEventError(
      streamId,
      found ? `events[${i}]${found.path ? `.${found.path}` : ''}`.replace(/\.\[/g, '[') : `events[${i}]`,
      `holds ${found?.inKey ? 'a key with ' : ''}text no store keeps alike (NUL, a control character other than tab, line feed or carriage return, or an unpaired surrogate)`,
    );
  });
}

/** Whether a string is text every store keeps alike (no NUL or other C0 control but tab, LF and CR; no unpaired surrogate). */
export function isStorableText(text: string): boolean {
  return !BAD_TEXT.test(text);
}

/**
 * Where the first string or key that no store keeps alike is in a value (`metadata.note`), or null:
 * the check an append makes, for callers that must refuse such input before it reaches an append
 * (a bulk send's rows, checked the same way by its dry run and its job).
 */
export function findUnstorableText(value: unknown): { path: string; inKey: boolean } | null {
  return badTextPath(value);
}

/** Where the first bad string or key is (iterative: values may be deep). */
function badTextPath(root: unknown): { path: string; inKey: boolean } | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  const seen = new Set<unknown>();
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (BAD_TEXT.test(value)) return { path, inKey: false };
      continue;
    }
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') {
      stack.push({ value: json.call(value), path });
      continue;
    }
    const isArray = Array.isArray(value);
    const keys = Object.keys(value);
    for (let k = keys.length - 1; k >= 0; k--) {
      const key = keys[k];
      if (!isArray && BAD_TEXT.test(key)) return { path, inKey: true };
      stack.push({ value: (value as Record<string, unknown>)[key], path: isArray ? `${path}[${key}]` : path ? `${path}.${key}` : key });
    }
  }
  return null;
}
