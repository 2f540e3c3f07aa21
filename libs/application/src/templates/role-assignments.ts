import { ParticipantAuth, RoleContact, invalid, keyName, mobilePhone } from '@dojang/domain';

const AUTHS: readonly ParticipantAuth[] = ['sms_pin', 'none'];
const MAX_TEXT = 320;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `roles: { employee: { name, email?, phone?, auth? } }` as JSON gives it (or a CSV row after its
 * columns were grouped): each value's type checked and the phone normalized, every refusal naming
 * `roles.<role>.<key>`. Whether the roles match the template is the domain's call (instantiateTemplate).
 */
export function parseRoleAssignments(raw: unknown, param = 'roles'): Record<string, RoleContact> {
  if (!isRecord(raw)) throw invalid(raw === undefined ? 'missing_parameter' : 'invalid_parameter', `${param} must be an object: { "<role>": { "name": …, "phone": …, "email": … } }.`, param);
  const out: Record<string, RoleContact> = {};
  for (const [given, value] of Object.entries(raw)) {
    // 직원 typed on a Mac arrives decomposed: the template's role names are stored composed.
    const role = keyName(given);
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
      phone: mobilePhone(phone, `${at}.phone`),
      ...(auth ? { auth: auth as ParticipantAuth } : {}),
    };
  }
  return out;
}
