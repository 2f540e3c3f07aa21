/*
 * The signing session, asked for as soon as the HTML is parsed instead of after main.js and every
 * module it imports have downloaded: on a phone's link that is a round trip or more earlier for all
 * the page shows (page 1 waits for it). Its own entry module, listed before main.js in index.html
 * and importing nothing, so it runs first; api.js hands its answer to the page's first GET of the
 * session. Browsers without modules run none of the page anyway.
 */

/** The request options every JSON call of the page uses (api.js). */
/**
 * @param {string} method
 * @returns {RequestInit & { headers: Record<string, string> }}
 */
export function requestInit(method) {
  return {
    method: method,
    headers: { Accept: 'application/json' },
    credentials: 'same-origin',
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
  };
}

/** The link's token: the last segment of /sign/<token>; '' for anything else. */
export function tokenFromPath(pathname) {
  var m = /^\/sign\/([^/]+)\/?$/.exec(pathname);
  try {
    return m ? decodeURIComponent(m[1]) : '';
  } catch (e) {
    return ''; // malformed %-escapes: not a link we issued
  }
}

export function sessionUrl(token) {
  return '/v1/signing/' + encodeURIComponent(token);
}

var started = null;
var token = tokenFromPath(location.pathname);
if (token) {
  started = { token: token, response: fetch(sessionUrl(token), requestInit('GET')) };
  // Handled later by api.js; without this a network failure before then is logged as uncaught.
  started.response.catch(function () {});
}

/** The response promise of the session request started at load, once, for that token; else null. */
export function takeStarted(forToken) {
  var s = started;
  started = null;
  return s && s.token === forToken ? s.response : null;
}
