/**
 * The one rule for names a client chooses and then writes again elsewhere: a template's role names
 * (which are CSV column prefixes, `직원.phone`, and error params, `roles.직원.phone`) and the
 * `{{ 변수 }}` placeholders of a template body. Letters of any script count (Hangul, kana, Latin
 * with accents: Unicode \p{L}), as do marks and digits after the first character; dots separate
 * a column's parts and a placeholder's path, so a role name holds none. Control characters,
 * blanks, braces and punctuation other than _ and - are refused. Imports nothing, so the template
 * renderer (libs/seals) and the signing page can use this very file.
 */

/** How long a role name may be. */
export const MAX_ROLE_NAME = 40;

/** A role name: a letter first (no leading _ or -), at most MAX_ROLE_NAME characters, no dots. */
const ROLE_NAME = new RegExp(`^\\p{L}[\\p{L}\\p{M}\\p{N}_-]{0,${MAX_ROLE_NAME - 1}}$`, 'u');

/**
 * A `{{ placeholder }}` name (a RegExp source, flag u): a letter or _ first, then letters, marks,
 * digits, _, - and the dots of a path (`직원.이름`, `party.name`).
 */
export const PLACEHOLDER_NAME_SOURCE = '[\\p{L}_][\\p{L}\\p{M}\\p{N}_.-]*';

/** What the rule says in an error message or the docs. */
export const KEY_NAME_RULE = 'a letter (any script: 직원, employee) first, then letters, digits, _ and -';

/**
 * One spelling for a name as different keyboards and files write it: Hangul typed on macOS or
 * saved in its files arrives decomposed (NFD, ㅈ+ㅣ+ㄱ…), elsewhere composed (NFC); both mean the
 * same 직원, so names are compared and stored composed.
 */
export function keyName(raw: string): string {
  return raw.normalize('NFC');
}

/** Whether `name` (already trimmed) is a role name under the rule. */
export function isRoleName(name: string): boolean {
  return ROLE_NAME.test(keyName(name));
}

export type RoleColumnKey = 'name' | 'email' | 'phone' | 'auth';

/**
 * The recipient properties a bulk file's `<role>.<key>` column names, in English or as a Korean
 * HR sheet heads them (`직원.이름`, `직원.휴대폰`).
 */
const ROLE_COLUMN_KEYS: Record<string, RoleColumnKey> = {
  name: 'name',
  email: 'email',
  phone: 'phone',
  auth: 'auth',
  이름: 'name',
  성명: 'name',
  이메일: 'email',
  전자우편: 'email',
  휴대폰: 'phone',
  휴대전화: 'phone',
  핸드폰: 'phone',
  전화번호: 'phone',
  인증: 'auth',
};

/** The recipient property a column key (after `<role>.`) names, or null. */
export function roleColumnKey(key: string): RoleColumnKey | null {
  const k = keyName(key);
  return Object.prototype.hasOwnProperty.call(ROLE_COLUMN_KEYS, k) ? ROLE_COLUMN_KEYS[k] : null;
}

/** The column keys, for messages and the docs: name|email|phone|auth (이름|이메일|휴대폰|인증). */
export const ROLE_COLUMN_HINT = 'name|email|phone|auth (or 이름|이메일|휴대폰|인증)';
