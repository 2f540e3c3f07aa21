/*
 * The document card: title, sender, status, deadline, who the signer is and what they fill in.
 */
import { formatDate, t } from './i18n.js';
import { $, S, setText, show } from './state.js';

function effectiveStatus() {
  return S.result === 'declined' ? 'declined' : S.view.document.status;
}

export function renderSummary() {
  var v = S.view;
  var d = v.document;
  setText($('doc-title'), d.title || '');
  setText($('doc-sender'), d.author_name || '');
  show($('row-sender'), Boolean(d.author_name));
  var status = effectiveStatus();
  var badge = $('doc-status');
  setText(badge, t('status_' + status) !== 'status_' + status ? t('status_' + status) : status);
  badge.className = 'badge badge-' + status;
  var row = $('row-deadline');
  if (d.status === 'completed' && d.completed_at) {
    setText(row.querySelector('dt'), t('completedAt'));
    setText($('doc-deadline'), formatDate(d.completed_at));
    show(row, true);
  } else {
    setText(row.querySelector('dt'), t('deadline'));
    setText($('doc-deadline'), formatDate(d.expires_at));
    show(row, Boolean(d.expires_at));
  }
  var p = v.participant;
  // The name in a <bdi>: a bidi control in it (U+202E) must not reverse the role after it.
  var who = ' (' + t('role_' + p.role) + ')';
  if (p.signed_at) who += ' · ' + t('signedOn', { date: formatDate(p.signed_at) });
  var line = $('doc-participant');
  var name = line.querySelector('bdi') || document.createElement('bdi');
  setText(name, p.name);
  if (!name.parentNode) line.appendChild(name);
  if (!name.nextSibling) line.appendChild(document.createTextNode(''));
  setText(name.nextSibling, who);
  var fields = v.fields || [];
  show($('row-fields'), fields.length > 0 && p.role !== 'cc');
  if (fields.length) {
    var parts = [];
    var sig = fields.filter(function (f) { return f.type === 'signature'; }).length;
    var seal = fields.filter(function (f) { return f.type === 'seal'; }).length;
    if (sig) parts.push(t('fieldSignature', { n: sig }));
    if (seal) parts.push(t('fieldSeal', { n: seal }));
    var others = fields.filter(function (f) { return f.type !== 'signature' && f.type !== 'seal' && !f.read_only && ['name', 'email', 'phone', 'signing_date'].indexOf(f.type) < 0; }).length;
    if (others) parts.push(t('fieldValues', { n: others }));
    var pages = [];
    fields.forEach(function (f) {
      if (pages.indexOf(f.page) < 0) pages.push(f.page);
    });
    pages.sort(function (a, b) { return a - b; });
    setText($('doc-fields'), parts.join(t('listSep')) + ' · ' + t('fieldPages', { pages: pages.join(', ') }));
  }
}
