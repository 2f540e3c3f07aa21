/*
 * Step 1 for sms_pin participants: a PIN sent by SMS, its resend countdown and its check.
 */
import { api, clientError, failLink, isLinkFailure } from './api.js';
import { renderError } from './errors.js';
import { formatTime, t } from './i18n.js';
import { $, S, render, setText, show } from './state.js';

export function renderPin(mode) {
  var v = S.view;
  var st = S.pin;
  show($('pin-step'), mode === 'pin');
  if (mode !== 'pin') return;
  var phone = v.participant.phone_masked;
  setText($('pin-intro'), phone ? t('pinIntro', { phone: phone }) : t('pinIntroNoPhone'));
  var sendBtn = $('send-pin');
  var waitS = Math.ceil((st.resendAt - Date.now()) / 1000);
  var label;
  if (st.sending) label = t('sending');
  else if (waitS > 0) label = t('resendIn', { s: waitS });
  else label = st.sentTo || st.needNew ? t('resendPin') : t('sendPin');
  setText(sendBtn, label);
  // Locked links take no PIN until the sender reminds: say so rather than offer a button that fails.
  var linkLocked = Boolean(v.pin && v.pin.link_locked);
  sendBtn.disabled = linkLocked || st.sending || waitS > 0;
  if (linkLocked && !(st.error && st.error.code === 'signing_link_locked')) st.error = clientError('signing_link_locked');
  sendBtn.className = 'btn btn-block ' + (st.sentTo && !st.needNew ? 'btn-secondary' : 'btn-primary');
  var info = $('pin-info');
  show(info, Boolean(st.sentTo));
  if (st.sentTo) {
    setText(info, st.expiresAt ? t('pinSent', { phone: st.sentTo, time: formatTime(st.expiresAt) }) : t('pinSentNoTime', { phone: st.sentTo }));
  }
  show($('pin-form'), Boolean(st.sentTo) || st.info);
  var input = $('pin-input');
  setText($('verify-pin'), st.verifying ? t('verifying') : t('verify'));
  $('verify-pin').disabled = st.verifying || !/^\d{6}$/.test(input.value);
  input.setAttribute('aria-invalid', String(Boolean(st.error) && st.error.code === 'pin_incorrect'));
  renderError($('pin-error'), st.error);
}

var countdownTimer = null;

function tickCountdown() {
  if (countdownTimer) return;
  countdownTimer = window.setInterval(function () {
    if (Date.now() >= S.pin.resendAt) {
      window.clearInterval(countdownTimer);
      countdownTimer = null;
    }
    render();
  }, 1000);
}

export function sendPin() {
  var st = S.pin;
  if (st.sending) return;
  st.sending = true;
  st.error = null;
  render();
  api('POST', '/pin')
    .then(function (r) {
      st.sentTo = r.data.sent_to || S.view.participant.phone_masked || '';
      var expires = Date.parse(r.data.expires_at || '');
      st.expiresAt = isNaN(expires) ? null : expires + r.skew;
      var resend = Date.parse(r.data.resend_available_at || '');
      st.resendAt = isNaN(resend) ? 0 : resend + r.skew;
      st.needNew = false;
      $('pin-input').value = '';
      S.announce = 'pin-input';
      tickCountdown();
    })
    .catch(function (err) {
      if (isLinkFailure(err)) return failLink(err);
      st.error = err;
      if (err.code === 'signing_link_locked' && S.view.pin) S.view.pin.link_locked = true;
      if (err.code === 'pin_resend_cooldown') {
        // A PIN was sent moments ago (another tab, a reload): let the signer enter it.
        var m = /(\d+)\s+second/.exec(err.message);
        st.resendAt = Date.now() + (m ? Number(m[1]) : 60) * 1000;
        st.info = true;
        tickCountdown();
      }
    })
    .then(function () {
      st.sending = false;
      render();
    });
}

export function verifyPin(ev) {
  if (ev) ev.preventDefault();
  var st = S.pin;
  var pin = $('pin-input').value;
  if (st.verifying) return;
  if (!/^\d{6}$/.test(pin)) {
    st.error = clientError('pin_format');
    render();
    return;
  }
  st.verifying = true;
  st.error = null;
  render();
  api('POST', '/verify', { pin: pin })
    .then(function () {
      return api('GET', '').then(function (r) {
        S.view = r.data;
        S.announce = 'sign-heading';
      });
    })
    .catch(function (err) {
      if (isLinkFailure(err)) return failLink(err);
      st.error = err;
      if (err.code === 'signing_link_locked' && S.view.pin) S.view.pin.link_locked = true;
      if (err.code === 'pin_locked' || err.code === 'pin_expired' || err.code === 'pin_not_requested') {
        st.needNew = true;
        $('pin-input').value = '';
      } else {
        $('pin-input').select();
      }
    })
    .then(function () {
      st.verifying = false;
      render();
    });
}

export function onPinInput() {
  var input = $('pin-input');
  var digits = input.value.replace(/\D+/g, '').slice(0, 6);
  if (digits !== input.value) input.value = digits;
  $('verify-pin').disabled = S.pin.verifying || digits.length !== 6;
}
