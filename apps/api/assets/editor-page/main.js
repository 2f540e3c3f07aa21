/*
 * The field-placement editor (issue 34): loads the session, builds the palette, the pages and
 * the toolbar, and saves, sends or cancels through the session's API.
 */
import { EditorApiError, SESSION, call } from './api.js';
import { localizedError } from './errors.js';
import { applyStrings, setLocale, t } from './i18n.js';
import { PALETTE, S, assignees, fieldOfParam, load, serialize } from './model.js';
import { announce } from './outcome.js';
import { closePreviewSheet, wirePreviewSheet } from './preview.js';
import { addToTarget, disarm, onOpenSettings, renderFields, renderPages, say, select } from './pages.js';
import { closeSettings, openSettings, refreshSettingsError, wireSettings } from './settings.js';

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** Ends the page: a message and nothing editable. @param {string} text */
function ended(text) {
  $('editor').hidden = true;
  const box = $('ended');
  box.hidden = false;
  $('ended-text').textContent = text;
}

function buildPalette() {
  const list = $('palette');
  list.textContent = '';
  for (const type of PALETTE) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `palette-item palette-${type}`;
    b.dataset.type = type;
    b.draggable = true;
    b.textContent = t(`type_${type}`);
    b.setAttribute('aria-pressed', 'false');
    b.addEventListener('dragstart', (e) => {
      disarm();
      e.dataTransfer?.setData('application/x-dojang-field', type);
      if (e.dataTransfer) e.dataTransfer.effectAllowed = 'copy';
    });
    b.addEventListener('click', (e) => {
      // Enter or Space (a click with no pointer) adds the field to the chosen page at once; a
      // tap arms it, and the next tap on a page places it there.
      if (e.detail === 0) return addToTarget(type);
      const on = S.armed !== type;
      disarm();
      if (on) {
        S.armed = type;
        b.setAttribute('aria-pressed', 'true');
        document.body.classList.add('armed');
        say(t('armed', { type: t(`type_${type}`) }));
      }
    });
    li.appendChild(b);
    list.appendChild(li);
  }
  const who = /** @type {HTMLSelectElement} */ ($('assignee'));
  who.textContent = '';
  for (const a of assignees()) {
    const o = document.createElement('option');
    o.value = a.value;
    o.textContent = a.name;
    who.appendChild(o);
  }
  S.assignee = assignees()[0]?.value ?? '';
  who.value = S.assignee;
  who.addEventListener('change', () => {
    S.assignee = who.value;
  });
  const target = /** @type {HTMLSelectElement} */ ($('target-page'));
  target.textContent = '';
  for (const part of S.session.parts) {
    for (let n = 1; n <= part.page_count; n++) {
      const o = document.createElement('option');
      o.value = `${part.index}:${n}`;
      o.textContent = S.session.parts.length > 1 && part.title ? `${part.title} ${t('pageLink', { n })}` : t('pageLink', { n });
      target.appendChild(o);
    }
  }
  target.addEventListener('change', () => {
    S.target = target.value;
  });
}

/**
 * Shows an API refusal next to the field it names (fields[i]…), and in the status line, worded in
 * the page's language (errors.js), never the server's English.
 * @param {unknown} err
 */
function showError(err) {
  const message = localizedError(err);
  if (!(err instanceof EditorApiError)) return say(t('fieldError', { message }));
  if (err.code === 'edit_session_expired' || err.code === 'edit_session_invalid') return ended(t('sessionEnded'));
  if (err.code === 'document_not_editable') return say(t('notEditable'));
  const f = fieldOfParam(err.param);
  if (f) {
    f.error = message;
    renderFields();
    select(f.key, true);
    refreshSettingsError();
  }
  say(t('fieldError', { message }));
}

async function save() {
  closeSettings();
  for (const f of S.fields) f.error = null;
  renderFields();
  say(t('saving'));
  const event = await call('PUT', '/fields', { fields: serialize() });
  S.dirty = false;
  // A save may have made ids (a template's new fields): take them back so the next save keeps them.
  const fresh = await call('GET', '');
  S.session = fresh;
  load(fresh.fields);
  renderFields();
  say(t('saved', { count: event.field_count ?? S.fields.length }));
  return event;
}

function wireToolbar() {
  const actions = S.session.actions;
  const editable = S.session.kind === 'template' || S.session.document?.editable;
  $('save-btn').hidden = !actions.includes('save') || !editable;
  $('send-btn').hidden = !actions.includes('send') || !editable;
  $('preview-btn').hidden = !actions.includes('preview');
  $('save-btn').addEventListener('click', () => {
    save().then(announce, showError);
  });
  $('send-btn').addEventListener('click', () => {
    const run = async () => {
      if (S.dirty && actions.includes('save')) await save();
      say(t('sending'));
      const event = await call('POST', '/send', {});
      say(t('sent'));
      announce(event);
      if (!event.redirect_url) ended(t('sent'));
    };
    run().catch(showError);
  });
  $('cancel-btn').addEventListener('click', () => {
    call('POST', '/cancel', {})
      .then((event) => {
        announce(event);
        if (!event.redirect_url) ended(t('cancelled'));
      })
      .catch(showError);
  });
  $('zoom-in').addEventListener('click', () => zoom(0.25));
  $('zoom-out').addEventListener('click', () => zoom(-0.25));
  const as = /** @type {HTMLSelectElement} */ ($('preview-as'));
  for (const a of assignees()) {
    const o = document.createElement('option');
    o.value = a.value;
    o.textContent = a.name;
    as.appendChild(o);
  }
  $('preview-btn').addEventListener('click', () => {
    const on = S.preview === null;
    S.preview = on ? as.value || assignees()[0]?.value || null : null;
    closeSettings();
    closePreviewSheet();
    $('preview-btn').textContent = t(on ? 'previewClose' : 'preview');
    $('preview-btn').setAttribute('aria-pressed', on ? 'true' : 'false');
    $('preview-bar').hidden = !on;
    document.body.classList.toggle('previewing', on);
    renderFields();
    if (on) say(t('previewHint', { who: as.options[as.selectedIndex]?.textContent ?? '' }));
  });
  as.addEventListener('change', () => {
    if (S.preview === null) return;
    S.preview = as.value;
    renderFields();
    say(t('previewHint', { who: as.options[as.selectedIndex]?.textContent ?? '' }));
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && S.armed) {
      disarm();
      say('');
    }
  });
}

/** @param {number} by */
function zoom(by) {
  S.zoom = Math.min(2.5, Math.max(0.5, S.zoom + by));
  $('pages').style.setProperty('--zoom', String(S.zoom));
}

async function boot() {
  if (!SESSION || SESSION === '__SESSION__') return ended(t('loadFailed'));
  let session;
  try {
    session = await call('GET', '');
  } catch (err) {
    return ended(err instanceof EditorApiError && err.status === 410 ? t('sessionEnded') : t('loadFailed'));
  }
  S.session = session;
  setLocale(session.locale);
  applyStrings();
  const name = session.document ? session.document.title : session.template.name;
  document.title = t('pageTitle', { title: name });
  $('doc-title').textContent = name;
  const color = session.brand?.color;
  if (typeof color === 'string' && /^#[0-9a-fA-F]{6}$/.test(color)) document.documentElement.style.setProperty('--brand', color);
  load(session.fields);
  buildPalette();
  wireToolbar();
  wireSettings();
  wirePreviewSheet();
  onOpenSettings(openSettings);
  renderPages();
  $('loading').hidden = true;
  $('editor').hidden = false;
  if (session.document && !session.document.editable) say(t('notEditable'));
}

applyStrings();
boot().catch(() => ended(t('loadFailed')));
