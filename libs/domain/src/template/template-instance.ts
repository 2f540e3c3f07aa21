import { Field, ParticipantAuth, ParticipantSetup } from '../document/document.events';
import { FieldValue, valueProblem } from '../document/field-types';
import { AUTO_FIELD_TYPES, IMAGE_FIELD_TYPES } from '../document/field-rules';
import { readFieldText } from '../document/field-input';
import { invalid } from '../shared/domain-error';
import { ownEntry } from '../shared/client-keys';
import { TemplateContract } from './template.events';

/** Who fills one role, as the shell parsed it (the phone already in its stored form, or null). */
export interface RoleContact {
  name: string;
  email: string | null;
  phone: string | null;
  /** Overrides the role's auth (e.g. sms_pin for this recipient). */
  auth?: ParticipantAuth;
}

export interface TemplateInstanceInput {
  /** Role name → who fills it. */
  roles: Record<string, RoleContact | undefined>;
  /** Prefilled values by template field id. */
  values?: Record<string, unknown>;
}

export interface TemplateInstance {
  participants: ParticipantSetup[];
  fields: Field[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MAX_ROLE_CONTACT_NAME = 200;
export const MAX_ROLE_CONTACT_EMAIL = 320;

/**
 * A template's roles filled in and its fields placed for the people filling them: the participants
 * and fields of a new document. Every refusal names the input (`roles.employee.phone`,
 * `values.<field id>`), so a row of a bulk send can say which column is wrong. `idFor` gives the
 * document's participant and field ids (derived from the document id, so a retried row makes the
 * very same document).
 */
export function instantiateTemplate(
  template: Pick<TemplateContract, 'roles' | 'fields'>,
  input: TemplateInstanceInput,
  idFor: (kind: 'participant' | 'field', key: string) => string,
): TemplateInstance {
  const known = new Set(template.roles.map((r) => r.role));
  for (const key of Object.keys(input.roles)) {
    if (!known.has(key)) {
      throw invalid('invalid_parameter', `roles.${key} is not a role of this template (its roles: ${[...known].join(', ') || 'none'}).`, `roles.${key}`);
    }
  }
  const participants = template.roles.map((role): ParticipantSetup => {
    const at = `roles.${role.role}`;
    const contact = ownEntry(input.roles, role.role);
    if (!contact) throw invalid('missing_parameter', `${at} is required: the template has a ${role.participant_role} role "${role.role}"; say who fills it.`, at);
    const name = (contact.name ?? '').trim();
    if (!name) throw invalid('missing_parameter', `${at}.name is required.`, `${at}.name`);
    if (name.length > MAX_ROLE_CONTACT_NAME) throw invalid('invalid_parameter', `${at}.name must be at most ${MAX_ROLE_CONTACT_NAME} characters.`, `${at}.name`);
    const email = contact.email?.trim() || null;
    if (email !== null && (email.length > MAX_ROLE_CONTACT_EMAIL || !EMAIL.test(email))) {
      throw invalid('invalid_parameter', `${at}.email must be an e-mail address, e.g. hong@example.com.`, `${at}.email`);
    }
    const auth = contact.auth ?? role.auth;
    if (auth === 'sms_pin' && !contact.phone) {
      throw invalid('missing_phone', `${at}.phone is required: role "${role.role}" signs with an SMS PIN (auth sms_pin).`, `${at}.phone`);
    }
    if (role.participant_role !== 'cc' && !email && !contact.phone) {
      throw invalid('missing_parameter', `${at}.email or ${at}.phone is required: the signing link must reach "${name}".`, `${at}.email`);
    }
    return {
      id: idFor('participant', role.role),
      name,
      phone: contact.phone,
      email,
      role: role.participant_role,
      signing_order: role.signing_order,
      auth,
      ...(role.representative ? { representative: true } : {}),
    };
  });
  const byRole = new Map(template.roles.map((r, i) => [r.role, participants[i]]));
  const values = input.values ?? {};
  const fieldIds = new Set(template.fields.map((f) => f.id));
  for (const key of Object.keys(values)) {
    if (!fieldIds.has(key)) throw invalid('invalid_parameter', `values.${key} names no field of this template.`, `values.${key}`);
  }
  const fields = template.fields.map(({ role, ...f }): Field => {
    const owner = byRole.get(role) as ParticipantSetup;
    // The template field's id stays on the document's field: form_data maps values back by it.
    const field: Field = { ...f, id: idFor('field', f.id), participant_id: owner.id, template_field_key: f.id };
    if ((f.type === 'email' || f.type === 'phone') && f.required && !owner[f.type]) {
      throw invalid('missing_parameter', `roles.${role}.${f.type} is required: the template fills a required ${f.type} field from it.`, `roles.${role}.${f.type}`);
    }
    if (!Object.prototype.hasOwnProperty.call(values, f.id)) return field;
    const at = `values.${f.id}`;
    const raw = values[f.id];
    if (IMAGE_FIELD_TYPES.includes(f.type) || AUTO_FIELD_TYPES.includes(f.type)) {
      throw invalid('invalid_parameter', `${at} cannot be set: a ${f.type} field is ${IMAGE_FIELD_TYPES.includes(f.type) ? 'made' : 'filled'} when its participant signs.`, at);
    }
    if (raw === null || raw === undefined) return field;
    let value: FieldValue;
    if (typeof raw === 'number' && Number.isFinite(raw)) value = String(raw);
    else if (typeof raw === 'string') value = readFieldText(f.type, raw);
    else if (typeof raw === 'boolean') value = raw;
    else throw invalid('invalid_parameter', `${at} must be a string, a number or a boolean.`, at);
    const problem = valueProblem(f, value);
    if (problem) throw invalid('field_value_invalid', `${at}: ${problem}`, at);
    return { ...field, value };
  });
  return { participants, fields };
}
