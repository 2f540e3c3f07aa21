import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { ParticipantAuth, RoleContact, invalid } from '@dojang/domain';

/** What a phone may look like before it is parsed: digits, one leading +, and the usual separators. */
const PHONE_CHARACTERS = /^\+?[\d\s\-.()]+$/;
const AUTHS: readonly ParticipantAuth[] = ['sms_pin', 'none'];
const MAX_TEXT = 320;

/**
 * One stored form for a phone (the API's participants rule): Korean numbers as domestic digits
 * (01012345678), others in E.164, blank as none. A refusal names `param`.
 */
export function normalizeRolePhone(raw: string, param: string): string | null {
  const text = raw.trim();
  if (text === '') return null;
  const refuse = () =>
    invalid('invalid_parameter', `${param} must be a Korean number (010-1234-5678, +82 10-1234-5678) or an international one with + and its country code; got "${text.slice(0, 40)}".`, param);
  if (!PHONE_CHARACTERS.test(text)) throw refuse();
  const parsed = parsePhoneNumberFromString(text, 'KR');
  if (!parsed || !parsed.isValid()) throw refuse();
  return parsed.countryCallingCode === '82' ? `0${parsed.nationalNumber}` : parsed.number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `roles: { employee: { name, email?, phone?, auth? } }` as JSON gives it (or a CSV row after its
 * columns were grouped): each value's type checked and the phone normalized, every refusal naming
 * `roles.<role>.<key>`. Whether the roles match the template is the domain's call (instantiateTemplate).
 */
export function parseRoleAssignments(raw: unknown, param = 'roles'): Record<string, RoleContact> {
  if (!isRecord(raw)) throw invalid(raw === undefined ? 'missing_parameter' : 'invalid_parameter', `${param} must be an object: { "<role>": { "name": …, "phone": …, "email": … } }.`, param);
  const out: Record<string, RoleContact> = {};
  for (const [role, value] of Object.entries(raw)) {
    const at = `${param}.${role}`;
    if (!isRecord(value)) throw invalid('invalid_parameter', `${at} must be an object with name and email or phone.`, at);
    for (const key of Object.keys(value)) {
      if (!['name', 'email', 'phone', 'auth'].includes(key)) throw invalid('invalid_parameter', `${at}.${key} is not a recipient property (name, email, phone, auth).`, `${at}.${key}`);
    }
    const text = (key: 'name' | 'email' | 'phone'): string | null => {
      const v = value[key];
      if (v === undefined || v === null) return null;
      if (typeof v !== 'string' || v.length > MAX_TEXT) throw invalid('invalid_parameter', `${at}.${key} must be a string of at most ${MAX_TEXT} characters.`, `${at}.${key}`);
      return v;
    };
    const auth = value.auth;
    if (auth !== undefined && auth !== null && !AUTHS.includes(auth as ParticipantAuth)) {
      throw invalid('invalid_parameter', `${at}.auth must be one of ${AUTHS.join(', ')}.`, `${at}.auth`);
    }
    const phone = text('phone');
    out[role] = {
      name: text('name') ?? '',
      email: text('email'),
      phone: phone === null ? null : normalizeRolePhone(phone, `${at}.phone`),
      ...(auth ? { auth: auth as ParticipantAuth } : {}),
    };
  }
  return out;
}
