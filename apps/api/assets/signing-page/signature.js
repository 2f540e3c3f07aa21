/*
 * The signature pad (signature_pad, a classic script fetched once page 1 is up: loadPadLibrary) and
 * the typed signature: what the signer puts in their signature fields (the seal: seal.js).
 */
import { $, S, afterFirstView, render, show } from './state.js';

var pad = null; // SignaturePad instance, created when the signature block first shows

/** @type {Promise<void> | null} */
var padLibrary = null;

/**
 * signature_pad (5.4 KB) is not part of a phone's first view: nobody draws before page 1 is shown
 * and the fields are filled, and the first view's bytes are held at 150 KB. main.js asks for it
 * once the page has loaded; a pad that shows before it arrives is made when it does.
 */
export function loadPadLibrary() {
  if (typeof window.SignaturePad === 'function') return Promise.resolve();
  if (padLibrary === null) {
    padLibrary = new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      script.src = '/sign/assets/signature_pad.js';
      script.onload = function () { resolve(); };
      script.onerror = function () {
        padLibrary = null; // a later pad asks again
        reject(new Error('signature_pad did not load'));
      };
      document.head.appendChild(script);
    });
  }
  return padLibrary;
}

export function ensurePad() {
  if (pad) return;
  if (typeof window.SignaturePad !== 'function') {
    // Fetched after the first view (state.js): a pad shown with page 1 is made once it arrives.
    afterFirstView(function () {
      loadPadLibrary().then(ensurePad, function () { /* asked again when the pad next shows */ });
    });
    return;
  }
  var canvas = $('signature-canvas');
  pad = new window.SignaturePad(canvas, { minWidth: 0.8, maxWidth: 2.6, penColor: '#111827', velocityFilterWeight: 0.7 });
  pad.addEventListener('beginStroke', function () {
    show($('signature-placeholder'), false);
  });
  // A finger on the pad draws and is no gesture. signature_pad listens to pointer events only
  // (whose preventDefault stops no gesture), and touch-action: none stops scrolling but not
  // Chrome's fling: a stroke that ends while the finger still moves, as most signatures do, starts
  // one, and the signer's next tap in the following second only stops it and is lost (Android
  // Chrome drops a tap that stops a fling), so a checkbox tapped just after signing stayed empty.
  var noGesture = function (ev) {
    if (ev.cancelable) ev.preventDefault();
  };
  canvas.addEventListener('touchstart', noGesture, { passive: false });
  canvas.addEventListener('touchmove', noGesture, { passive: false });
  pad.addEventListener('endStroke', function () {
    if (S.sign.typed) return;
    S.sign.hasSignature = !pad.isEmpty();
    S.sign.error = null;
    refreshPreview();
    render();
  });
  resizeCanvas();
  if (typeof ResizeObserver === 'function') {
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
  refreshPreview();
  render();
}

// The typed signature: the name in Nanum Pen Script (fonts/pen.css, unicode-range slices linked
// on first use, so only the name's characters are fetched), drawn on a canvas and sent as the
// same PNG a drawing is.

var PEN_FONT = '"Dojang Pen", "Dojang Noto Sans KR", sans-serif';
var penLinked = false;
var typedSeq = 0;

export function initTypedSignature() {
  $('sig-mode-draw').addEventListener('click', function () { setTyped(false); });
  $('sig-mode-type').addEventListener('click', function () { setTyped(true); });
  $('typed-name').addEventListener('input', drawTyped);
}

function setTyped(on) {
  S.sign.typed = on;
  S.sign.error = null;
  if (on) {
    if (!penLinked) {
      penLinked = true;
      var link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = '/sign/assets/fonts/pen.css';
      link.addEventListener('load', drawTyped);
      document.head.appendChild(link);
    }
    var input = $('typed-name');
    if (!input.value) input.value = (S.view && S.view.participant.name) || '';
    drawTyped();
  } else {
    S.sign.hasSignature = Boolean(pad && !pad.isEmpty());
    refreshPreview();
  }
  render();
  if (on) $('typed-name').focus();
  else if (pad) resizeCanvas();
}

/** Draws the typed name once its glyphs are loaded; a newer keystroke wins over an older load. */
function drawTyped() {
  var text = $('typed-name').value.trim();
  var seq = ++typedSeq;
  var canvas = $('typed-canvas');
  var ctx = canvas.getContext('2d');
  var paint = function () {
    if (seq !== typedSeq) return;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    if (text) {
      var size = 96;
      ctx.font = size + 'px ' + PEN_FONT;
      // Long names shrink to fit the box.
      var width = ctx.measureText(text).width;
      if (width > canvas.width - 24) size = Math.max(24, Math.floor((size * (canvas.width - 24)) / width));
      ctx.font = size + 'px ' + PEN_FONT;
      ctx.fillStyle = '#111827';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText(text, canvas.width / 2, canvas.height / 2);
    }
    S.sign.hasSignature = Boolean(text);
    refreshPreview();
    render();
  };
  if (!text || !document.fonts || !document.fonts.load) return paint();
  document.fonts.load('96px ' + PEN_FONT, text).then(paint, paint);
}

/**
 * What the signature fields on the page images show: the same cropped PNG Sign sends, made when
 * the signature changes (a stroke ends, a name is typed), not on every render.
 */
function refreshPreview() {
  S.sign.preview = S.sign.hasSignature ? signatureDataUrl() : null;
}

/** The signature as a PNG data URL (drawn or typed), cropped to the ink so it fills the field box. */
export function signatureDataUrl() {
  if (S.sign.typed) return $('typed-name').value.trim() ? cropped($('typed-canvas'), 4) : null;
  if (!pad || pad.isEmpty()) return null;
  return cropped($('signature-canvas'), Math.round(4 * Math.max(window.devicePixelRatio || 1, 1)));
}

/** `canvas`'s ink, cut to its bounds plus `padPx`, as a PNG data URL (null when blank). */
export function cropped(canvas, padPx) {
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
