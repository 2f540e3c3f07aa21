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
