/*
 * Errors shown to the signer: one message from the page's catalogue, in the chosen language (the
 * server's code mapped; its English message never shown raw), and the request id for support.
 */
import { ApiFailure } from './api.js';
import { STRINGS, t } from './i18n.js';
import { show } from './state.js';

export function localizedError(err) {
  var m;
  // A rule checked in the page (field-checks.js) comes already worded.
  if (err.text) return err.text;
  switch (err.code) {
    case 'pin_incorrect':
      m = /(\d+)\s+attempt/.exec(err.message);
      return m ? t('err_pin_incorrect', { n: m[1] }) : t('err_pin_incorrect_plain');
    case 'pin_resend_cooldown':
      m = /(\d+)\s+second/.exec(err.message);
      return m ? t('err_pin_resend_cooldown', { s: m[1] }) : t('err_pin_resend_cooldown_plain');
    case 'missing_parameter':
    case 'invalid_parameter':
      if (err.param === 'signature') return t('err_missing_signature');
      if (err.param === 'seal_id' || err.param === 'seal_image') return t('err_missing_seal');
      if (err.param === 'reason') return t('err_missing_reason');
      if (err.param === 'pin') return t('err_pin_format');
      return t('err_generic');
    case 'signing_link_invalid':
    case 'signing_link_inactive':
      return t('err_link');
    case 'network':
      return t('err_network');
    default:
      if (STRINGS.ko['err_' + err.code]) return t('err_' + err.code);
      if (err.status === 429) return t('err_rate_limited');
      if (err.status === 503) return t('err_service_unavailable');
      return t('err_generic');
  }
}

export function renderError(el, err) {
  show(el, Boolean(err));
  while (el.firstChild) el.removeChild(el.firstChild);
  if (!err) return;
  var main = document.createElement('p');
  main.className = 'error-main';
  main.textContent = localizedError(err);
  el.appendChild(main);
  if (err instanceof ApiFailure && err.request_id) {
    var rid = document.createElement('p');
    rid.className = 'error-rid';
    rid.textContent = t('requestId', { id: err.request_id });
    el.appendChild(rid);
  }
}
