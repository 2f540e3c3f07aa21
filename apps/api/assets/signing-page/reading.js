/*
 * "본문 보기": for contracts written in HTML, the body as real text reflowed to the phone's width
 * (GET /v1/signing/<token>/body), beside the page images that remain the legal view. The server
 * sanitizes the HTML; the page still builds the view from a short list of text elements only,
 * copying text with textContent and no attribute at all (the page's rule: no HTML from strings).
 */
import { api, failLink, isLinkGone } from './api.js';
import { renderError } from './errors.js';
import { t } from './i18n.js';
import { $, S, render, show } from './state.js';

var KEEP = ['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'LI', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TD', 'TH', 'STRONG', 'EM', 'B', 'I', 'U', 'BR', 'BLOCKQUOTE', 'SPAN', 'DIV', 'SECTION', 'SUP', 'SUB'];
/** The headings of the contract sit under the part's h3 in the page's outline. */
var HEADING = { H1: 'H4', H2: 'H4', H3: 'H5', H4: 'H5', H5: 'H6', H6: 'H6' };

/** @type {{ parts: { title: string, html: string | null }[] } | null} */
var body = null;
var open = false;
var loading = false;
var error = null;

/** Copies `from`'s children into `to`, keeping the listed elements and their text only. */
function copyText(from, to) {
  for (var n = from.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) {
      to.appendChild(document.createTextNode(n.nodeValue || ''));
    } else if (n.nodeType === 1) {
      var tag = /** @type {Element} */ (n).tagName;
      if (KEEP.indexOf(tag) < 0) {
        if (tag !== 'SCRIPT' && tag !== 'STYLE' && tag !== 'TEMPLATE') copyText(n, to);
        continue;
      }
      var el = document.createElement(HEADING[tag] || tag.toLowerCase());
      copyText(n, el);
      to.appendChild(el);
    }
  }
}

function build() {
  var view = $('body-view');
  while (view.firstChild) view.removeChild(view.firstChild);
  var parts = body ? body.parts : [];
  parts.forEach(function (part, k) {
    var section = document.createElement('section');
    section.className = 'body-part';
    var h = document.createElement('h3');
    h.textContent = parts.length > 1 ? t('partHeading', { n: k + 1, count: parts.length, title: part.title || S.view.document.title }) : part.title || S.view.document.title;
    section.appendChild(h);
    if (typeof part.html === 'string') {
      // DOMParser runs no script and loads nothing; only text is copied out of it.
      var doc = new DOMParser().parseFromString(part.html, 'text/html');
      copyText(doc.body, section);
    } else {
      var p = document.createElement('p');
      p.className = 'hint';
      p.textContent = t('bodyPdfOnly');
      section.appendChild(p);
    }
    view.appendChild(section);
  });
}

function toggle() {
  open = !open;
  if (open && !body && !loading) {
    loading = true;
    error = null;
    api('GET', '/body')
      .then(function (r) {
        body = r.data && Array.isArray(r.data.parts) ? r.data : { parts: [] };
        build();
      })
      .catch(function (err) {
        if (isLinkGone(err)) return failLink(err);
        error = err;
        open = false;
      })
      .then(function () {
        loading = false;
        render();
        if (open) $('body-view').focus();
      });
  }
  render();
  if (open && body) $('body-view').focus();
}

/** Whether any part of the document was written in HTML (a PDF-only document has no body view). */
function hasBody() {
  var parts = S.view.document.parts || [];
  // The session names each part's source where it knows it; without that, the view is offered.
  return !parts.length || parts.some(function (p) { return p.source !== 'pdf'; });
}

export function renderReading(mode) {
  var offered = mode !== 'declined' && S.view.document.status !== 'completed' && hasBody();
  show($('body-open'), offered);
  $('body-open').setAttribute('aria-pressed', String(open));
  $('body-open').textContent = t(open ? 'bodyClose' : 'bodyOpen');
  show($('body-view'), offered && open && Boolean(body));
  renderError($('body-error'), offered ? error : null);
  if (body && $('body-view').getAttribute('data-lang') !== S.lang) {
    $('body-view').setAttribute('data-lang', S.lang);
    build();
  }
}

export function initReading() {
  $('body-open').addEventListener('click', toggle);
}
