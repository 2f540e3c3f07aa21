/*
 * Declining with a reason: available once the participant may act (PIN verified where required).
 */
import { api, clientError, failLink, isLinkFailure } from './api.js';
import { renderError } from './errors.js';
import { t } from './i18n.js';
import { redirectAfter } from './sign.js';
import { $, S, render, setText, show } from './state.js';

export function renderDecline(mode) {
  var st = S.decline;
  show($('decline-step'), mode === 'sign');
  if (mode !== 'sign') return;
  show($('decline-open'), !st.open);
  show($('decline-form'), st.open);
  var reason = $('decline-reason');
  $('decline-confirm').disabled = st.busy || !reason.value.trim();
  setText($('decline-confirm'), st.busy ? t('declining') : t('declineConfirm'));
  renderError($('decline-error'), st.error);
}

export function openDecline() {
  S.decline.open = true;
  S.decline.error = null;
  render();
  $('decline-reason').focus();
}

export function cancelDecline() {
  S.decline.open = false;
  S.decline.error = null;
  render();
  $('decline-open').focus();
}

export function confirmDecline(ev) {
  if (ev) ev.preventDefault();
  var st = S.decline;
  var reason = $('decline-reason').value.trim();
  if (st.busy) return;
  if (!reason) {
    st.error = clientError('missing_reason');
    render();
    return;
  }
  st.busy = true;
  st.error = null;
  render();
  api('POST', '/decline', { reason: reason })
    .then(function () {
      S.result = 'declined';
      S.announce = 'notice-title';
      redirectAfter('declined', S.view);
    })
    .catch(function (err) {
      if (isLinkFailure(err)) return failLink(err);
      st.error = err;
    })
    .then(function () {
      st.busy = false;
      render();
    });
}
