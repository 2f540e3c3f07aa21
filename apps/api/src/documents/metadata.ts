import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_KEYS, MAX_METADATA_VALUE_LENGTH } from '@dojang/domain';
import { ApiError } from '../shared/api-error';

/**
 * Metadata is a flat map of short strings (numbers and booleans are stored as their text).
 * `allowNull` is for PATCH, where null removes a key.
 */
export function normalizeMetadata(input: Record<string, unknown> | undefined, allowNull: boolean): Record<string, string | null> | undefined {
  if (input === undefined) return undefined;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw ApiError.invalid('metadata', 'metadata must be an object.');
  const entries = Object.entries(input);
  // Named by the first key over the limit, so the integrator sees which one to drop.
  if (entries.length > MAX_METADATA_KEYS) throw ApiError.invalid(`metadata.${entries[MAX_METADATA_KEYS][0]}`, `metadata may hold at most ${MAX_METADATA_KEYS} keys; it has ${entries.length}.`);
  const out: Record<string, string | null> = {};
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > MAX_METADATA_KEY_LENGTH) throw ApiError.invalid(`metadata.${key}`, `metadata keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters.`);
    if (value === null && allowNull) out[key] = null;
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      const text = String(value);
      if (text.length > MAX_METADATA_VALUE_LENGTH) throw ApiError.invalid(`metadata.${key}`, `metadata values must be at most ${MAX_METADATA_VALUE_LENGTH} characters.`);
      out[key] = text;
    } else throw ApiError.invalid(`metadata.${key}`, 'metadata values must be strings, numbers or booleans.');
  }
  return out;
}
