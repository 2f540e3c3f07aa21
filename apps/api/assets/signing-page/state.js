/*
 * The page's state and the few DOM helpers every module uses. Rendering is one function (main.js)
 * that reads this state; modules change the state and call render().
 */

export var S = {
  token: null,
  lang: 'ko',
  view: null,
  fatal: null, // { kind: 'invalid' | 'replaced' | 'inactive' | 'load', reason, error }
  result: null, // 'signed' | 'declined'
  pin: { sending: false, verifying: false, sentTo: null, expiresAt: null, resendAt: 0, needNew: false, info: false, error: null },
  sign: {
    busy: false,
    error: null,
    seal: null, // the seal's image: a data: URL, or an organization seal's URL (seal.js)
    sealSource: null, // { source: 'made' | 'drawn' | 'uploaded' | 'organization', shape?, text?, seal_id? }
    sealMode: null, // the seal pane shown
    sealError: null,
    hasSignature: false,
    preview: null, // the signature as a PNG data URL, shown in its fields on the page (pages.js)
    typed: false, // the signature is the typed name (signature.js), not a drawing
    values: {}, // field id → the signer's value (fields.js)
    attachments: {}, // field id → { filename, size } of the uploaded file
    fieldError: null, // the field id the server's last refusal named
  },
  decline: { open: false, busy: false, error: null },
  announce: null, // element id to focus after the next render
};

var renderer = function () {};

var firstViewDone = false;
/** @type {Array<() => void>} */
var afterFirst = [];

/**
 * The first view is done once page 1's image has been painted (pages.js), or at once on a screen
 * without page images (main.js). What is no part of it (the web font, signature_pad) waits for
 * that: page 1 is the largest paint, and on a phone's link each byte before it delays it.
 */
export function afterFirstView(fn) {
  if (firstViewDone) fn();
  else afterFirst.push(fn);
}

export function firstViewShown() {
  if (firstViewDone) return;
  firstViewDone = true;
  loadFonts();
  var waiting = afterFirst;
  afterFirst = [];
  waiting.forEach(function (fn) { fn(); });
}

/**
 * Noto Sans KR's slices (fonts/fonts.css), asked for after the first view: the font (50–110 KB)
 * shared the phone's link with page 1. Until it comes the text is drawn in the phone's own fonts
 * (every phone sold in Korea has a Korean one), then swapped (font-display: swap).
 */
function loadFonts() {
  var link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/sign/assets/fonts/fonts.css';
  document.head.appendChild(link);
}

/** main.js registers the page's render function; the others call it without importing main.js. */
export function setRenderer(fn) {
  renderer = fn;
}

export function render() {
  renderer();
}

/**
 * The element with that id. Typed `any` for the type check (checkJs): each id's element type is
 * in index.html, which the checker cannot see; everything around the element is still checked.
 * @param {string} id
 * @returns {any}
 */
export function $(id) {
  return document.getElementById(id);
}

export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

export function show(el, visible) {
  el.hidden = !visible;
}
