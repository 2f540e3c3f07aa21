import { randomUUID } from 'crypto';
import { AnchorBox, Field, FieldAnchor, FieldSettings, FieldValueEntry, readFieldText } from '@dojang/domain';
import { FieldDto } from './document.dto';
import type { FieldSettingsResponse } from '../openapi/response-schemas';

const SETTINGS = [
  'label',
  'read_only',
  'font_size',
  'multiline',
  'max_length',
  'pattern',
  'pattern_message',
  'min',
  'max',
  'decimals',
  'number_format',
  'options',
  'group',
  'option',
  'min_checked',
  'max_checked',
  'locale',
  'accept',
  'max_bytes',
] as const satisfies readonly (keyof FieldSettings)[];

/**
 * A field as the sender placed it: only the settings they gave are recorded (fields of SPEC's
 * shape stay exactly as they were). A number prefill is kept as its canonical string.
 */
export function toField(dto: FieldDto, placed: { box: AnchorBox; anchor: FieldAnchor | null }): Field {
  const field: Field = {
    id: randomUUID(),
    participant_id: dto.participant_id.toLowerCase(),
    type: dto.type,
    page: placed.box.page,
    x: placed.box.x,
    y: placed.box.y,
    width: placed.box.width,
    height: placed.box.height,
    // Recorded only when given, so one-part documents' fields stay exactly as they were.
    ...(dto.part !== undefined ? { part: dto.part } : {}),
    // A checkbox in a group is answered with the group (min_checked), not one by one.
    required: dto.required ?? !(dto.type === 'checkbox' && dto.group !== undefined),
    upload_only: dto.upload_only ?? false,
  };
  const settings: Record<string, unknown> = {};
  for (const key of SETTINGS) if (dto[key] !== undefined) settings[key] = dto[key];
  // A prefill is read as a signer's value is: 3,500,000원 recorded as 3500000, 1995. 3. 15. as 1995-03-15.
  if (dto.value !== undefined) settings.value = typeof dto.value === 'number' ? String(dto.value) : typeof dto.value === 'string' ? readFieldText(dto.type, dto.value) : dto.value;
  return { ...field, ...(settings as FieldSettings), ...(placed.anchor ? { anchor: placed.anchor } : {}) };
}

/** The settings of a field that has them, for responses (absent ones are left out, as in the request). */
export function fieldSettingsOf(field: Field, signed: FieldValueEntry | undefined): FieldSettingsResponse {
  const out: Record<string, unknown> = {};
  for (const key of SETTINGS) if (field[key] !== undefined && field[key] !== null) out[key] = field[key];
  // Once its participant signed, the value they signed; before, the sender's prefill.
  if (signed) out.value = signed.value;
  else if (field.value !== undefined && field.value !== null) out.value = field.value;
  return out as FieldSettingsResponse;
}

/** A field in a response: where it is, what it asks for, and its settings (documents and the signing session alike). */
export function presentField(field: Field, signed: FieldValueEntry | undefined) {
  return {
    id: field.id,
    type: field.type,
    part: field.part ?? 0,
    page: field.page,
    x: field.x,
    y: field.y,
    width: field.width,
    height: field.height,
    required: field.required,
    upload_only: field.upload_only,
    ...(field.anchor ? { anchor: field.anchor } : {}),
    ...fieldSettingsOf(field, signed),
  };
}
