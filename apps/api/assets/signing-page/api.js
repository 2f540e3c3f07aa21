/*
 * The JSON API under /v1/signing/<token>, and what its failures mean for the page.
 */
import { requestInit, sessionUrl, takeStarted } from './early-session.js';
import { S, render } from './state.js';

/** An API failure: the server's error envelope, or status 0 for a network failure. */
export function ApiFailure(status, body) {
  var e = (body && body.error) || {};
  this.status = status;
  this.code = e.code || (status === 0 ? 'network' : 'http_' + status);
  this.message = typeof e.message === 'string' ? e.message : '';
  this.param = e.param || null;
  this.request_id = e.request_id || null;
}

export function api(method, path, body) {
  var init = requestInit(method);
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  // The first GET of the session takes the request early-session.js started while the modules loaded.
  var early = method === 'GET' && path === '' ? takeStarted(S.token) : null;
  return (early || fetch(sessionUrl(S.token) + path, init)).then(
    function (res) {
      return res.json().then(
        function (data) {
          return { res: res, data: data };
        },
        function () {
          return { res: res, data: null };
        },
      ).then(function (r) {
        if (!r.res.ok) throw new ApiFailure(r.res.status, r.data);
        // The server's clock, to turn server timestamps into local countdowns despite clock skew.
        // The Date header has whole seconds, so only a real difference (over 2 s) counts.
        var serverNow = Date.parse(r.res.headers.get('Date') || '');
        var skew = isNaN(serverNow) ? 0 : Date.now() - serverNow;
        return { data: r.data, skew: Math.abs(skew) > 2000 ? skew : 0 };
      });
    },
    function () {
      throw new ApiFailure(0, null);
    },
  );
}

/** A multipart upload (the browser sets the boundary); the answer as api() gives it. */
export function apiUpload(path, form) {
  return fetch('/v1/signing/' + encodeURIComponent(S.token) + path, {
    method: 'POST',
    headers: { Accept: 'application/json' },
    body: form,
    credentials: 'same-origin',
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
  }).then(
    function (res) {
      return res.json().then(function (data) { return data; }, function () { return null; }).then(function (data) {
        if (!res.ok) throw new ApiFailure(res.status, data);
        return { data: data };
      });
    },
    function () {
      throw new ApiFailure(0, null);
    },
  );
}

/** Link-level failures end the session on any call: the page switches to the fatal state. */
export function isLinkFailure(err) {
  return err instanceof ApiFailure && (err.status === 404 || err.status === 410);
}

/**
 * A link failure named as such (the link's own codes, or 410): what the routes the page calls on
 * the side (the draft, the seal preview, the reading view) end the session on. Any other 404 (a
 * server without that route) is that call's failure only, shown where the call was made.
 */
export function isLinkGone(err) {
  return isLinkFailure(err) && (err.status === 410 || /^signing_link_/.test(err.code));
}

export function failLink(err) {
  S.fatal = linkFailure(err);
  S.announce = 'fatal-title';
  render();
}

/**
 * Which dead end a 404/410 is. A 410's message names why (`This signing request was declined; …`,
 * built by the server from the document's status); the page words each case for the signer.
 */
export function linkFailure(err) {
  if (err.code === 'signing_link_replaced') return { kind: 'replaced', reason: null, error: err };
  if (err.status === 410) {
    var m = /\bwas (canceled|declined|expired|deleted)\b/.exec(err.message);
    return { kind: 'inactive', reason: m ? m[1] : null, error: err };
  }
  return { kind: 'invalid', reason: null, error: err };
}

export function clientError(code) {
  return { code: code, status: -1, message: '' };
}
