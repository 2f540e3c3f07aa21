/*
 * The seal: made from the name (round or square, rendered by the server in a seal-style Korean
 * face: POST …/seal_preview), drawn with a finger, uploaded as a PNG/JPEG, or, for a
 * representative, one of the organization's registered seals (the session's organization_seals).
 * What was chosen goes with 서명하기 as `seal_source` (sign.js): the server records it with the
 * image's hash. A field the sender marked `upload_only` takes an uploaded image only.
 */
import { api, clientError, failLink, isLinkGone } from './api.js';
import { renderError } from './errors.js';
import { cropped, loadPadLibrary } from './signature.js';
import { $, S, render, show } from './state.js';

var SEAL_MAX_BYTES = 1024 * 1024;
var MODES = ['made', 'drawn', 'uploaded', 'organization'];
/** @type {any} SignaturePad on the seal's drawing canvas, made when that pane first shows */
var drawPad = null;
var making = false;

export function sealFields() {
  return (S.view.fields || []).filter(function (f) { return f.type === 'seal'; });
}

/** The organization's seals this signer may use (listed by the session for a representative). */
function organizationSeals() {
  return S.view && Array.isArray(S.view.organization_seals) ? S.view.organization_seals : [];
}

function uploadOnly() {
  return sealFields().some(function (f) { return f.upload_only; });
}

/** The modes this signer has: an upload_only field takes an upload only. */
function modes() {
  if (uploadOnly()) return ['uploaded'];
  return MODES.filter(function (m) { return m !== 'organization' || organizationSeals().length > 0; });
}

function mode() {
  var m = S.sign.sealMode || 'made';
  return modes().indexOf(m) >= 0 ? m : modes()[0];
}

function setMode(m) {
  S.sign.sealMode = m;
  S.sign.sealError = null;
  render();
  if (m === 'drawn') ensureDrawPad();
}

/** Takes `image` (a data: URL or the organization seal's URL) as the seal, chosen as `source`. */
function choose(image, source) {
  S.sign.seal = image;
  S.sign.sealSource = source;
  S.sign.sealError = null;
  S.sign.error = null;
  render();
}

export function removeSeal() {
  S.sign.seal = null;
  S.sign.sealSource = null;
  $('seal-file').value = '';
  $('seal-preview').removeAttribute('src');
  var picked = /** @type {HTMLInputElement | null} */ (document.querySelector('#seal-picker input:checked'));
  if (picked) picked.checked = false;
  render();
}

// Made from the name: the server renders it (the same PNG it checks again at Sign).

function shape() {
  var checked = /** @type {HTMLInputElement | null} */ (document.querySelector('input[name="seal-shape"]:checked'));
  return checked && checked.value === 'square' ? 'square' : 'round';
}

function makeSeal() {
  if (making) return;
  var text = $('seal-text').value.trim();
  var body = { shape: shape() };
  if (text) body.text = text;
  making = true;
  $('seal-make').disabled = true;
  S.sign.sealError = null;
  render();
  api('POST', '/seal_preview', body)
    .then(function (r) {
      var d = r.data || {};
      if (typeof d.image !== 'string' || d.image.indexOf('data:image/png;base64,') !== 0) throw clientError('seal_preview_broken');
      choose(d.image, { source: 'made', shape: d.shape || body.shape, text: d.text || text, sha256: d.sha256 || null });
    })
    .catch(function (err) {
      if (isLinkGone(err)) return failLink(err);
      S.sign.sealError = err;
      if (err.param === 'text') $('seal-text').setAttribute('aria-invalid', 'true');
    })
    .then(function () {
      making = false;
      $('seal-make').disabled = false;
      render();
    });
}

// Drawn: a square pad in seal red.

function ensureDrawPad() {
  if (drawPad) return;
  if (typeof window.SignaturePad !== 'function') {
    loadPadLibrary().then(ensureDrawPad, function () { /* asked again when the pane next shows */ });
    return;
  }
  var canvas = $('seal-canvas');
  var w = canvas.offsetWidth;
  if (!w) return;
  var ratio = Math.max(window.devicePixelRatio || 1, 1);
  canvas.width = Math.round(w * ratio);
  canvas.height = Math.round(w * ratio);
  canvas.getContext('2d').scale(ratio, ratio);
  drawPad = new window.SignaturePad(canvas, { minWidth: 1.5, maxWidth: 4, penColor: '#c8102e' });
  var noGesture = function (ev) {
    if (ev.cancelable) ev.preventDefault();
  };
  canvas.addEventListener('touchstart', noGesture, { passive: false });
  canvas.addEventListener('touchmove', noGesture, { passive: false });
}

function useDrawn() {
  if (!drawPad || drawPad.isEmpty()) {
    S.sign.sealError = clientError('seal_draw_empty');
    render();
    return;
  }
  var png = cropped($('seal-canvas'), 6);
  if (png) choose(png, { source: 'drawn' });
}

function clearDrawn() {
  if (drawPad) drawPad.clear();
}

// Uploaded: a PNG or JPEG of one's own seal.

function onSealFile() {
  var input = $('seal-file');
  var file = input.files && input.files[0];
  S.sign.sealError = null;
  if (!file) return render();
  var err = null;
  if (file.type !== 'image/png' && file.type !== 'image/jpeg') err = clientError('unsupported_file_type');
  else if (file.size > SEAL_MAX_BYTES) err = clientError('file_too_large');
  if (err) {
    input.value = '';
    S.sign.sealError = err;
    return render();
  }
  var reader = new FileReader();
  reader.onload = function () {
    if (typeof reader.result === 'string') choose(reader.result, { source: 'uploaded' });
  };
  reader.onerror = function () {
    S.sign.sealError = clientError('file_read');
    render();
  };
  reader.readAsDataURL(file);
}

// The organization's seals: one radio button each, with its image.

var pickerKey = null;

function renderPicker() {
  var seals = organizationSeals();
  var key = JSON.stringify(seals);
  if (key === pickerKey) return;
  pickerKey = key;
  var box = $('seal-picker');
  while (box.firstChild) box.removeChild(box.firstChild);
  seals.forEach(function (seal) {
    var label = document.createElement('label');
    label.className = 'choice choice-large seal-choice';
    var input = document.createElement('input');
    input.type = 'radio';
    input.name = 'org-seal';
    input.value = seal.id;
    input.addEventListener('change', function () {
      choose(seal.image_url, { source: 'organization', seal_id: seal.id });
    });
    var img = document.createElement('img');
    img.src = seal.image_url;
    img.alt = '';
    img.className = 'seal-choice-img';
    var name = document.createElement('span');
    name.textContent = seal.name;
    label.appendChild(input);
    label.appendChild(img);
    label.appendChild(name);
    box.appendChild(label);
  });
}

/** The fields of POST …/sign that carry the seal. */
export function sealBody() {
  var src = S.sign.sealSource;
  if (!sealFields().length || !S.sign.seal || !src) return {};
  // A server that records the seal's source lists organization_seals in the session (issue 30);
  // one from before refuses the unknown seal_* members, so they go only where they are known.
  var known = Array.isArray(S.view.organization_seals);
  if (src.source === 'organization') return known ? { seal_id: src.seal_id, seal_source: 'organization' } : { seal_id: src.seal_id };
  var body = { seal_image: S.sign.seal };
  if (!known) return body;
  body.seal_source = src.source;
  if (src.source === 'made') {
    body.seal_shape = src.shape;
    body.seal_text = src.text;
  }
  return body;
}

export function renderSeal() {
  var has = sealFields().length > 0;
  show($('seal-block'), has);
  if (!has) return;
  var current = mode();
  var available = modes();
  MODES.forEach(function (m) {
    var btn = $('seal-mode-' + m);
    show(btn, available.length > 1 && available.indexOf(m) >= 0);
    btn.setAttribute('aria-pressed', String(m === current));
    show($('seal-' + m), m === current);
  });
  if (!$('seal-text').value && S.view.participant) $('seal-text').value = S.view.participant.name || '';
  renderPicker();
  show($('seal-preview-wrap'), Boolean(S.sign.seal));
  if (S.sign.seal && $('seal-preview').getAttribute('src') !== S.sign.seal) $('seal-preview').src = S.sign.seal;
  renderError($('seal-error'), S.sign.sealError);
}

export function initSeal() {
  MODES.forEach(function (m) {
    $('seal-mode-' + m).addEventListener('click', function () { setMode(m); });
  });
  $('seal-make').addEventListener('click', makeSeal);
  $('seal-text').addEventListener('input', function () {
    $('seal-text').removeAttribute('aria-invalid');
  });
  $('seal-draw-use').addEventListener('click', useDrawn);
  $('seal-draw-clear').addEventListener('click', clearDrawn);
  $('seal-file').addEventListener('change', onSealFile);
  $('seal-remove').addEventListener('click', removeSeal);
}
