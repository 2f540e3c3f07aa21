/**
 * Names a client chooses that become keys (template role names, metadata keys, CSV column
 * suffixes) follow one rule: none of the names a plain JavaScript object already answers to.
 * `roles["constructor"]` on a plain object is the built-in Object function, so a role named
 * `constructor` read a participant named "Object", and a CSV column `constructor.name` wrote onto
 * the built-in function itself (issue 33 §11). Free-form maps whose keys are the client's own
 * words (template variables) are kept in null-prototype objects instead, where every name is
 * plain.
 */
export const BUILT_IN_KEY_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

export function isBuiltInKeyName(name: string): boolean {
  return BUILT_IN_KEY_NAMES.has(name);
}

/** `record[key]` only when the record holds it itself: never a value inherited from Object.prototype. */
export function ownEntry<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return record != null && Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}
