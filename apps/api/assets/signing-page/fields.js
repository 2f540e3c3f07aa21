/*
 * The signer's fields: what each holds and shows. Editing happens in the bottom sheet (sheet.js);
 * values are checked there with the domain's own rules (field-checks.js), saved to the draft
 * (draft.js), and checked again by the server at Sign.
 */
import { printedDate } from './date-format.js';
import { AUTO_FIELD_TYPES, IMAGE_FIELD_TYPES, checkboxLimits, groupsOf, isEditable } from './field-checks.js';
import { t } from './i18n.js';
import { S } from './state.js';

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
export function todayIso() {
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

/** Dates as the PDF will print them: the field's locale, else the document's date_format. */
export function formatFieldDate(f, iso) {
  return printedDate(f, iso, S.view && S.view.document && S.view.document.date_format);
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
    return count >= checkboxLimits(group).min && (!f.required || valueOf(f) === true);
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

/** Fields the service fills or the sender fixed: shown on the page, not editable. */
export function isStatic(f) {
  return f.read_only || AUTO_FIELD_TYPES.indexOf(f.type) >= 0;
}

export function isImage(f) {
  return IMAGE_FIELD_TYPES.indexOf(f.type) >= 0;
}
