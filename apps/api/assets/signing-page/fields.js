/*
 * The signer's value fields: what each holds, and the editor a tap on a field opens (a modal
 * <dialog> with the field's native input: text or textarea, a numeric keyboard, the date picker,
 * a select, a file input offering the camera). Checkboxes and radio buttons are native inputs on
 * the page itself (pages.js), so a tap fills them. Values are checked here with the server's rules
 * (field-rules.js) and again by the server at Sign.
 */
import { apiUpload, clientError, isLinkFailure, failLink } from './api.js';
import { renderError } from './errors.js';
import { AUTO_TYPES, IMAGE_TYPES, checkboxLimits, groupsOf, isEditable, normalize, valueProblem } from './field-rules.js';
import { t } from './i18n.js';
import { $, S, render, setText, show } from './state.js';

/** MIME types of the attachment `accept` names. */
var ACCEPT_TYPES = { pdf: 'application/pdf', jpeg: 'image/jpeg', png: 'image/png' };
var DEFAULT_ATTACHMENT_BYTES = 10 * 1024 * 1024;

var editing = null; // the field the dialog edits
var onDone = null; // called with the field after a value is saved (the guided flow)

/** The signer's value for `f` in this page, else the sender's prefill, else null. */
export function valueOf(f) {
  if (Object.prototype.hasOwnProperty.call(S.sign.values, f.id)) return S.sign.values[f.id];
  return f.value != null ? f.value : null;
}

/** What a field shows on the page: its value as text, or '' when empty. */
export function displayOf(f) {
  var p = S.view.participant;
  switch (f.type) {
    case 'name':
      return p.name;
    case 'phone':
      return p.phone_masked || t('autoAtSign');
    case 'email':
      return p.email_masked || t('autoAtSign');
    case 'signing_date':
      return formatFieldDate(f, todayIso());
    default:
      break;
  }
  var v = valueOf(f);
  if (v == null || typeof v === 'boolean') return '';
  if (f.type === 'date') return formatFieldDate(f, v);
  if (f.type === 'attachment') return (S.sign.attachments[f.id] && S.sign.attachments[f.id].filename) || t('attachmentDone');
  return String(v);
}

/**
 * Today where the organization is: the server dates signing_date fields in its zone, so a signer
 * elsewhere (in Seoul for a New York sender, late in the evening there) sees the date the PDF gets.
 */
function todayIso() {
  var d = new Date();
  var pad = function (n) { return (n < 10 ? '0' : '') + n; };
  var zone = S.view && S.view.sender && S.view.sender.time_zone;
  if (zone) {
    try {
      var parts = {};
      new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(d).forEach(function (x) {
        parts[x.type] = Number(x.value);
      });
      return parts.year + '-' + pad(parts.month) + '-' + pad(parts.day);
    } catch (e) {
      /* an unknown zone: the device's day below */
    }
  }
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate());
}

/** Dates as the PDF will print them: ko 2027년 1월 2일, en 2027-01-02 (the field's locale). */
function formatFieldDate(f, iso) {
  var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m || (f.locale || 'ko') === 'en') return iso;
  return Number(m[1]) + '년 ' + Number(m[2]) + '월 ' + Number(m[3]) + '일';
}

/** Whether the signer has answered `f` (a field that needs nothing counts as answered). */
export function isFilled(f) {
  // Reopened after signing: the signature and seal are the server's now, not this page's.
  if (isImage(f) && S.view.participant.status === 'signed') return true;
  if (f.type === 'signature') return S.sign.hasSignature;
  if (f.type === 'seal') return Boolean(S.sign.seal);
  if (!isEditable(f)) return true;
  if (f.type === 'radio') {
    var members = groupsOf(S.view.fields || [])[f.group] || [f];
    return members.some(function (m) { return valueOf(m) === true; });
  }
  if (f.type === 'checkbox') {
    if (f.group == null) return !f.required || valueOf(f) === true;
    var group = groupsOf(S.view.fields || [])[f.group];
    var count = group.filter(function (m) { return valueOf(m) === true; }).length;
    return count >= checkboxLimits(group)[0] && (!f.required || valueOf(f) === true);
  }
  var v = valueOf(f);
  return v != null && v !== '';
}

/** The `values` of POST /sign: every value field the signer (or the sender's prefill) filled. */
export function signValues() {
  var out = {};
  (S.view.fields || []).forEach(function (f) {
    if (!isEditable(f)) return;
    var v = valueOf(f);
    if (v == null || v === '') return;
    out[f.id] = v;
  });
  return out;
}

/** A tap on a checkbox or radio button on the page: the native input changed. */
export function onMarkChange(f, input) {
  S.sign.error = null;
  S.sign.fieldError = null;
  if (f.type === 'radio') {
    // One choice per group: the native group unchecks the others; the state follows.
    (groupsOf(S.view.fields || [])[f.group] || [f]).forEach(function (m) { S.sign.values[m.id] = m === f; });
  } else {
    if (input.checked && f.group != null) {
      var members = groupsOf(S.view.fields || [])[f.group];
      var max = checkboxLimits(members)[1];
      var count = members.filter(function (m) { return m !== f && valueOf(m) === true; }).length + 1;
      if (count > max) {
        input.checked = false;
        announce(t('ruleMaxChecked', { n: max }));
        return;
      }
    }
    S.sign.values[f.id] = input.checked;
  }
  announce('');
  render();
}

function announce(text) {
  setText($('field-status'), text);
  show($('field-status'), Boolean(text));
}

export function initFields() {
  $('field-form').addEventListener('submit', saveField);
  $('field-cancel').addEventListener('click', closeEditor);
  $('field-dialog').addEventListener('close', function () { editing = null; });
}

function fieldTitle(f) {
  return f.label || t('type_' + f.type);
}

/** Opens the editor for `f`; `done(f)` runs after its value is saved. */
export function openEditor(f, done) {
  editing = f;
  onDone = done || null;
  S.sign.fieldError = null;
  setText($('field-dialog-title'), fieldTitle(f));
  var wrap = $('field-input-wrap');
  while (wrap.firstChild) wrap.removeChild(wrap.firstChild);
  var hint = '';
  if (f.type === 'attachment') {
    buildAttachment(wrap, f);
    hint = t('attachmentHint', { types: acceptOf(f).names.join(', '), mb: Math.max(1, Math.round(maxBytesOf(f) / 1048576)) });
  } else {
    var input = buildInput(f);
    var label = document.createElement('label');
    label.htmlFor = input.id;
    label.textContent = t('fieldValueLabel', { name: fieldTitle(f), page: f.page });
    wrap.appendChild(label);
    wrap.appendChild(input);
    hint = inputHint(f);
  }
  setText($('field-hint'), hint);
  show($('field-hint'), Boolean(hint));
  renderError($('field-error'), null);
  show($('field-save'), f.type !== 'attachment');
  $('field-dialog').showModal();
  var first = wrap.querySelector('input, select, textarea');
  if (first) first.focus();
}

function closeEditor() {
  $('field-dialog').close();
}

function buildInput(f) {
  var v = valueOf(f);
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
  }
  if (f.type === 'text') input.maxLength = f.max_length != null ? f.max_length : 1000;
  if (f.type === 'initials') input.maxLength = 10;
  if (f.type === 'number') {
    if (f.min != null) input.setAttribute('aria-valuemin', String(f.min));
  }
  input.id = 'field-input';
  input.name = 'value';
  input.className = 'field-input';
  input.required = Boolean(f.required);
  input.setAttribute('aria-describedby', 'field-hint field-error');
  input.value = v == null ? '' : String(v);
  return input;
}

function inputHint(f) {
  var parts = [];
  if (f.required) parts.push(t('hintRequired'));
  if (f.type === 'text' && f.pattern_message) parts.push(f.pattern_message);
  if (f.type === 'text' && f.max_length != null) parts.push(t('hintMaxLength', { n: f.max_length }));
  if (f.type === 'number') {
    if (f.min != null && f.max != null) parts.push(t('hintRange', { min: f.min, max: f.max }));
    else if (f.min != null) parts.push(t('ruleMin', { n: f.min }));
    else if (f.max != null) parts.push(t('ruleMax', { n: f.max }));
  }
  return parts.join(' · ');
}

function saveField(ev) {
  ev.preventDefault();
  var f = editing;
  if (!f || f.type === 'attachment') return;
  var input = $('field-input');
  var value = normalize(f, input.value);
  var problem = value == null ? (f.required ? ['ruleRequired', {}] : null) : valueProblem(f, value);
  if (problem) {
    input.setAttribute('aria-invalid', 'true');
    renderError($('field-error'), { code: 'field_rule', status: -1, message: '', text: t(problem[0], problem[1]) });
    input.focus();
    return;
  }
  S.sign.values[f.id] = value;
  finish(f);
}

function finish(f) {
  S.sign.error = null;
  if (S.sign.fieldError === f.id) S.sign.fieldError = null;
  closeEditor();
  render();
  if (onDone) onDone(f);
}

// Attachments: POST /v1/signing/<token>/attachments (multipart: file, field_id) → attachment_id,
// which is the field's value at Sign.

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
  if (current) {
    var p = document.createElement('p');
    p.className = 'hint';
    p.textContent = t('attachmentCurrent', { name: current.filename });
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
      finish(f);
    })
    .catch(function (e) {
      input.value = '';
      if (isLinkFailure(e)) {
        closeEditor();
        return failLink(e);
      }
      setText($('field-hint'), '');
      renderError($('field-error'), e);
    });
}

/** Fields the service fills or the sender fixed: shown on the page, not editable. */
export function isStatic(f) {
  return f.read_only || AUTO_TYPES.indexOf(f.type) >= 0;
}

export function isImage(f) {
  return IMAGE_TYPES.indexOf(f.type) >= 0;
}
