/*
 * The selected field's settings: who it is for, label, required, and its type's own settings
 * (choices, groups, checkbox group limits, number and date formats, text validation). Each
 * control writes the field at once; the API checks everything at save, and its refusal is shown
 * here and next to the field.
 */
import { t } from './i18n.js';
import { S, assignees, byKey } from './model.js';
import { removeField, renderFields, select } from './pages.js';

const panel = () => /** @type {HTMLElement} */ (document.getElementById('settings'));
const form = () => /** @type {HTMLFormElement} */ (document.getElementById('settings-form'));

/** @type {number | null} */
let open = null;

/**
 * A labelled control in the form.
 * @param {string} id
 * @param {string} labelKey
 * @param {HTMLElement} control
 */
function row(id, labelKey, control) {
  const wrap = document.createElement('div');
  wrap.className = control instanceof HTMLInputElement && control.type === 'checkbox' ? 'row row-check' : 'row';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = t(labelKey);
  control.id = id;
  if (wrap.classList.contains('row-check')) wrap.append(control, label);
  else wrap.append(label, control);
  form().appendChild(wrap);
}

/**
 * @param {string} id
 * @param {string} labelKey
 * @param {string} type
 * @param {unknown} value
 * @param {(value: string) => void} set
 */
function input(id, labelKey, type, value, set) {
  const el = document.createElement('input');
  el.type = type;
  el.value = value === undefined || value === null ? '' : String(value);
  if (type === 'number') el.step = 'any';
  el.addEventListener('input', () => set(el.value));
  row(id, labelKey, el);
}

/**
 * @param {string} id
 * @param {string} labelKey
 * @param {Array<[string, string]>} options value, label
 * @param {string} value
 * @param {(value: string) => void} set
 */
function choose(id, labelKey, options, value, set) {
  const el = document.createElement('select');
  for (const [v, label] of options) {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = label;
    el.appendChild(o);
  }
  el.value = value;
  el.addEventListener('change', () => set(el.value));
  row(id, labelKey, el);
}

/** @param {string} id @param {string} labelKey @param {boolean} checked @param {(on: boolean) => void} set */
function check(id, labelKey, checked, set) {
  const el = document.createElement('input');
  el.type = 'checkbox';
  el.checked = checked;
  el.addEventListener('change', () => set(el.checked));
  row(id, labelKey, el);
}

/** A number setting: blank leaves it out. @param {string} v */
const num = (v) => (v.trim() === '' ? undefined : Number(v));

/** @param {number} key */
export function openSettings(key) {
  const f = byKey(key);
  if (!f || S.preview !== null) return;
  open = key;
  const p = panel();
  p.hidden = false;
  const f0 = form();
  f0.textContent = '';
  const title = /** @type {HTMLElement} */ (document.getElementById('settings-title'));
  title.textContent = `${t('settings')} · ${t(`type_${f.type}`)}`;
  const changed = () => {
    f.error = null;
    S.dirty = true;
    renderFields();
    select(key, false);
  };
  /** @param {string} k @param {unknown} v */
  const setting = (k, v) => {
    if (v === undefined || v === '' || (typeof v === 'number' && Number.isNaN(v))) delete f.settings[k];
    else f.settings[k] = v;
    changed();
  };

  choose('set-assignee', 'assignee', assignees().map((a) => [a.value, a.name]), f.assignee, (v) => {
    f.assignee = v;
    changed();
  });
  input('set-label', 'label', 'text', f.settings.label, (v) => setting('label', v));
  const groupMember = (f.type === 'checkbox' && f.settings.group !== undefined) || f.type === 'radio';
  check('set-required', 'required', f.settings.required !== undefined ? f.settings.required === true : !(f.type === 'checkbox' && f.settings.group !== undefined), (on) => setting('required', on));
  if (f.type === 'dropdown') {
    const el = document.createElement('textarea');
    el.rows = 4;
    el.value = Array.isArray(f.settings.options) ? f.settings.options.join('\n') : '';
    el.addEventListener('input', () => setting('options', el.value.split('\n').map((s) => s.trim()).filter(Boolean)));
    row('set-options', 'options', el);
  }
  if (groupMember || f.type === 'checkbox') input('set-group', 'group', 'text', f.settings.group, (v) => setting('group', v.trim() || undefined));
  if (f.type === 'radio') input('set-option', 'option', 'text', f.settings.option, (v) => setting('option', v));
  if (f.type === 'checkbox' && f.settings.group !== undefined) {
    input('set-min-checked', 'minChecked', 'number', f.settings.min_checked, (v) => setting('min_checked', num(v)));
    input('set-max-checked', 'maxChecked', 'number', f.settings.max_checked, (v) => setting('max_checked', num(v)));
  }
  if (f.type === 'number') {
    choose(
      'set-number-format',
      'numberFormat',
      [['plain', t('formatPlain')], ['grouped', t('formatGrouped')], ['won', t('formatWon')], ['krw', t('formatKrw')]],
      String(f.settings.number_format ?? 'plain'),
      (v) => setting('number_format', v === 'plain' ? undefined : v),
    );
    input('set-min', 'min', 'number', f.settings.min, (v) => setting('min', num(v)));
    input('set-max', 'max', 'number', f.settings.max, (v) => setting('max', num(v)));
    input('set-decimals', 'decimals', 'number', f.settings.decimals, (v) => setting('decimals', num(v)));
  }
  if (f.type === 'date' || f.type === 'signing_date') {
    choose('set-date-format', 'dateFormat', [['ko', t('dateKo')], ['en', t('dateEn')]], String(f.settings.locale ?? 'ko'), (v) => setting('locale', v === 'ko' ? undefined : v));
  }
  if (f.type === 'text') {
    input('set-max-length', 'maxLength', 'number', f.settings.max_length, (v) => setting('max_length', num(v)));
    input('set-pattern', 'pattern', 'text', f.settings.pattern, (v) => setting('pattern', v));
    input('set-pattern-message', 'patternMessage', 'text', f.settings.pattern_message, (v) => setting('pattern_message', v));
    check('set-multiline', 'multiline', f.settings.multiline === true, (on) => setting('multiline', on || undefined));
  }
  const error = /** @type {HTMLElement} */ (document.getElementById('settings-error'));
  error.textContent = f.error ?? '';
  error.hidden = !f.error;
  /** @type {HTMLElement | null} */ (f0.querySelector('input, select, textarea'))?.focus();
}

/** Closes the panel and gives the focus back to the field it was open for. */
export function closeSettings() {
  const key = open;
  open = null;
  panel().hidden = true;
  if (key !== null) select(key, true);
}

export function wireSettings() {
  document.getElementById('settings-close')?.addEventListener('click', closeSettings);
  document.getElementById('settings-remove')?.addEventListener('click', () => {
    const key = open;
    open = null;
    panel().hidden = true;
    if (key !== null) removeField(key);
  });
  panel().addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      closeSettings();
    }
  });
  form().addEventListener('submit', (e) => {
    e.preventDefault();
    closeSettings();
  });
}

/** After a refused save: the panel shows the refused field's message, if it is the one open. */
export function refreshSettingsError() {
  if (open === null) return;
  const f = byKey(open);
  const error = /** @type {HTMLElement} */ (document.getElementById('settings-error'));
  error.textContent = f?.error ?? '';
  error.hidden = !f?.error;
}
