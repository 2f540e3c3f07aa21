/*
 * Preview as a signer (issue 34, item 5): the pages as the chosen participant or role will see
 * them, with the signing page's bottom sheet. Only their fields are drawn; a tap on one opens the
 * sheet the signing page opens for it (signing-page/sheet.js): the step among their fields in
 * reading order (a radio group once), the field's label and whether it is required, the control
 * the signer gets (a text box, a textarea, the date picker, the dropdown's options, a large
 * checkbox, the radio group's options, a file input), and 이전/다음/닫기. The sheet's look is the
 * signing page's (styles.css mirrors its `.sheet` rules). Nothing typed here is kept: it is a
 * preview of the form, not a draft.
 */
import { t } from './i18n.js';
import { S } from './model.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** Filled by the service at signing or shown as set: the signer never gets a sheet for them (as field-rules.js isEditable says). */
const AUTO = ['signing_date', 'name', 'email', 'phone'];

/** @param {import('./model.js').EditorField} f */
const titleOf = (f) => (typeof f.settings.label === 'string' && f.settings.label ? f.settings.label : t(`type_${f.type}`));

/**
 * The steps of the sheet for whoever is previewed: their fields in reading order (page, then top
 * to bottom, then left to right), a radio group once (its first button), as sheet.js steps().
 */
export function previewSteps() {
  const seen = new Set();
  return S.fields
    .filter((f) => f.assignee === S.preview && !AUTO.includes(f.type) && !f.settings.read_only)
    .sort((a, b) => a.part - b.part || a.page - b.page || a.y - b.y || a.x - b.x)
    .filter((f) => {
      if (f.type !== 'radio') return true;
      if (seen.has(f.settings.group)) return false;
      seen.add(f.settings.group);
      return true;
    });
}

/** The control the signer gets for `f`, disconnected from anything saved. @param {import('./model.js').EditorField} f */
function control(f) {
  const wrap = document.createElement('div');
  if (f.type === 'checkbox' || f.type === 'radio') {
    const members = f.type === 'radio' ? S.fields.filter((m) => m.type === 'radio' && m.assignee === f.assignee && m.settings.group === f.settings.group) : [f];
    const group = document.createElement('fieldset');
    group.className = 'choice-group';
    const legend = document.createElement('legend');
    legend.className = 'sr-only';
    legend.textContent = titleOf(f);
    group.appendChild(legend);
    members.forEach((m, i) => {
      const label = document.createElement('label');
      label.className = 'choice';
      const input = document.createElement('input');
      input.type = f.type;
      input.name = 'preview-value';
      input.id = `preview-input-${i}`;
      label.append(input, document.createTextNode(` ${f.type === 'radio' ? String(m.settings.option ?? '') : titleOf(m)}`));
      group.appendChild(label);
    });
    wrap.appendChild(group);
    return wrap;
  }
  if (f.type === 'signature' || f.type === 'seal') {
    const p = document.createElement('p');
    p.className = 'hint';
    p.textContent = t('previewSignHere');
    wrap.appendChild(p);
    return wrap;
  }
  /** @type {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} */
  let input;
  if (f.type === 'dropdown') {
    const select = document.createElement('select');
    for (const o of ['', ...(Array.isArray(f.settings.options) ? f.settings.options : [])]) {
      const opt = document.createElement('option');
      opt.value = String(o);
      opt.textContent = o === '' ? t('previewChoose') : String(o);
      select.appendChild(opt);
    }
    input = select;
  } else if (f.type === 'text' && f.settings.multiline) {
    input = document.createElement('textarea');
  } else {
    const box = document.createElement('input');
    box.type = f.type === 'date' ? 'date' : f.type === 'attachment' ? 'file' : 'text';
    if (f.type === 'number') box.inputMode = f.settings.decimals ? 'decimal' : 'numeric';
    input = box;
  }
  input.id = 'preview-input';
  input.className = 'field-input';
  const label = document.createElement('label');
  label.htmlFor = input.id;
  label.className = 'sr-only';
  label.textContent = titleOf(f);
  wrap.append(label, input);
  return wrap;
}

/** Opens the sheet on step `at` of previewSteps(). @param {number} at */
function openStep(at) {
  const list = previewSteps();
  const f = list[at];
  if (!f) return;
  $('preview-sheet').dataset.step = String(at);
  $('preview-step').textContent = t('previewStep', { n: at + 1, count: list.length });
  $('preview-title').textContent = titleOf(f) + (f.settings.required === false ? '' : ` · ${t('required')}`);
  const wrap = $('preview-input-wrap');
  wrap.textContent = '';
  wrap.appendChild(control(f));
  /** @type {HTMLButtonElement} */ ($('preview-prev')).disabled = at === 0;
  /** @type {HTMLButtonElement} */ ($('preview-next')).disabled = at === list.length - 1;
  for (const el of document.querySelectorAll('.field.field-current')) el.classList.remove('field-current');
  document.querySelector(`.field[data-key="${f.key}"]`)?.classList.add('field-current');
  const dialog = /** @type {HTMLDialogElement} */ ($('preview-sheet'));
  if (!dialog.open) dialog.showModal();
  /** @type {HTMLElement | null} */ (wrap.querySelector('input, select, textarea'))?.focus();
}

/** The sheet for the field with `key` (a tap on its mark in the preview). @param {number} key */
export function openPreviewSheet(key) {
  const f = S.fields.find((x) => x.key === key);
  if (!f) return;
  const list = previewSteps();
  const at = list.findIndex((s) => s === f || (f.type === 'radio' && s.type === 'radio' && s.settings.group === f.settings.group && s.assignee === f.assignee));
  if (at >= 0) openStep(at);
}

export function closePreviewSheet() {
  const dialog = /** @type {HTMLDialogElement} */ ($('preview-sheet'));
  if (dialog.open) dialog.close();
  for (const el of document.querySelectorAll('.field.field-current')) el.classList.remove('field-current');
}

export function wirePreviewSheet() {
  const step = () => Number($('preview-sheet').dataset.step ?? '0');
  $('preview-prev').addEventListener('click', () => openStep(step() - 1));
  $('preview-next').addEventListener('click', () => openStep(step() + 1));
  $('preview-close').addEventListener('click', closePreviewSheet);
  $('preview-sheet').addEventListener('close', () => {
    for (const el of document.querySelectorAll('.field.field-current')) el.classList.remove('field-current');
  });
}
