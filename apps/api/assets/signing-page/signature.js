/*
 * The signature pad (signature_pad, loaded before the modules as a classic script) and the seal
 * image: what the signer puts in their signature and seal fields.
 */
import { clientError } from './api.js';
import { $, S, render, show } from './state.js';

var SEAL_MAX_BYTES = 1024 * 1024;
var pad = null; // SignaturePad instance, created when the signature block first shows

export function ensurePad() {
  if (pad) return;
  if (typeof window.SignaturePad !== 'function') return;
  var canvas = $('signature-canvas');
  pad = new window.SignaturePad(canvas, { minWidth: 0.8, maxWidth: 2.6, penColor: '#111827', velocityFilterWeight: 0.7 });
  pad.addEventListener('beginStroke', function () {
    show($('signature-placeholder'), false);
  });
  pad.addEventListener('endStroke', function () {
    S.sign.hasSignature = !pad.isEmpty();
    S.sign.error = null;
    render();
  });
  resizeCanvas();
  if ('ResizeObserver' in window) {
    new ResizeObserver(function () { resizeCanvas(); }).observe($('signature-wrap'));
  } else {
    window.addEventListener('resize', resizeCanvas);
  }
  watchPixelRatio();
}

/** Sizes the backing store to CSS size × devicePixelRatio and keeps the strokes drawn so far. */
function resizeCanvas() {
  if (!pad) return;
  var canvas = $('signature-canvas');
  var ratio = Math.max(window.devicePixelRatio || 1, 1);
  var w = canvas.offsetWidth;
  var h = canvas.offsetHeight;
  if (!w || !h) return; // hidden: sized when it shows
  var bw = Math.round(w * ratio);
  var bh = Math.round(h * ratio);
  if (canvas.width === bw && canvas.height === bh) return;
  var strokes = pad.toData();
  canvas.width = bw;
  canvas.height = bh;
  canvas.getContext('2d').scale(ratio, ratio);
  pad.clear();
  if (strokes.length) pad.fromData(strokes);
}

function watchPixelRatio() {
  if (!window.matchMedia) return;
  var mq = window.matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
  var onChange = function () {
    if (mq.removeEventListener) mq.removeEventListener('change', onChange);
    resizeCanvas();
    watchPixelRatio();
  };
  if (mq.addEventListener) mq.addEventListener('change', onChange);
}

export function clearSignature() {
  if (pad) pad.clear();
  S.sign.hasSignature = false;
  render();
}

/** The drawn signature as a PNG data URL, cropped to the ink so it fills the field box. */
export function signatureDataUrl() {
  if (!pad || pad.isEmpty()) return null;
  var canvas = $('signature-canvas');
  var w = canvas.width;
  var h = canvas.height;
  var pixels = canvas.getContext('2d').getImageData(0, 0, w, h).data;
  var minX = w;
  var minY = h;
  var maxX = -1;
  var maxY = -1;
  for (var y = 0; y < h; y++) {
    var row = y * w * 4;
    for (var x = 0; x < w; x++) {
      if (pixels[row + x * 4 + 3] !== 0) {
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        maxY = y;
      }
    }
  }
  if (maxX < 0) return null;
  var padPx = Math.round(4 * Math.max(window.devicePixelRatio || 1, 1));
  minX = Math.max(0, minX - padPx);
  minY = Math.max(0, minY - padPx);
  maxX = Math.min(w - 1, maxX + padPx);
  maxY = Math.min(h - 1, maxY + padPx);
  var out = document.createElement('canvas');
  out.width = maxX - minX + 1;
  out.height = maxY - minY + 1;
  out.getContext('2d').drawImage(canvas, minX, minY, out.width, out.height, 0, 0, out.width, out.height);
  return out.toDataURL('image/png');
}

// The seal image

export function onSealFile() {
  var input = $('seal-file');
  var file = input.files && input.files[0];
  S.sign.error = null;
  if (!file) {
    S.sign.seal = null;
    render();
    return;
  }
  if (file.type !== 'image/png' && file.type !== 'image/jpeg') {
    S.sign.seal = null;
    input.value = '';
    S.sign.error = clientError('unsupported_file_type');
    render();
    return;
  }
  if (file.size > SEAL_MAX_BYTES) {
    S.sign.seal = null;
    input.value = '';
    S.sign.error = clientError('file_too_large');
    render();
    return;
  }
  var reader = new FileReader();
  reader.onload = function () {
    S.sign.seal = typeof reader.result === 'string' ? reader.result : null;
    render();
  };
  reader.onerror = function () {
    S.sign.seal = null;
    S.sign.error = clientError('file_read');
    render();
  };
  reader.readAsDataURL(file);
}

export function removeSeal() {
  S.sign.seal = null;
  $('seal-file').value = '';
  $('seal-preview').removeAttribute('src');
  render();
}
