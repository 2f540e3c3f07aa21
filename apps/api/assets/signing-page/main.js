/*
 * Dojang signing page: the entry module. Plain browser JavaScript modules, bundled into one script
 * by esbuild when the server starts (signing-page.bundler.ts) with the domain's field rules, no
 * external resources; one module per concern (state, i18n, api, errors, states, summary, pages,
 * sheet, draft, review, seal, reading, pin, signature, sign, decline, field-checks).
 *
 * It talks to the JSON API under /v1/signing/<token> (the token is the last segment of
 * /sign/<token>). Rules kept throughout, because the page runs under a strict CSP and shows
 * server data: no inline script or style, no HTML built from strings — every text goes in with textContent.
 */
import { api, failLink, isLinkFailure } from './api.js';
import { renderBrand } from './brand.js';
import { tokenFromPath } from './early-session.js';
import { renderDecline, openDecline, cancelDecline, confirmDecline } from './decline.js';
import { initPages, renderPages } from './pages.js';
import { applyStaticStrings, initialLang, setLang, t } from './i18n.js';
import { onPinInput, renderPin, sendPin, verifyPin } from './pin.js';
import { renderSign, sign } from './sign.js';
import { applyDraft, renderDraftStatus } from './draft.js';
import { initReading, renderReading } from './reading.js';
import { initSeal } from './seal.js';
import { initSheet } from './sheet.js';
import { clearSignature, initTypedSignature } from './signature.js';
import { $, S, firstViewShown, render, setRenderer, show } from './state.js';
import { pageMode, renderFatal, renderNotice } from './states.js';
import { renderSummary } from './summary.js';

function load() {
  S.fatal = null;
  show($('loading'), true);
  show($('fatal'), false);
  return api('GET', '')
    .then(function (r) {
      S.view = r.data;
      applyDraft();
      render();
    })
    .catch(function (err) {
      if (isLinkFailure(err)) return failLink(err);
      S.fatal = { kind: 'load', error: err };
      render();
    });
}

function renderPage() {
  show($('loading'), !S.view && !S.fatal);
  renderFatal();
  show($('content'), Boolean(S.view) && !S.fatal);
  if (S.view && !S.fatal) {
    renderBrand();
    renderSummary();
    var mode = pageMode();
    renderNotice(mode);
    renderPages(mode);
    renderReading(mode);
    renderDraftStatus(mode);
    renderPin(mode);
    renderSign(mode);
    renderDecline(mode);
  }
  // No page image to wait for (a dead link, a declined document…): the first view is this one (state.js).
  if (S.fatal || (S.view && !document.querySelector('#pages .page-img'))) firstViewShown();
  // First strong isolate … pop directional isolate: the title's own bidi controls end with it.
  document.title = S.view && !S.fatal ? t('pageTitle', { title: '\u2068' + S.view.document.title + '\u2069' }) : t('pageTitleBare');
  if (S.announce) {
    var target = $(S.announce);
    S.announce = null;
    if (target && !target.hidden && target.offsetParent !== null) {
      target.focus({ preventScroll: false });
    }
  }
}

/** "Check again" while waiting for earlier signers, or for the others after signing. */
function checkAgain() {
  var btn = $('check-again');
  btn.disabled = true;
  api('GET', '')
    .then(function (r) { S.view = r.data; }, function (err) {
      if (isLinkFailure(err)) failLink(err);
    })
    .then(function () {
      btn.disabled = false;
      render();
    });
}

function start() {
  setRenderer(renderPage);
  initPages();
  initSheet();
  initSeal();
  initReading();
  initTypedSignature();
  S.lang = initialLang();
  applyStaticStrings();

  var buttons = document.querySelectorAll('.lang-btn');
  for (var i = 0; i < buttons.length; i++) {
    buttons[i].addEventListener('click', function (ev) {
      setLang(/** @type {HTMLElement} */ (ev.currentTarget).getAttribute('data-lang'));
    });
  }
  $('fatal-retry').addEventListener('click', load);
  $('check-again').addEventListener('click', checkAgain);
  $('send-pin').addEventListener('click', sendPin);
  $('pin-form').addEventListener('submit', verifyPin);
  $('pin-input').addEventListener('input', onPinInput);
  $('clear-signature').addEventListener('click', clearSignature);
  $('consent').addEventListener('change', function () {
    S.sign.error = null;
    render();
  });
  $('sign-btn').addEventListener('click', sign);
  $('decline-open').addEventListener('click', openDecline);
  $('decline-cancel').addEventListener('click', cancelDecline);
  $('decline-form').addEventListener('submit', confirmDecline);
  $('decline-reason').addEventListener('input', function () {
    $('decline-confirm').disabled = S.decline.busy || !$('decline-reason').value.trim();
  });

  S.token = tokenFromPath(location.pathname);
  if (!S.token) {
    S.fatal = { kind: 'invalid', error: null };
    render();
    return;
  }
  load();
}

// A module runs after the document is parsed.
start();
