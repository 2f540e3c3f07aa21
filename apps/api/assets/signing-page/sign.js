/*
 * Step 2: the participant's fields, consent, and the Sign (or Approve) action.
 */
import { api, failLink, isLinkFailure } from './api.js';
import { renderError } from './errors.js';
import { missingValues } from './field-checks.js';
import { signValues, valueOf } from './fields.js';
import { t } from './i18n.js';
import { renderReview } from './review.js';
import { renderSeal, sealBody, sealFields } from './seal.js';
import { ensurePad, signatureDataUrl } from './signature.js';
import { $, S, render, setText, show } from './state.js';

export function signatureFields() {
  return (S.view.fields || []).filter(function (f) { return f.type === 'signature'; });
}

/** What still stops the Sign button, as hint keys. */
export function missingForSign() {
  var missing = [];
  var sig = signatureFields();
  var seal = sealFields();
  var needsSig = sig.some(function (f) { return f.required; });
  var needsSeal = seal.some(function (f) { return f.required; });
  if (needsSig && !S.sign.hasSignature) missing.push('needSignature');
  if (needsSeal && !S.sign.seal) missing.push('needSeal');
  if (missingValues(S.view.fields || [], valueOf).length) missing.push('needFields');
  if (!$('consent').checked) missing.push('needConsent');
  return missing;
}

export function renderSign(mode) {
  show($('sign-step'), mode === 'sign');
  if (mode !== 'sign') return;
  var reviewer = S.view.participant.role === 'reviewer';
  setText($('sign-heading'), t(reviewer ? 'reviewHeading' : 'signHeading'));
  var hasSig = signatureFields().length > 0;
  show($('signature-block'), hasSig);
  if (hasSig) ensurePad();
  show($('signature-placeholder'), !S.sign.hasSignature);
  show($('sig-draw'), !S.sign.typed);
  show($('sig-type'), S.sign.typed);
  $('sig-mode-draw').setAttribute('aria-pressed', String(!S.sign.typed));
  $('sig-mode-type').setAttribute('aria-pressed', String(S.sign.typed));
  renderSeal();
  renderReview();
  var missing = missingForSign();
  var btn = $('sign-btn');
  btn.disabled = S.sign.busy || missing.length > 0;
  setText(btn, S.sign.busy ? t('signing') : t(reviewer ? 'approve' : 'sign'));
  setText($('sign-requirements'), missing.map(function (k) { return t(k); }).join(' '));
  renderError($('sign-error'), S.sign.error);
}

/**
 * Embedded signing: after signing or declining, the sender's page (the participant's https
 * redirect_url) gets the signer back with the outcome in the query string. Never the token: the
 * target is another site (and the page sends no Referer).
 */
export function redirectAfter(outcome, view) {
  var target = view && view.participant && view.participant.redirect_url;
  if (!target) return;
  var url;
  try {
    url = new URL(target);
  } catch (e) {
    return;
  }
  if (url.protocol !== 'https:') return;
  url.searchParams.set('dojang_event', outcome);
  url.searchParams.set('document_id', view.document.id);
  url.searchParams.set('participant_id', view.participant.id);
  window.location.assign(url.toString());
}
export function sign() {
  var st = S.sign;
  if (st.busy || missingForSign().length) return;
  var body = { consent: $('consent').checked === true };
  if (signatureFields().length) {
    var png = signatureDataUrl();
    if (png) body.signature = png;
  }
  Object.assign(body, sealBody());
  var values = signValues();
  if (Object.keys(values).length) body.values = values;
  st.busy = true;
  st.error = null;
  render();
  var before = S.view;
  api('POST', '/sign', body)
    .then(function (r) {
      S.view = r.data;
      S.result = 'signed';
      S.announce = 'notice-title';
      redirectAfter('signed', before);
    })
    .catch(function (err) {
      if (isLinkFailure(err)) return failLink(err);
      st.error = err;
      // The server refused a value (`values.<field id>`): that field is marked on the page.
      var m = /^values\.(.+)$/.exec(err.param || '');
      st.fieldError = m ? m[1] : null;
      // The PIN may have been used or reset elsewhere: refresh what the server thinks.
      if (err.code === 'pin_verification_required' || err.code === 'not_your_turn' || err.code === 'participant_already_signed') {
        return api('GET', '').then(function (r) { S.view = r.data; }, function () { /* keep the error shown */ });
      }
    })
    .then(function () {
      st.busy = false;
      render();
    });
}
