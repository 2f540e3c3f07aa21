/*
 * The document as page images (GET /v1/signing/<token>/pages/<n>.png), lazy-loaded as the signer
 * scrolls, zoomable, with the signer's own fields drawn on them at their coordinates (percent of
 * the displayed page). In the signing step each field is a button: tapping it takes the signer to
 * what fills it (the signature pad, the seal image); "Next field" walks the empty ones in order.
 * Android Chrome shows no PDF inline, so images, not an <iframe>, are how the contract is read.
 */
import { displayOf, isFilled, isImage, isStatic, onMarkChange, openEditor, valueOf } from './fields.js';
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

function imageUrl(n, width) {
  var v = S.view.document.pages_version;
  return '/v1/signing/' + encodeURIComponent(S.token) + '/pages/' + n + '.png?w=' + width + (v ? '&v=' + encodeURIComponent(v) : '');
}

function fieldLabel(f) {
  // A radio button is announced with its option: "임금 형태: 주급", not the group's label twice.
  var own = f.type === 'radio' && f.label && f.option ? f.label + ': ' + f.option : f.label || f.option;
  var name = own ? own + ' (' + t('type_' + f.type) + ')' : t('type_' + f.type);
  return t('fieldOn', { name: name, page: f.page });
}

function place(el, f) {
  // Position and size from the field's percentages (CSSOM, allowed under the style CSP).
  el.style.left = f.x + '%';
  el.style.top = f.y + '%';
  el.style.width = f.width + '%';
  el.style.height = f.height + '%';
}

/** The signer's own field: a native checkbox or radio, text the service fills, or a button. */
function ownField(f, i) {
  var el;
  if (f.type === 'checkbox' || f.type === 'radio') {
    el = document.createElement('input');
    el.type = f.type;
    if (f.type === 'radio') el.name = 'group-' + f.group;
    el.addEventListener('change', function (ev) { onMarkChange(f, ev.currentTarget); });
  } else if (isStatic(f)) {
    el = document.createElement('span');
    var sr = document.createElement('span');
    sr.className = 'sr-only';
    el.appendChild(sr);
  } else {
    el = document.createElement('button');
    el.type = 'button';
    el.addEventListener('click', function () { tapField(f); });
  }
  var value = document.createElement('span');
  value.className = 'field-value';
  value.setAttribute('aria-hidden', 'true');
  if (el.tagName !== 'INPUT') el.appendChild(value);
  el.className = 'field field-own field-' + f.type + (isStatic(f) ? ' field-static' : '');
  el.id = 'field-' + i;
  place(el, f);
  return el;
}

/** Another participant's field: where they sign, in their colour, not for this signer. */
function otherField(f) {
  var el = document.createElement('span');
  el.className = 'field field-other field-p' + (Math.max(f.participant_index, 0) % 6);
  var sr = document.createElement('span');
  sr.className = 'sr-only';
  sr.textContent = t('otherField', { n: f.participant_index + 1, name: t('type_' + f.type) });
  el.appendChild(sr);
  place(el, f);
  return el;
}

function buildPages() {
  var list = $('pages');
  while (list.firstChild) list.removeChild(list.firstChild);
  var count = S.view.document.page_count || 1;
  // The signed PDF's pages carry every value, signature and seal drawn in: overlays on them would
  // print each value twice, a little off. Only the pages still to be signed get overlays.
  var signedPdf = S.view.document.status === 'completed';
  var fields = signedPdf ? [] : fieldsInOrder();
  var others = signedPdf ? [] : S.view.other_fields || [];
  // A document of several files (parts): each part's title above its first page, so the signer
  // knows which of them they are reading (the pages run on across parts).
  var parts = S.view.document.parts || [];
  var partAt = {};
  if (parts.length > 1) {
    parts.forEach(function (p, k) {
      partAt[p.first_page] = t('partHeading', { n: k + 1, count: parts.length, title: p.title || S.view.document.title });
    });
  }
  var later = []; // [img, page] of pages 2…, given their URLs once page 1 is on screen
  for (var n = 1; n <= count; n++) {
    if (partAt[n]) {
      var head = document.createElement('li');
      head.className = 'part-head';
      var h = document.createElement('h3');
      h.textContent = partAt[n];
      head.appendChild(h);
      list.appendChild(head);
    }
    var li = document.createElement('li');
    li.className = 'page';
    var img = document.createElement('img');
    img.className = 'page-img';
    img.sizes = zoomed ? '200vw' : '(min-width: 960px) 560px, 92vw';
    img.loading = n === 1 ? 'eager' : 'lazy';
    if (n === 1) img.setAttribute('fetchpriority', 'high');
    img.decoding = 'async';
    if (n === 1) setSources(img, 1);
    else later.push([img, n]);
    img.alt = t('pageAlt', { n: n, count: count });
    img.addEventListener('load', onImageLoad);
    li.appendChild(img);
    others.forEach(function (f) {
      if (f.page === n) li.appendChild(otherField(f));
    });
    fields.forEach(function (f, i) {
      if (f.page === n) li.appendChild(ownField(f, i));
    });
    list.appendChild(li);
  }
  // Page 1 first: on a slow link the next pages (lazy, but within the browser's lazy-load distance
  // of the screen) would otherwise download beside page 1 and share the link with it.
  afterShown(list.querySelector('.page-img'), function () {
    later.forEach(function (p) { setSources(p[0], p[1]); });
  });
}

/**
 * Three widths: the browser picks by the screen's pixels and the zoom (sizes, set before, follows
 * the layout). Page 1's URLs, srcset and sizes are also in the HTML's Link preload
 * (signing-page.http.controller.ts), so page 1 is the preloaded response.
 */
function setSources(img, n) {
  img.src = imageUrl(n, 480);
  img.srcset = imageUrl(n, 480) + ' 480w, ' + imageUrl(n, 720) + ' 720w, ' + imageUrl(n, 960) + ' 960w';
}

/** `then` once `img` has loaded (or failed) and a frame has been drawn with it. */
function afterShown(img, then) {
  var done = false;
  function next() {
    if (done) return;
    done = true;
    window.requestAnimationFrame(function () { window.setTimeout(then, 0); });
  }
  if (!img || img.complete) return next();
  img.addEventListener('load', next);
  img.addEventListener('error', next);
}

/** An image field's picture (a data: URL, which the CSP's img-src allows), or none. */
function showImage(el, src) {
  var img = el.querySelector('.field-image');
  if (!src) {
    if (img) el.removeChild(img);
    return;
  }
  if (!img) {
    img = document.createElement('img');
    img.className = 'field-image';
    img.alt = '';
    el.appendChild(img);
  }
  if (img.getAttribute('src') !== src) img.src = src;
}

/** The real shape once known (the placeholder assumes A4), so overlays sit on the page. */
function onImageLoad(ev) {
  var img = ev.currentTarget;
  if (img.naturalWidth && img.naturalHeight) img.parentNode.style.aspectRatio = img.naturalWidth + ' / ' + img.naturalHeight;
}

/** A tap on one of the signer's fields: its editor, or the signature pad / seal input. */
export function tapField(f) {
  if (!$('sign-step') || $('sign-step').hidden) return;
  if (!isImage(f)) {
    openEditor(f, guideFrom);
    return;
  }
  var target = f.type === 'seal' ? $('seal-file') : S.sign.typed ? $('typed-name') : $('signature-canvas');
  var block = f.type === 'seal' ? $('seal-block') : $('signature-block');
  block.scrollIntoView({ block: 'center', behavior: 'smooth' });
  target.focus({ preventScroll: true });
  block.classList.add('flash');
  window.setTimeout(function () { block.classList.remove('flash'); }, 1200);
}

/** The guided flow: after a value is saved, the next empty field (after `f`) gets the focus. */
function guideFrom(f) {
  var fields = fieldsInOrder();
  var at = fields.indexOf(f);
  for (var k = 1; k <= fields.length; k++) {
    var i = (at + k) % fields.length;
    if (!isFilled(fields[i]) && !isStatic(fields[i])) return focusField(i);
  }
  var el = $('field-' + at);
  if (el) el.focus({ preventScroll: true });
}

function focusField(i) {
  var el = $('field-' + i);
  if (!el) return;
  el.scrollIntoView({ block: 'center', behavior: 'smooth' });
  el.focus({ preventScroll: true });
}

/** "Next field": the first empty field in reading order, shown on its page and focused. */
function nextField() {
  var fields = fieldsInOrder();
  for (var i = 0; i < fields.length; i++) {
    if (!isFilled(fields[i])) return focusField(i);
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
  var groupsCounted = {};
  fields.forEach(function (f, i) {
    var el = $('field-' + i);
    if (!el) return;
    var filled = isFilled(f);
    // A radio group is one answer, however many buttons it has.
    if (!filled && !(f.type === 'radio' && groupsCounted[f.group])) remaining++;
    if (f.type === 'radio') groupsCounted[f.group] = true;
    var invalid = S.sign.fieldError === f.id;
    el.classList.toggle('field-filled', filled && !isStatic(f) && !(f.type === 'checkbox' && valueOf(f) !== true));
    el.classList.toggle('field-invalid', invalid);
    var shown = displayOf(f);
    if (el.tagName === 'INPUT') {
      el.checked = valueOf(f) === true;
      el.disabled = !signing || Boolean(f.read_only);
      el.setAttribute('aria-label', fieldLabel(f) + (f.required ? ' · ' + t('hintRequired') : ''));
      if (invalid) el.setAttribute('aria-invalid', 'true');
      else el.removeAttribute('aria-invalid');
      return;
    }
    setText(el.querySelector('.field-value'), shown);
    // The signature and the seal show in their fields once made, as the signed PDF will have them.
    if (isImage(f)) showImage(el, f.type === 'seal' ? S.sign.seal : S.sign.preview);
    var state = isStatic(f) ? shown || t('autoAtSign') : filled ? t('fieldFilled') + (shown ? ': ' + shown : '') : t('fieldEmpty');
    if (el.tagName === 'BUTTON') {
      el.disabled = !signing;
      el.setAttribute('aria-label', fieldLabel(f) + ' · ' + state);
      if (invalid) el.setAttribute('aria-invalid', 'true');
      else el.removeAttribute('aria-invalid');
    } else {
      setText(el.querySelector('.sr-only'), fieldLabel(f) + ' · ' + state);
    }
  });
  show($('next-field'), signing && fields.some(function (f) { return !isStatic(f); }));
  setText($('next-field'), remaining ? t('nextField', { n: remaining }) : t('nextFieldDone'));
}
