/*
 * The document as page images (GET /v1/signing/<token>/pages/<n>.png), lazy-loaded as the signer
 * scrolls, zoomable, with the signer's own fields drawn on them at their coordinates (percent of
 * the displayed page). The signer's fields are marks on the images: a tap on one opens its bottom
 * sheet (sheet.js) or takes the signer to the signature pad or the seal; "다음 입력 칸" opens the
 * sheet on the first empty one. The marks are not the controls themselves (a box a few pixels
 * tall on a phone is no target for a finger; the sheet, the review list and "다음 입력 칸" are the
 * controls, 44 px and up), so they are hidden from assistive technology and the tab order.
 * Android Chrome shows no PDF inline, so images, not an <iframe>, are how the contract is read;
 * they zoom with a pinch or a double tap inside their frame, the page itself keeping its scale.
 */
import { displayOf, isFilled, isImage, isStatic, valueOf } from './fields.js';
import { t } from './i18n.js';
import { fieldsInOrder, openFirstEmpty, openSheet, steps } from './sheet.js';
import { fileUrl, READ_HINT } from './states.js';
import { $, S, firstViewShown, setText, show } from './state.js';
import { loadPadLibrary } from './signature.js';

var built = null; // the pages_version + language the page list was built for
var zoom = 1; // the images' width as a multiple of the frame's (1 to MAX_ZOOM)
var MAX_ZOOM = 3;


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

/**
 * The signer's own field: a mark on the page, showing its value, that a tap opens. Not focusable
 * and hidden from screen readers: the sheet and the review list are the accessible controls.
 */
function ownField(f, i) {
  var el = document.createElement('div');
  el.setAttribute('aria-hidden', 'true');
  el.setAttribute('data-field-id', f.id);
  if (!isStatic(f)) el.addEventListener('click', function () { tapField(f); });
  var value = document.createElement('span');
  value.className = 'field-value';
  el.appendChild(value);
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
    img.sizes = zoom > 1 ? Math.round(zoom * 100) + 'vw' : '(min-width: 960px) 560px, 92vw';
    img.loading = n === 1 ? 'eager' : 'lazy';
    if (n === 1) img.setAttribute('fetchpriority', 'high');
    // Element Timing: when page 1 was painted, readable by a PerformanceObserver (the first-open
    // benchmark, bench/signing-page-lighthouse.ts); set before its sources, as the API requires.
    if (n === 1) img.setAttribute('elementtiming', 'page-1');
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
  // The web font and signature_pad are no part of the first view either: fetched once page 1 is
  // painted, long before anyone draws.
  afterPainted(list.querySelector('.page-img'), function () {
    firstViewShown();
    loadPadLibrary().catch(function () { /* a pad that shows asks again (signature.js) */ });
  });
}

/**
 * `then` once page 1 has been painted: by Element Timing where the browser has it (Chromium), whose
 * entry comes once the frame with the image was presented, so what starts then does not share the
 * link with page 1 even when frames come late (a busy phone); elsewhere once it has loaded and a
 * frame was drawn. An image that failed gets `then` at once; one loaded but never painted (out of
 * view, hidden) 3 s after it loaded.
 */
function afterPainted(img, then) {
  var done = false;
  function once() {
    if (done) return;
    done = true;
    then();
  }
  var types = window.PerformanceObserver && window.PerformanceObserver.supportedEntryTypes;
  if (!img || !types || types.indexOf('element') < 0) return afterShown(img, once);
  var observer = new window.PerformanceObserver(function (list) {
    var painted = list.getEntries().some(function (e) { return /** @type {any} */ (e).identifier === 'page-1'; });
    if (!painted) return;
    observer.disconnect();
    once();
  });
  observer.observe({ type: 'element', buffered: true });
  // An image that failed (a link that needs its PIN first…) is never painted: nothing to wait for.
  img.addEventListener('error', once);
  afterShown(img, function () {
    window.setTimeout(function () {
      observer.disconnect();
      once();
    }, 3000);
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

/** A tap on one of the signer's fields: its sheet, or the signature pad / the seal. */
export function tapField(f) {
  if (!$('sign-step') || $('sign-step').hidden) return;
  if (!isImage(f)) return openSheet(f);
  goToImageBlock(f.type);
}

function goToImageBlock(type) {
  var block = type === 'seal' ? $('seal-block') : $('signature-block');
  var target = type === 'seal' ? block.querySelector('.seal-modes button[aria-pressed="true"]:not([hidden])') || $('seal-file') : S.sign.typed ? $('typed-name') : $('signature-canvas');
  block.scrollIntoView({ block: 'start' });
  if (target) target.focus({ preventScroll: true });
  block.classList.add('flash');
  window.setTimeout(function () { block.classList.remove('flash'); }, 1200);
}

/**
 * "다음 입력 칸": the sheet on the first empty value field (the sheets walk them all), then the
 * signature, then the seal, then the review and consent.
 */
function nextField() {
  if (steps().some(function (f) { return !isFilled(f); })) return openFirstEmpty();
  var fields = fieldsInOrder();
  var images = ['signature', 'seal'];
  for (var k = 0; k < images.length; k++) {
    var empty = fields.some(function (f) { return f.type === images[k] && !isFilled(f); });
    if (empty) return goToImageBlock(images[k]);
  }
  $('review-heading').scrollIntoView({ block: 'start' });
  $('consent').focus({ preventScroll: true });
}

/** Sets the images' zoom (1 = the frame's width), keeping the point under `cx, cy` in place. */
function setZoom(next, cx, cy) {
  var scroller = /** @type {HTMLElement} */ (document.querySelector('.pages-scroll'));
  var list = $('pages');
  next = Math.max(1, Math.min(MAX_ZOOM, next));
  if (Math.abs(next - zoom) < 0.01) return;
  var box = scroller.getBoundingClientRect();
  var px = cx === undefined ? box.width / 2 : cx - box.left;
  var py = cy === undefined ? 0 : cy - box.top;
  var ratio = next / zoom;
  var left = (scroller.scrollLeft + px) * ratio - px;
  var top = list.getBoundingClientRect().top;
  var offsetY = (py - (top - box.top)) * (ratio - 1);
  zoom = next;
  list.style.width = zoom > 1 ? zoom * 100 + '%' : '';
  list.classList.toggle('zoomed', zoom > 1);
  scroller.scrollLeft = left;
  if (offsetY) window.scrollBy(0, offsetY);
  $('zoom').setAttribute('aria-pressed', String(zoom > 1));
  setText($('zoom'), t(zoom > 1 ? 'zoomOut' : 'zoomIn'));
  var imgs = list.querySelectorAll('.page-img');
  for (var i = 0; i < imgs.length; i++) imgs[i].sizes = zoom > 1 ? Math.round(zoom * 100) + 'vw' : '(min-width: 960px) 560px, 92vw';
}

function toggleZoom() {
  setZoom(zoom > 1 ? 1 : 2);
}

/**
 * Pinch (two pointers) and double tap on the images zoom them inside their frame. The frame's
 * touch-action leaves one-finger panning to the browser and keeps the browser's own pinch (which
 * would scale the whole page) off it.
 */
function initGestures() {
  var scroller = /** @type {HTMLElement} */ (document.querySelector('.pages-scroll'));
  var pointers = {};
  var pinch = null;
  var lastTap = 0;
  var lastX = 0;
  var lastY = 0;
  var multi = false; // the gesture had two fingers: no tap ends it
  var lastPointer = ''; // a touch double tap also fires dblclick: handled once, here
  function distance() {
    var ids = Object.keys(pointers);
    var a = pointers[ids[0]];
    var b = pointers[ids[1]];
    return { d: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }
  scroller.addEventListener('pointerdown', function (ev) {
    if (!Object.keys(pointers).length) multi = false;
    lastPointer = ev.pointerType;
    pointers[ev.pointerId] = { x: ev.clientX, y: ev.clientY, x0: ev.clientX, y0: ev.clientY, t0: ev.timeStamp };
    if (Object.keys(pointers).length === 2) {
      multi = true;
      pinch = { d: distance().d, zoom: zoom };
    }
  });
  scroller.addEventListener('pointermove', function (ev) {
    var p = pointers[ev.pointerId];
    if (!p) return;
    p.x = ev.clientX;
    p.y = ev.clientY;
    if (pinch && Object.keys(pointers).length === 2) {
      var m = distance();
      if (pinch.d > 0) setZoom(pinch.zoom * (m.d / pinch.d), m.x, m.y);
    }
  });
  function up(ev) {
    var p = pointers[ev.pointerId];
    delete pointers[ev.pointerId];
    if (Object.keys(pointers).length < 2) pinch = null;
    return p;
  }
  scroller.addEventListener('pointerup', function (ev) {
    var p = up(ev);
    if (ev.pointerType !== 'touch' || !p || multi) return;
    // A tap: one finger, short, still. Two within 300 ms zoom in (or back out).
    if (ev.timeStamp - p.t0 > 300 || Math.hypot(ev.clientX - p.x0, ev.clientY - p.y0) > 10) return;
    // A tap on one of the signer's marks opens its sheet: never half of a double tap.
    var target = /** @type {Element} */ (ev.target);
    if (target && target.closest && target.closest('.field-own')) {
      lastTap = 0;
      return;
    }
    // The second tap near the first, within 300 ms.
    if (ev.timeStamp - lastTap < 300 && Math.hypot(ev.clientX - lastX, ev.clientY - lastY) < 30) {
      lastTap = 0;
      setZoom(zoom > 1 ? 1 : 2, ev.clientX, ev.clientY);
    } else {
      lastTap = ev.timeStamp;
      lastX = ev.clientX;
      lastY = ev.clientY;
    }
  });
  scroller.addEventListener('pointercancel', up);
  // A mouse or trackpad double click zooms too.
  scroller.addEventListener('dblclick', function (ev) {
    if (lastPointer === 'touch') return;
    setZoom(zoom > 1 ? 1 : 2, ev.clientX, ev.clientY);
  });
}

export function initPages() {
  $('next-field').addEventListener('click', nextField);
  $('zoom').addEventListener('click', toggleZoom);
  initGestures();
}

export function renderPages(mode) {
  // After a decline the link is inactive, so the pages are gone too; the signed PDF waits for the PIN.
  var locked = mode === 'pin' && S.view.document.status === 'completed';
  show($('document'), mode !== 'declined' && !locked);
  if (mode === 'declined' || locked) return;
  setText($('read-hint'), t(READ_HINT[mode]));
  $('open-pdf').href = fileUrl() + (S.view.document.status === 'completed' ? '?v=final' : '');
  $('zoom').setAttribute('aria-pressed', String(zoom > 1));
  setText($('zoom'), t(zoom > 1 ? 'zoomOut' : 'zoomIn'));
  // A new version (completed: the signed PDF) or language rebuilds the list; otherwise it stays.
  var key = S.view.document.pages_version + '|' + S.lang;
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
    var shown = f.type === 'checkbox' || f.type === 'radio' ? (valueOf(f) === true ? '✓' : '') : displayOf(f);
    el.classList.toggle('field-checked', valueOf(f) === true);
    el.classList.toggle('field-disabled', !signing);
    el.setAttribute('data-label', fieldLabel(f));
    el.setAttribute('data-state', isStatic(f) ? 'static' : filled ? 'filled' : 'empty');
    setText(el.querySelector('.field-value'), shown);
    // The signature and the seal show in their fields once made, as the signed PDF will have them.
    if (isImage(f)) showImage(el, f.type === 'seal' ? S.sign.seal : S.sign.preview);
  });
  show($('next-field'), signing && fields.some(function (f) { return !isStatic(f); }));
  setText($('next-field'), remaining ? t('nextField', { n: remaining }) : t('nextFieldDone'));
}
