import { Field } from './document.events';
import { ChosenOption, FieldValueEntry, FormDataEntry } from './field-types';

/** Values as recorded, each with its field's template key, group, option and the choice made. */
export function formDataEntries(fields: readonly Field[], values: ReadonlyArray<FieldValueEntry & { participant_id: string }>): FormDataEntry[] {
  const byId = new Map(fields.map((f) => [f.id, f]));
  // A radio group's chosen button: the one whose value is true.
  const chosenIn = new Map<string, Field>();
  for (const v of values) {
    const f = byId.get(v.field_id);
    if (f?.type === 'radio' && f.group && v.value === true) chosenIn.set(f.group, f);
  }
  return values.map((v) => {
    const f = byId.get(v.field_id);
    let selected: ChosenOption | null = null;
    if (f?.type === 'radio' && f.group) {
      const chosen = chosenIn.get(f.group);
      if (chosen?.option) selected = { value: chosen.option, label: chosen.label ?? chosen.option };
    } else if (v.type === 'dropdown' && typeof v.value === 'string' && v.value !== '') {
      selected = { value: v.value, label: v.value };
    } else if (f?.type === 'checkbox' && f.group && v.value === true) {
      selected = { value: f.template_field_key ?? f.id, label: v.label ?? f.label ?? '' };
    }
    return {
      ...v,
      template_field_key: f?.template_field_key ?? null,
      group: f?.group ?? null,
      option: f?.type === 'radio' ? (f.option ?? null) : null,
      selected,
    };
  });
}

/**
 * An entry recorded before these properties existed (DocumentCompleted events of older
 * documents), read with their defaults: nothing known of the template or the choice.
 */
export function withFormDataDefaults(entry: FieldValueEntry & { participant_id: string } & Partial<FormDataEntry>): FormDataEntry {
  return { template_field_key: null, group: null, option: null, selected: null, ...entry };
}
