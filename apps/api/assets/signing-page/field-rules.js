/*
 * The field rules of libs/domain/src/document/field-types.ts (valueProblem) and field-values.ts
 * (trimming, required, groups), restated for the browser so the signer hears about a wrong value
 * when typing it, not at Sign. The server checks everything again; when the two disagree the
 * server's refusal is shown (sign.js). Problems are returned as i18n keys with parameters.
 */

/** Filled by the service at signing, never by the signer. */
export var AUTO_TYPES = ['signing_date', 'name', 'email', 'phone'];
/** Images: the signature pad and the seal upload. */
export var IMAGE_TYPES = ['signature', 'seal'];
export var MARK_TYPES = ['checkbox', 'radio'];

var DEFAULT_TEXT_LENGTH = 1000;
var MAX_INITIALS_LENGTH = 10;
var NUMBER = /^-?(\d{1,15})(?:\.(\d{1,6}))?$/;
var ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether the signer types or picks this field's value in the page. */
export function isEditable(f) {
  return !f.read_only && AUTO_TYPES.indexOf(f.type) < 0 && IMAGE_TYPES.indexOf(f.type) < 0;
}

export function isIsoDate(value) {
  var m = ISO_DATE.exec(value);
  if (!m) return false;
  var y = Number(m[1]);
  var mo = Number(m[2]);
  var d = Number(m[3]);
  var date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The value as the server records it: blanks around are dropped, an emptied field is no value. */
export function normalize(f, raw) {
  if (typeof raw !== 'string') return raw;
  var trimmed = f.multiline ? raw.replace(/^\s*\n|\s+$/g, '') : raw.trim();
  return trimmed === '' ? null : trimmed;
}

/** The compiled whole-value pattern, or null when this browser cannot compile it (the server decides). */
function compiled(source) {
  try {
    return new RegExp('^(?:' + source + ')$');
  } catch (e) {
    return null;
  }
}

/** Why `value` (normalized, not null) cannot fill `f`: [key, params], or null. */
export function valueProblem(f, value) {
  switch (f.type) {
    case 'initials':
      return value.length > MAX_INITIALS_LENGTH ? ['ruleMaxLength', { n: MAX_INITIALS_LENGTH }] : null;
    case 'text': {
      var max = f.max_length != null ? f.max_length : DEFAULT_TEXT_LENGTH;
      if (value.length > max) return ['ruleMaxLength', { n: max }];
      if (!f.multiline && /[\r\n]/.test(value)) return ['ruleSingleLine', {}];
      if (f.pattern) {
        var re = compiled(f.pattern);
        if (re && !re.test(value)) return f.pattern_message ? ['rulePatternMessage', { m: f.pattern_message }] : ['rulePattern', {}];
      }
      return null;
    }
    case 'number': {
      var m = NUMBER.exec(value);
      if (!m) return ['ruleNumber', {}];
      var decimals = f.decimals != null ? f.decimals : 0;
      if ((m[2] ? m[2].length : 0) > decimals) return decimals === 0 ? ['ruleWhole', {}] : ['ruleDecimals', { n: decimals }];
      var n = Number(value);
      if (f.min != null && n < f.min) return ['ruleMin', { n: f.min }];
      if (f.max != null && n > f.max) return ['ruleMax', { n: f.max }];
      return null;
    }
    case 'date':
      return isIsoDate(value) ? null : ['ruleDate', {}];
    case 'dropdown':
      return (f.options || []).indexOf(value) >= 0 ? null : ['ruleOption', {}];
    default:
      return null;
  }
}

/** Checkbox and radio groups of the signer's fields: name → fields. */
export function groupsOf(fields) {
  var groups = {};
  fields.forEach(function (f) {
    if (f.group == null || MARK_TYPES.indexOf(f.type) < 0) return;
    (groups[f.group] = groups[f.group] || []).push(f);
  });
  return groups;
}

/** The group's limits: [min, max] boxes checked. */
export function checkboxLimits(members) {
  var min = 0;
  var max = members.length;
  members.forEach(function (f) {
    if (f.min_checked != null) min = f.min_checked;
    if (f.max_checked != null) max = f.max_checked;
  });
  return [min, max];
}

/**
 * What still stops signing among the value fields, given `valueOf(field)` (the signer's value,
 * else the prefill): each as { field, key, params }, in the fields' order.
 */
export function missingValues(fields, valueOf) {
  var out = [];
  var groups = groupsOf(fields);
  fields.forEach(function (f) {
    if (!isEditable(f) || f.group != null) return;
    var v = valueOf(f);
    if (f.type === 'checkbox') {
      if (f.required && v !== true) out.push({ field: f, key: 'ruleRequiredCheck', params: {} });
    } else if (f.type !== 'radio' && f.required && (v == null || v === '')) {
      out.push({ field: f, key: 'ruleRequired', params: {} });
    }
  });
  Object.keys(groups).forEach(function (name) {
    var members = groups[name];
    var count = members.filter(function (f) { return valueOf(f) === true; }).length;
    if (members[0].type === 'radio') {
      if (count === 0 && members.some(function (f) { return f.required; })) out.push({ field: members[0], key: 'ruleRadio', params: {} });
      return;
    }
    var limits = checkboxLimits(members);
    var requiredUnchecked = members.filter(function (f) { return f.required && valueOf(f) !== true; });
    if (requiredUnchecked.length) out.push({ field: requiredUnchecked[0], key: 'ruleRequiredCheck', params: {} });
    else if (count < limits[0]) out.push({ field: members[0], key: 'ruleMinChecked', params: { n: limits[0] } });
  });
  return out;
}
