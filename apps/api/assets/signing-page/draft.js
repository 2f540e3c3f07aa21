/*
 * Progress that survives: every value the signer confirms is saved to the link's draft
 * (PUT /v1/signing/<token>/draft, merged on the server; null clears a field), and the session's
 * `draft` is applied when the page loads, so a reload, another tab or another device resumes where
 * the signer stopped, attachments included (their value is the attachment_id). The draft is not a
 * legal fact: the server keeps it outside the event log and drops it at signing or decline.
 *
 * Saves go one at a time, in order; what fails is kept, the status line says so, and it is sent
 * again with the next save, so a value is never silently lost.
 */
import { api, failLink, isLinkGone } from './api.js';
import { isEditable } from './field-checks.js';
import { t } from './i18n.js';
import { $, S, setText, show } from './state.js';

/** @type {Record<string, unknown>} values not yet acknowledged by the server */
var pending = {};
var inFlight = false;
/** 'saving' | 'saved' | 'failed' | null */
var status = null;
var appliedFor = null;
var shownIn = null; // the page's mode at the last render

/**
 * Puts the session's draft into the page's values, once per page load (a later GET of the session,
 * after "다시 확인", must not undo what the signer typed since). Only the signer's own fillable
 * fields are taken.
 */
export function applyDraft() {
  var v = S.view;
  if (!v || appliedFor === S.token) return;
  appliedFor = S.token;
  var draft = v.draft;
  if (!draft || !draft.values || typeof draft.values !== 'object') return;
  (v.fields || []).forEach(function (f) {
    if (!isEditable(f) || !Object.prototype.hasOwnProperty.call(draft.values, f.id)) return;
    var value = draft.values[f.id];
    if (value === null || value === undefined) return;
    S.sign.values[f.id] = value;
  });
}

/** Sends `changes` ({ field id: value | null }) to the draft, after whatever is being sent. */
export function saveDraft(changes) {
  // A session without the `draft` member (null or a draft) is from a server that keeps none.
  if (!S.view || !Object.prototype.hasOwnProperty.call(S.view, 'draft')) return;
  Object.keys(changes).forEach(function (id) { pending[id] = changes[id]; });
  flush();
}

function flush() {
  if (inFlight || !Object.keys(pending).length) return;
  var sending = pending;
  pending = {};
  inFlight = true;
  setStatus('saving');
  api('PUT', '/draft', { values: sending })
    .then(
      function () {
        inFlight = false;
        setStatus(Object.keys(pending).length ? 'saving' : 'saved');
        flush();
      },
      function (err) {
        inFlight = false;
        // Newer values typed meanwhile win over the ones that failed.
        Object.keys(sending).forEach(function (id) {
          if (!Object.prototype.hasOwnProperty.call(pending, id)) pending[id] = sending[id];
        });
        if (isLinkGone(err)) return failLink(err);
        setStatus('failed');
      },
    );
}

/** Whether every confirmed value has reached the server (tests and the sign button wait on it). */
export function draftSettled() {
  return !inFlight && !Object.keys(pending).length;
}

function setStatus(next) {
  status = next;
  renderDraftStatus();
}

/** The status line, while the signer can still fill (`mode` 'sign'); gone once signed. */
export function renderDraftStatus(mode) {
  var el = $('draft-status');
  if (!el) return;
  if (mode !== undefined) shownIn = mode;
  var key = shownIn !== 'sign' ? '' : status === 'saving' ? 'draftSaving' : status === 'saved' ? 'draftSaved' : status === 'failed' ? 'draftFailed' : '';
  setText(el, key ? t(key) : '');
  show(el, Boolean(key));
  el.classList.toggle('draft-failed', status === 'failed');
  el.setAttribute('data-state', status || '');
}
