/*
 * The signer's values checked as they are confirmed, by the domain's own field rules
 * (libs/domain/src/document/field-rules.ts, bundled in by esbuild: one source for the page and the
 * API), so a wrong value is heard about when typed, not at Sign. What is here is only the page's
 * side: which fields the signer fills, the browser's pattern engine, and the wording of each
 * problem from the page's catalogue by its reason (never the domain's English).
 */
import { AUTO_FIELD_TYPES, IMAGE_FIELD_TYPES, MARK_FIELD_TYPES, checkFieldValue, checkboxLimits, groupProblem, recordedText } from '@dojang/domain/field-rules';
import { t } from './i18n.js';

export { AUTO_FIELD_TYPES, IMAGE_FIELD_TYPES, checkboxLimits, recordedText };

/** Whether the signer types or picks this field's value in the page. */
export function isEditable(f) {
  return !f.read_only && AUTO_FIELD_TYPES.indexOf(f.type) < 0 && IMAGE_FIELD_TYPES.indexOf(f.type) < 0;
}

/**
 * A field's pattern for the browser's own RegExp engine. The API compiles patterns with V8's
 * linear-time engine (libs/application/src/linear-regexp.ts), which no browser offers; here the
 * pattern only ever runs on the signer's own input, in the signer's own tab, and the server judges
 * every value again at PUT …/draft and at Sign. A pattern this browser cannot compile refuses
 * nothing here: the server decides.
 */
function browserPattern(source) {
  try {
    return new RegExp('^(?:' + source + ')$');
  } catch (e) {
    return null;
  }
}

/** Why `value` (recorded form, not null) cannot fill `f`: the domain's problem ({ reason, … }), or null. */
export function checkValue(f, value) {
  return checkFieldValue(f, value, browserPattern);
}

/**
 * A rule's problem in the signer's language: the catalogue's `rule_<reason>`, with the problem's
 * numbers ({max}, {min}, {decimals}…). A pattern the sender explained is explained in their words.
 */
export function ruleText(problem) {
  if (problem.reason === 'pattern_mismatch' && problem.message) return problem.message;
  return t('rule_' + problem.reason, problem);
}

/** Checkbox and radio groups of the signer's fields: name → fields. */
export function groupsOf(fields) {
  var groups = {};
  fields.forEach(function (f) {
    if (f.group == null || MARK_FIELD_TYPES.indexOf(f.type) < 0) return;
    (groups[f.group] = groups[f.group] || []).push(f);
  });
  return groups;
}

/**
 * What still stops signing among the value fields, given `valueOf(field)` (the signer's value,
 * else the prefill): each as { field, problem }, in the fields' order, judged as the server judges
 * at Sign (a required value or box, then each group as a whole).
 */
export function missingValues(fields, valueOf) {
  var out = [];
  fields.forEach(function (f) {
    if (!isEditable(f)) return;
    var v = valueOf(f);
    if (f.type === 'checkbox') {
      if (f.required && v !== true) out.push({ field: f, problem: { reason: 'required_check' } });
    } else if (f.type !== 'radio' && f.required && (v == null || v === '')) {
      out.push({ field: f, problem: { reason: 'required' } });
    }
  });
  var groups = groupsOf(fields.filter(isEditable));
  Object.keys(groups).forEach(function (name) {
    var members = groups[name];
    var problem = groupProblem(members, function (f) { return valueOf(f) === true; });
    // A required box already named above says enough for its group.
    if (problem && !out.some(function (m) { return m.field.group === name; })) out.push({ field: members[0], problem: problem });
  });
  return out;
}
