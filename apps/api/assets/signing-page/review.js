/*
 * Review before signing: every value the signer gives, in full (not the page's narrow boxes), each
 * with a button that opens its sheet; an empty required field is named, and one tap takes the
 * signer to it. The signature and the seal are listed too, their buttons going to their blocks.
 */
import { missingValues } from './field-checks.js';
import { displayOf, valueOf } from './fields.js';
import { t } from './i18n.js';
import { fieldTitle, openSheet, steps } from './sheet.js';
import { $, S, setText, show } from './state.js';

var builtKey = null;

/** What the review shows for `f`: its value in full, or '' when empty. */
function shownValue(f) {
  if (f.type === 'checkbox') return valueOf(f) === true ? t('reviewChecked') : '';
  if (f.type === 'radio') {
    var chosen = (S.view.fields || []).filter(function (m) { return m.type === 'radio' && m.group === f.group && valueOf(m) === true; })[0];
    return chosen ? chosen.option || fieldTitle(chosen) : '';
  }
  return displayOf(f);
}

/** One row per step, then the signature and the seal: [label, value, missing, action]. */
function rows(missingIds) {
  var out = steps().map(function (f) {
    var value = shownValue(f);
    return { label: fieldTitle(f), value: value, missing: Boolean(missingIds[f.id]), field: f, go: null };
  });
  var fields = S.view.fields || [];
  var sig = fields.filter(function (f) { return f.type === 'signature'; });
  if (sig.length) out.push({ label: t('type_signature'), value: S.sign.hasSignature ? t('fieldFilled') : '', missing: sig.some(function (f) { return f.required; }) && !S.sign.hasSignature, field: null, go: 'signature-block' });
  var seal = fields.filter(function (f) { return f.type === 'seal'; });
  if (seal.length) out.push({ label: t('type_seal'), value: S.sign.seal ? t('sealSource_' + (S.sign.sealSource ? S.sign.sealSource.source : 'uploaded')) : '', missing: seal.some(function (f) { return f.required; }) && !S.sign.seal, field: null, go: 'seal-block' });
  return out;
}

function goTo(id) {
  var block = $(id);
  block.scrollIntoView({ block: 'start' });
  var first = block.querySelector('button:not([hidden]):not(:disabled), input:not([hidden])');
  if (first) first.focus({ preventScroll: true });
}

export function renderReview() {
  var fields = S.view.fields || [];
  var missingIds = {};
  missingValues(fields, valueOf).forEach(function (m) {
    var f = m.field;
    if (f.type === 'radio') {
      fields.forEach(function (o) { if (o.type === 'radio' && o.group === f.group) missingIds[o.id] = true; });
    }
    missingIds[f.id] = true;
  });
  var list = rows(missingIds);
  show($('review'), list.length > 0);
  var names = list.filter(function (r) { return r.missing; }).map(function (r) { return r.label; });
  setText($('review-missing'), names.length ? t('reviewMissing', { names: names.join(t('listSep')) }) : '');
  show($('review-missing'), names.length > 0);
  var key = S.lang + '|' + JSON.stringify(list.map(function (r) { return [r.label, r.value, r.missing]; }));
  if (key === builtKey) return;
  builtKey = key;
  var ul = $('review-list');
  while (ul.firstChild) ul.removeChild(ul.firstChild);
  list.forEach(function (r, i) {
    var li = document.createElement('li');
    li.className = 'review-row' + (r.missing ? ' review-row-missing' : '');
    var label = document.createElement('span');
    label.className = 'review-label';
    label.id = 'review-label-' + i;
    label.textContent = r.label;
    var value = document.createElement('span');
    value.className = 'review-value';
    value.id = 'review-value-' + i;
    value.textContent = r.value || t(r.missing ? 'reviewRequired' : 'reviewEmpty');
    var btn = document.createElement('button');
    btn.type = 'button';
    btn.className = 'btn btn-secondary btn-small review-edit';
    btn.textContent = t(r.value ? 'reviewEdit' : 'reviewFill');
    btn.setAttribute('aria-describedby', label.id + ' ' + value.id);
    btn.addEventListener('click', function () {
      if (r.field) openSheet(r.field);
      else goTo(r.go);
    });
    li.appendChild(label);
    li.appendChild(value);
    li.appendChild(btn);
    ul.appendChild(li);
  });
}
