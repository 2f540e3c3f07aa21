/*
 * The bottom sheet: one field at a time, full width at the bottom of a phone's screen, with the
 * field's label, a large native input (text, textarea, a numeric keyboard, the date picker, a
 * select, one big checkbox, the radio group's options, a file input offering the camera) and
 * 이전/다음/저장. A field's size on the page image no longer matters: the marks on the page only
 * show where each value goes (pages.js) and open this sheet.
 *
 * Every confirmed value is checked with the domain's rules (field-checks.js), kept in S.sign.values
 * and saved to the server's draft (draft.js), so a reload resumes here.
 */
import { apiUpload, clientError, failLink, isLinkFailure } from './api.js';
import { saveDraft } from './draft.js';
import { renderError } from './errors.js';
import { checkValue, checkboxLimits, groupsOf, isEditable, recordedText, ruleText } from './field-checks.js';
import { formatFieldDate, isFilled, todayIso, valueOf } from './fields.js';
import { t } from './i18n.js';
import { $, S, render, setText, show } from './state.js';

/** MIME types of the attachment `accept` names. */
var ACCEPT_TYPES = { pdf: 'application/pdf', jpeg: 'image/jpeg', png: 'image/png' };
var DEFAULT_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** @type {any} the field the sheet shows (for a radio group: its first button) */
var editing = null;

/** Fields in reading order: page, then top to bottom, then left to right. */
export function fieldsInOrder() {
  return (S.view.fields || []).slice().sort(function (a, b) {
    return a.page - b.page || a.y - b.y || a.x - b.x;
  });
}

/** The sheet's steps: every field the signer types or picks, a radio group once (its first button). */
export function steps() {
  var seen = {};
  return fieldsInOrder().filter(function (f) {
    if (!isEditable(f)) return false;
    if (f.type !== 'radio') return true;
    if (seen[f.group]) return false;
    seen[f.group] = true;
    return true;
  });
}

/** The step that edits `f` (a radio button's group is one step). */
function stepOf(f) {
  var list = steps();
  for (var i = 0; i < list.length; i++) {
    if (list[i] === f || (f.type === 'radio' && list[i].type === 'radio' && list[i].group === f.group)) return i;
  }
  return -1;
}

export function fieldTitle(f) {
  return f.label || t('type_' + f.type);
}

/** The marks of `f` on the page images (a radio group: all its buttons). */
function marksOf(f) {
  var ids = f.type === 'radio' ? (groupsOf(S.view.fields || [])[f.group] || [f]).map(function (m) { return m.id; }) : [f.id];
  var out = [];
  ids.forEach(function (id) {
    var el = document.querySelector('[data-field-id="' + CSS.escape(id) + '"]');
    if (el) out.push(el);
  });
  return out;
}

/** Marks `f` on its page and scrolls the page so the mark sits above the sheet. */
function showOnPage(f) {
  var old = document.querySelectorAll('.field-current');
  for (var i = 0; i < old.length; i++) old[i].classList.remove('field-current');
  var marks = marksOf(f);
  marks.forEach(function (el) { el.classList.add('field-current'); });
  if (!marks.length) return;
  var box = marks[0].getBoundingClientRect();
  // The sheet covers the lower part of the screen: the field goes to the upper quarter.
  window.scrollBy({ top: box.top - window.innerHeight * 0.2, behavior: 'auto' });
  var scroller = marks[0].closest('.pages-scroll');
  if (scroller && scroller.scrollWidth > scroller.clientWidth) {
    var sb = scroller.getBoundingClientRect();
    scroller.scrollLeft += box.left - sb.left - 16;
  }
}

/** Opens the sheet on `f` (any field the signer fills). */
export function openSheet(f) {
  if (!f || !isEditable(f)) return;
  var at = stepOf(f);
  if (at < 0) return;
  var list = steps();
  editing = list[at];
  S.sign.fieldError = null;
  setText($('field-step'), t('sheetStep', { n: at + 1, count: list.length }));
  setText($('field-dialog-title'), fieldTitle(editing) + (editing.required ? ' · ' + t('hintRequired') : ''));
  var wrap = $('field-input-wrap');
  while (wrap.firstChild) wrap.removeChild(wrap.firstChild);
  var hint = '';
  if (editing.type === 'attachment') {
    buildAttachment(wrap, editing);
    hint = t('attachmentHint', { types: acceptOf(editing).names.join(', '), mb: Math.max(1, Math.round(maxBytesOf(editing) / 1048576)) });
  } else if (editing.type === 'checkbox') {
    wrap.appendChild(buildCheckbox(editing));
  } else if (editing.type === 'radio') {
    wrap.appendChild(buildRadios(editing));
  } else {
    var input = buildInput(editing);
    var label = document.createElement('label');
    label.htmlFor = input.id;
    label.className = 'sr-only';
    label.textContent = t('fieldValueLabel', { name: fieldTitle(editing), page: editing.page });
    wrap.appendChild(label);
    wrap.appendChild(input);
    hint = inputHint(editing);
    // The browser's date picker writes the day its own way (the device's locale): the hint says
    // how the document will print it, following the input as the signer picks.
    if (editing.type === 'date') {
      var dated = editing;
      input.addEventListener('input', function () { setText($('field-hint'), inputHint(dated, input.value)); });
    }
  }
  setText($('field-hint'), hint);
  show($('field-hint'), Boolean(hint));
  renderError($('field-error'), null);
  $('field-prev').disabled = at === 0;
  setText($('field-next'), t(at === list.length - 1 ? 'nextDone' : 'next'));
  var dialog = $('field-dialog');
  if (!dialog.open) dialog.showModal();
  showOnPage(editing);
  var first = wrap.querySelector('input:checked, input, select, textarea');
  if (first) first.focus({ preventScroll: true });
}

/** "다음 입력 칸": the sheet on the first field still empty, else on the first field. */
export function openFirstEmpty() {
  var list = steps();
  for (var i = 0; i < list.length; i++) {
    if (!isFilled(list[i])) return openSheet(list[i]);
  }
  if (list.length) openSheet(list[0]);
}

function closeSheet() {
  var dialog = $('field-dialog');
  if (dialog.open) dialog.close();
}

function buildInput(f) {
  var v = valueOf(f);
  /** @type {any} */
  var input;
  if (f.type === 'dropdown') {
    input = document.createElement('select');
    var none = document.createElement('option');
    none.value = '';
    none.textContent = t('choose');
    input.appendChild(none);
    (f.options || []).forEach(function (o) {
      var opt = document.createElement('option');
      opt.value = o;
      opt.textContent = o;
      input.appendChild(opt);
    });
  } else if (f.type === 'text' && f.multiline) {
    input = document.createElement('textarea');
    input.rows = 4;
  } else {
    input = document.createElement('input');
    input.type = f.type === 'date' ? 'date' : 'text';
    if (f.type === 'number') input.inputMode = f.decimals ? 'decimal' : 'numeric';
    if (f.type === 'initials') input.autocapitalize = 'characters';
    input.enterKeyHint = 'next';
  }
  if (f.type === 'text') input.maxLength = f.max_length != null ? f.max_length : 1000;
  if (f.type === 'initials') input.maxLength = 10;
  input.id = 'field-input';
  input.name = 'value';
  input.className = 'field-input';
  input.required = Boolean(f.required);
  input.setAttribute('aria-describedby', 'field-hint field-error');
  input.value = v == null ? '' : String(v);
  return input;
}

/** One large checkbox, labelled with the field's own label. */
function buildCheckbox(f) {
  var label = document.createElement('label');
  label.className = 'choice choice-large';
  var input = document.createElement('input');
  input.type = 'checkbox';
  input.id = 'field-input';
  input.checked = valueOf(f) === true;
  input.setAttribute('aria-describedby', 'field-hint field-error');
  var text = document.createElement('span');
  text.textContent = fieldTitle(f);
  label.appendChild(input);
  label.appendChild(text);
  return label;
}

/** The radio group's options as large native radio buttons. */
function buildRadios(f) {
  var set = document.createElement('fieldset');
  set.className = 'choice-group';
  var legend = document.createElement('legend');
  legend.className = 'sr-only';
  legend.textContent = fieldTitle(f);
  set.appendChild(legend);
  (groupsOf(S.view.fields || [])[f.group] || [f]).forEach(function (m, k) {
    var label = document.createElement('label');
    label.className = 'choice choice-large';
    var input = document.createElement('input');
    input.type = 'radio';
    input.name = 'field-radio';
    input.value = m.id;
    input.id = k === 0 ? 'field-input' : 'field-input-' + k;
    input.checked = valueOf(m) === true;
    input.setAttribute('aria-describedby', 'field-hint field-error');
    var text = document.createElement('span');
    text.textContent = m.option || fieldTitle(m);
    label.appendChild(input);
    label.appendChild(text);
    set.appendChild(label);
  });
  return set;
}

function inputHint(f, typed) {
  var parts = [];
  if (f.type === 'date') {
    var day = typed != null ? typed : valueOf(f);
    // An example from today until a day is picked, so the format is seen before choosing.
    parts.push(day ? t('hintDatePrinted', { date: formatFieldDate(f, String(day)) }) : t('hintDateFormat', { date: formatFieldDate(f, todayIso()) }));
  }
  if (f.type === 'text' && f.pattern_message) parts.push(f.pattern_message);
  if (f.type === 'text' && f.max_length != null) parts.push(t('hintMaxLength', { n: f.max_length }));
  if (f.type === 'number') {
    if (f.min != null && f.max != null) parts.push(t('hintRange', { min: f.min, max: f.max }));
    else if (f.min != null) parts.push(t('rule_below_min', { min: f.min }));
    else if (f.max != null) parts.push(t('rule_above_max', { max: f.max }));
  }
  return parts.join(' · ');
}

/** Keeps the sheet open on `problem` (the domain's { reason, … }), worded from the catalogue. */
function fail(problem) {
  var input = $('field-input');
  if (input) {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  }
  renderError($('field-error'), { code: 'field_rule', status: -1, message: '', text: ruleText(problem) });
  return false;
}

/**
 * Takes the sheet's value into the page's state and the draft. `leaving` (이전/다음) lets an empty
 * required field stay empty; 저장 asks for it. A value the rules refuse keeps the sheet open.
 */
function commit(leaving) {
  var f = editing;
  if (!f) return true;
  var changes = {};
  if (f.type === 'attachment') return true; // saved by its upload
  if (f.type === 'radio') {
    var chosen = /** @type {HTMLInputElement | null} */ (document.querySelector('#field-input-wrap input[type=radio]:checked'));
    if (!chosen && f.required && !leaving) return fail({ reason: 'radio_required' });
    (groupsOf(S.view.fields || [])[f.group] || [f]).forEach(function (m) {
      var on = Boolean(chosen && chosen.value === m.id);
      if (valueOf(m) !== on) changes[m.id] = on;
    });
  } else if (f.type === 'checkbox') {
    var on = $('field-input').checked;
    if (!on && f.required && !leaving) return fail({ reason: 'required_check' });
    if (on && f.group != null) {
      var members = groupsOf(S.view.fields || [])[f.group];
      var max = checkboxLimits(members).max;
      var count = members.filter(function (m) { return m !== f && valueOf(m) === true; }).length + 1;
      if (count > max) return fail({ reason: 'too_many_checked', max: max, count: count });
    }
    if (valueOf(f) !== on) changes[f.id] = on;
  } else {
    var value = recordedText(f, $('field-input').value);
    if (value == null && f.required && !leaving) return fail({ reason: 'required' });
    var problem = value == null ? null : checkValue(f, value);
    if (problem) return fail(problem);
    if (valueOf(f) !== value) changes[f.id] = value;
  }
  Object.keys(changes).forEach(function (id) { S.sign.values[id] = changes[id]; });
  if (Object.keys(changes).length) saveDraft(changes);
  S.sign.error = null;
  if (S.sign.fieldError === f.id) S.sign.fieldError = null;
  return true;
}

function save(ev) {
  ev.preventDefault();
  if (!commit(false)) return;
  closeSheet();
  render();
}

function move(by) {
  if (!commit(true)) return;
  var list = steps();
  var at = stepOf(editing) + by;
  render();
  if (at < 0) at = 0;
  if (at >= list.length) {
    // Past the last field: on to the review and the signature.
    closeSheet();
    var head = $('review-heading');
    if (head) {
      head.scrollIntoView({ block: 'start' });
      $('sign-heading').focus({ preventScroll: true });
    }
    return;
  }
  openSheet(list[at]);
}

export function initSheet() {
  $('field-form').addEventListener('submit', save);
  $('field-prev').addEventListener('click', function () { move(-1); });
  $('field-next').addEventListener('click', function () { move(1); });
  $('field-cancel').addEventListener('click', closeSheet);
  $('field-dialog').addEventListener('close', function () {
    editing = null;
    var old = document.querySelectorAll('.field-current');
    for (var i = 0; i < old.length; i++) old[i].classList.remove('field-current');
  });
}

// Attachments: POST /v1/signing/<token>/attachments (multipart: file, field_id) → attachment_id,
// which is the field's value in the draft and at Sign.

function acceptOf(f) {
  var names = Array.isArray(f.accept) && f.accept.length ? f.accept.filter(function (a) { return ACCEPT_TYPES[a]; }) : ['pdf', 'jpeg', 'png'];
  return { names: names, types: names.map(function (a) { return ACCEPT_TYPES[a]; }) };
}

function maxBytesOf(f) {
  return typeof f.max_bytes === 'number' && f.max_bytes > 0 ? f.max_bytes : DEFAULT_ATTACHMENT_BYTES;
}

function buildAttachment(wrap, f) {
  var accept = acceptOf(f);
  var pick = fileInput('attachment-file', 'attachmentPick', accept.types.join(','), false);
  wrap.appendChild(pick[0]);
  wrap.appendChild(pick[1]);
  // A second input that opens the camera on phones (capture), when photos are accepted.
  if (accept.types.some(function (m) { return m.indexOf('image/') === 0; })) {
    var cam = fileInput('attachment-camera', 'attachmentCamera', accept.types.join(','), true);
    wrap.appendChild(cam[0]);
    wrap.appendChild(cam[1]);
  }
  var current = S.sign.attachments[f.id];
  if (current || valueOf(f)) {
    var p = document.createElement('p');
    p.className = 'hint';
    p.id = 'attachment-current';
    p.textContent = current && current.filename ? t('attachmentCurrent', { name: current.filename }) : t('attachmentDone');
    wrap.appendChild(p);
  }
}

function fileInput(id, labelKey, accept, capture) {
  var label = document.createElement('label');
  label.htmlFor = id;
  label.className = 'btn btn-secondary btn-block file-label';
  label.textContent = t(labelKey);
  var input = document.createElement('input');
  input.type = 'file';
  input.id = id;
  input.className = 'file-input-hidden';
  input.accept = accept;
  if (capture) input.setAttribute('capture', 'environment');
  input.setAttribute('aria-describedby', 'field-hint field-error');
  input.addEventListener('change', onAttachmentFile);
  return [label, input];
}

function onAttachmentFile(ev) {
  var f = editing;
  var input = ev.currentTarget;
  var file = input.files && input.files[0];
  if (!f || !file) return;
  var accept = acceptOf(f);
  var err = null;
  if (accept.types.indexOf(file.type) < 0) err = clientError('attachment_type');
  else if (file.size > maxBytesOf(f)) err = clientError('attachment_too_large');
  if (err) {
    input.value = '';
    renderError($('field-error'), err);
    return;
  }
  var form = new FormData();
  form.append('field_id', f.id);
  form.append('file', file, file.name);
  setText($('field-hint'), t('uploading'));
  apiUpload('/attachments', form)
    .then(function (r) {
      S.sign.values[f.id] = r.data.attachment_id;
      S.sign.attachments[f.id] = { filename: r.data.filename || file.name, size: r.data.size };
      saveDraft(withName(f.id, r.data.attachment_id));
      closeSheet();
      render();
    })
    .catch(function (e) {
      input.value = '';
      if (isLinkFailure(e)) {
        closeSheet();
        return failLink(e);
      }
      setText($('field-hint'), '');
      renderError($('field-error'), e);
    });
}

function withName(id, value) {
  var out = {};
  out[id] = value;
  return out;
}
