/*
 * The document as page images (GET /v1/signing/<token>/pages/<n>.png), lazy-loaded as the signer
 * scrolls, zoomable, with the signer's own fields drawn on them at their coordinates (percent of
 * the displayed page). In the signing step each field is a button: tapping it takes the signer to
 * what fills it (the signature pad, the seal image); "Next field" walks the empty ones in order.
 * Android Chrome shows no PDF inline, so images, not an <iframe>, are how the contract is read.
 */
import { t } from './i18n.js';
import { fileUrl, READ_HINT } from './states.js';
import { $, S, render, setText, show } from './state.js';

var built = null; // the pages_version + language the page list was built for
var zoomed = false;

/** Fields in reading order: page, then top to bottom, then left to right. */
export function fieldsInOrder() {
  return (S.view.fields || []).slice().sort(function (a, b) {
    return a.page - b.page || a.y - b.y || a.x - b.x;
  });
}

/** Whether the signer has filled a field (in this page, before signing). */
export function isFilled(f) {
  if (f.type === 'signature') return S.sign.hasSignature;
  if (f.type === 'seal') return Boolean(S.sign.seal);
  return false;
}

function imageUrl(n, width) {
  var v = S.view.document.pages_version;
  return '/v1/signing/' + encodeURIComponent(S.token) + '/pages/' + n + '.png?w=' + width + (v ? '&v=' + encodeURIComponent(v) : '');
}

function fieldLabel(f) {
  return t(f.type === 'seal' ? 'fieldSealOn' : 'fieldSignatureOn', { page: f.page });
}

function buildPages() {
  var list = $('pages');
  while (list.firstChild) list.removeChild(list.firstChild);
  var count = S.view.document.page_count || 1;
  var fields = fieldsInOrder();
  for (var n = 1; n <= count; n++) {
    var li = document.createElement('li');
    li.className = 'page';
    var img = document.createElement('img');
    img.className = 'page-img';
    // Two widths: the browser picks by the screen's pixels and the zoom (sizes follows the layout).
    img.src = imageUrl(n, 480);
    img.srcset = imageUrl(n, 480) + ' 480w, ' + imageUrl(n, 960) + ' 960w';
    img.sizes = zoomed ? '200vw' : '(min-width: 960px) 560px, 92vw';
    img.loading = n === 1 ? 'eager' : 'lazy';
    img.decoding = 'async';
    img.alt = t('pageAlt', { n: n, count: count });
    img.addEventListener('load', onImageLoad);
    li.appendChild(img);
    fields.forEach(function (f, i) {
      if (f.page !== n) return;
      var el = document.createElement('button');
      el.type = 'button';
      el.className = 'field field-own field-' + f.type;
      el.id = 'field-' + i;
      el.setAttribute('data-field', String(i));
      // Position and size from the field's percentages (CSSOM, allowed under the style CSP).
      el.style.left = f.x + '%';
      el.style.top = f.y + '%';
      el.style.width = f.width + '%';
      el.style.height = f.height + '%';
      el.addEventListener('click', function (ev) {
        fillField(fields[Number(ev.currentTarget.getAttribute('data-field'))]);
      });
      li.appendChild(el);
    });
    list.appendChild(li);
  }
}

/** The real shape once known (the placeholder assumes A4), so overlays sit on the page. */
function onImageLoad(ev) {
  var img = ev.currentTarget;
  if (img.naturalWidth && img.naturalHeight) img.parentNode.style.aspectRatio = img.naturalWidth + ' / ' + img.naturalHeight;
}

/** Takes the signer to what fills `f`: the signature pad, or the seal image input. */
export function fillField(f) {
  if (!$('sign-step') || $('sign-step').hidden) return;
  var target = f.type === 'seal' ? $('seal-file') : $('signature-canvas');
  var block = f.type === 'seal' ? $('seal-block') : $('signature-block');
  block.scrollIntoView({ block: 'center', behavior: 'smooth' });
  target.focus({ preventScroll: true });
  block.classList.add('flash');
  window.setTimeout(function () { block.classList.remove('flash'); }, 1200);
}

/** "Next field": the first empty field in reading order, shown on its page and focused. */
function nextField() {
  var fields = fieldsInOrder();
  for (var i = 0; i < fields.length; i++) {
    if (!isFilled(fields[i])) {
      var el = $('field-' + i);
      el.scrollIntoView({ block: 'center', behavior: 'smooth' });
      el.focus({ preventScroll: true });
      return;
    }
  }
  $('consent').focus();
}

function toggleZoom() {
  zoomed = !zoomed;
  built = null;
  render();
}

export function initPages() {
  $('next-field').addEventListener('click', nextField);
  $('zoom').addEventListener('click', toggleZoom);
}

export function renderPages(mode) {
  // After a decline the link is inactive, so the pages are gone too; the signed PDF waits for the PIN.
  var locked = mode === 'pin' && S.view.document.status === 'completed';
  show($('document'), mode !== 'declined' && !locked);
  if (mode === 'declined' || locked) return;
  setText($('read-hint'), t(READ_HINT[mode]));
  $('open-pdf').href = fileUrl() + (S.view.document.status === 'completed' ? '?v=final' : '');
  var list = $('pages');
  list.classList.toggle('zoomed', zoomed);
  $('zoom').setAttribute('aria-pressed', String(zoomed));
  setText($('zoom'), t(zoomed ? 'zoomOut' : 'zoomIn'));
  // A new version (completed: the signed PDF) or language rebuilds the list; otherwise it stays.
  var key = S.view.document.pages_version + '|' + S.lang + '|' + zoomed;
  if (built !== key) {
    built = key;
    buildPages();
  }
  var signing = mode === 'sign';
  var fields = fieldsInOrder();
  var remaining = 0;
  fields.forEach(function (f, i) {
    var el = $('field-' + i);
    if (!el) return;
    var filled = isFilled(f);
    if (!filled) remaining++;
    el.classList.toggle('field-filled', filled);
    el.disabled = !signing;
    el.setAttribute('aria-label', fieldLabel(f) + ' · ' + t(filled ? 'fieldFilled' : 'fieldEmpty'));
  });
  show($('next-field'), signing && fields.length > 0);
  setText($('next-field'), remaining ? t('nextField', { n: remaining }) : t('nextFieldDone'));
}
