/*
 * The pages and the fields on them: every part's page images, each with an overlay where fields
 * are drawn as buttons at their percent boxes. Placement by drag and drop from the palette, by
 * tap-then-tap (a palette entry armed, then a tap on a page), or with the keyboard (palette.js);
 * a field moves by dragging it or with the arrow keys (Shift for larger steps) and resizes by its
 * corner handle or Alt+arrows; Enter opens its settings, Delete removes it. A field dropped or
 * dragged snaps its bottom edge to the text line under it (the part's lines, from the server);
 * Alt held while dropping or dragging, and the arrow keys, leave it exactly where it is put.
 */
import { pageUrl, textLines } from './api.js';
import { t } from './i18n.js';
import { S, add, assigneeName, byKey, clamp, setBox, snapOffset, tintOf } from './model.js';
import { openPreviewSheet } from './preview.js';

/** @type {(key: number) => void} */
let openSettings = () => {};
/** @param {(key: number) => void} fn */
export function onOpenSettings(fn) {
  openSettings = fn;
}

/** Announces what happened, for screen readers and sighted users alike. @param {string} text */
export function say(text) {
  const status = document.getElementById('status');
  if (status) status.textContent = text;
}

const WIDTHS = [480, 720, 960];
/** Set when a pointer drag moved a field: the click that ends the drag does not open its settings. */
let dragged = false;

/** Builds the page images of every part, once per session. */
export function renderPages() {
  const host = /** @type {HTMLElement} */ (document.getElementById('pages'));
  const thumbs = /** @type {HTMLElement} */ (document.getElementById('thumbs-list'));
  host.textContent = '';
  thumbs.textContent = '';
  const parts = S.session.parts;
  let absolute = 0;
  for (const part of parts) {
    const section = document.createElement('section');
    section.className = 'part';
    if (parts.length > 1 && part.title) {
      const h = document.createElement('h2');
      h.className = 'part-title';
      h.textContent = part.title;
      section.appendChild(h);
    }
    for (let n = 1; n <= part.page_count; n++) {
      absolute++;
      const page = document.createElement('div');
      page.className = 'page';
      page.id = `page-${part.index}-${n}`;
      page.dataset.part = String(part.index);
      page.dataset.page = String(n);
      // Focusable by script only: a thumbnail moves focus here, so Tab continues on this page's fields.
      page.tabIndex = -1;
      const img = document.createElement('img');
      img.src = pageUrl(part.index, n, 720, part.pages_version);
      img.srcset = WIDTHS.map((w) => `${pageUrl(part.index, n, w, part.pages_version)} ${w}w`).join(', ');
      img.sizes = '(min-width: 1100px) 760px, 92vw';
      img.alt = t('pageAlt', { part: parts.length > 1 && part.title ? t('partPrefix', { title: part.title }) : '', n, count: part.page_count });
      img.draggable = false;
      img.loading = absolute <= 2 ? 'eager' : 'lazy';
      page.appendChild(img);
      const overlay = document.createElement('div');
      overlay.className = 'overlay';
      page.appendChild(overlay);
      wireDrop(page);
      section.appendChild(page);

      thumbs.appendChild(thumbnail(page, parts.length > 1 && part.title ? `${part.title} ${t('pageLink', { n })}` : t('pageLink', { n }), pageUrl(part.index, n, WIDTHS[0], part.pages_version)));
    }
    host.appendChild(section);
    // Where the part's text lines are, for snapping: fetched once, in the background; a failure
    // only means no snapping.
    if (!S.lines.has(part.index)) textLines(part.index).then((lines) => S.lines.set(part.index, lines), () => {});
  }
  renderFields();
}

/**
 * Snaps fields just dropped or dragged (never keyboard moves, which stay free for fine
 * adjustment): the first field's bottom edge onto the nearest text line, the rest of its group
 * (a checkbox group's boxes, a radio group's buttons) moved with it so they stay apart.
 * @param {import('./model.js').EditorField[]} fields
 */
function snap(fields) {
  const dy = fields.length ? snapOffset(fields[0]) : 0;
  if (dy === 0) return;
  for (const f of fields) setBox(f, { y: f.y + dy });
}

/**
 * A page's thumbnail in the "go to page" list: its image at the smallest width the page-image
 * route renders (lazy, so a long document fetches only those scrolled to), named by its page
 * label (the image itself is decorative: the link's text says which page). Following it scrolls
 * to the page, moves keyboard focus there, and makes it the page the palette adds to, so a
 * keyboard user's next field lands on the page they jumped to.
 * @param {HTMLElement} page
 * @param {string} label
 * @param {string} src
 */
function thumbnail(page, label, src) {
  const li = document.createElement('li');
  const a = document.createElement('a');
  a.href = `#${page.id}`;
  a.className = 'thumb';
  const img = document.createElement('img');
  img.src = src;
  img.alt = '';
  img.loading = 'lazy';
  img.draggable = false;
  const name = document.createElement('span');
  name.textContent = label;
  a.append(img, name);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    page.scrollIntoView({ block: 'start' });
    page.focus({ preventScroll: true });
    const target = /** @type {HTMLSelectElement | null} */ (document.getElementById('target-page'));
    const value = `${page.dataset.part}:${page.dataset.page}`;
    if (target) target.value = value;
    S.target = value;
  });
  li.appendChild(a);
  return li;
}

/** Where on a page (percent) a pointer is. @param {HTMLElement} page @param {number} cx @param {number} cy */
function percentAt(page, cx, cy) {
  const r = page.getBoundingClientRect();
  return { x: ((cx - r.left) / r.width) * 100, y: ((cy - r.top) / r.height) * 100 };
}

/**
 * Places a field where the pointer dropped or tapped it; snapped to the text line under it unless
 * Alt was held.
 * @param {HTMLElement} page @param {string} type @param {number} cx @param {number} cy @param {boolean} alt
 */
function placeAt(page, type, cx, cy, alt) {
  if (!S.assignee) return say(t('noAssignee'));
  const at = percentAt(page, cx, cy);
  if (at.x < 0 || at.y < 0 || at.x > 100 || at.y > 100) return;
  const before = S.fields.length;
  const f = add(type, Number(page.dataset.part), Number(page.dataset.page), at.x, at.y, t);
  if (!alt) snap(S.fields.slice(before));
  renderFields();
  select(f.key, true);
  say(t('placed', { type: t(`type_${f.type}`), page: f.page }));
}

/** Drops from the palette (HTML drag and drop) and the second tap of tap-then-tap. @param {HTMLElement} page */
function wireDrop(page) {
  page.addEventListener('dragover', (e) => {
    if (e.dataTransfer && Array.from(e.dataTransfer.types).includes('application/x-dojang-field')) {
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    }
  });
  page.addEventListener('drop', (e) => {
    const type = e.dataTransfer?.getData('application/x-dojang-field');
    if (!type) return;
    e.preventDefault();
    placeAt(page, type, e.clientX, e.clientY, e.altKey);
  });
  page.addEventListener('click', (e) => {
    if (!S.armed || (e.target instanceof Element && e.target.closest('.field'))) return;
    const type = S.armed;
    disarm();
    placeAt(page, type, e.clientX, e.clientY, e.altKey);
  });
}

export function disarm() {
  S.armed = null;
  for (const b of document.querySelectorAll('.palette-item')) b.setAttribute('aria-pressed', 'false');
  document.body.classList.remove('armed');
}

/** @param {import('./model.js').EditorField} f */
function fieldName(f) {
  const label = typeof f.settings.label === 'string' && f.settings.label ? f.settings.label : t(`type_${f.type}`);
  return t('fieldOn', { type: label, who: assigneeName(f.assignee), page: f.page });
}

/** Draws every field on its page (again): positions, names, selection, errors, the preview filter. */
export function renderFields() {
  for (const overlay of document.querySelectorAll('.overlay')) overlay.textContent = '';
  for (const f of S.fields) {
    const overlay = document.querySelector(`#page-${f.part}-${f.page} .overlay`);
    if (!overlay) continue;
    if (S.preview !== null && f.assignee !== S.preview) continue;
    const el = document.createElement('button');
    el.type = 'button';
    el.className = `field type-${f.type}${S.selected === f.key ? ' selected' : ''}${f.error ? ' invalid' : ''}${S.preview !== null ? ' previewing' : ''}`;
    el.dataset.key = String(f.key);
    el.style.left = `${f.x}%`;
    el.style.top = `${f.y}%`;
    el.style.width = `${f.width}%`;
    el.style.height = `${f.height}%`;
    el.style.setProperty('--tint', tintOf(f.assignee));
    el.setAttribute('aria-label', fieldName(f));
    el.setAttribute('aria-pressed', S.selected === f.key ? 'true' : 'false');
    if (f.error) el.setAttribute('aria-describedby', `field-error-${f.key}`);
    const text = document.createElement('span');
    text.className = 'field-name';
    text.textContent = typeof f.settings.label === 'string' && f.settings.label ? f.settings.label : t(`type_${f.type}`);
    el.appendChild(text);
    if (S.preview === null) {
      const handle = document.createElement('span');
      handle.className = 'handle';
      handle.setAttribute('aria-hidden', 'true');
      el.appendChild(handle);
      wireField(el, f.key);
    } else {
      // As on the signing page, the mark only shows where the value goes; a tap opens its sheet.
      const key = f.key;
      el.addEventListener('click', () => openPreviewSheet(key));
    }
    overlay.appendChild(el);
    if (f.error) {
      const err = document.createElement('p');
      err.className = 'field-error';
      err.id = `field-error-${f.key}`;
      err.style.left = `${f.x}%`;
      err.style.top = `${Math.min(f.y + f.height, 96)}%`;
      err.textContent = f.error;
      overlay.appendChild(err);
    }
  }
}

/** Selects a field (and focuses it). @param {number | null} key @param {boolean} [focus] */
export function select(key, focus) {
  S.selected = key;
  for (const el of document.querySelectorAll('.field')) {
    const on = el instanceof HTMLElement && el.dataset.key === String(key);
    el.classList.toggle('selected', on);
    el.setAttribute('aria-pressed', on ? 'true' : 'false');
  }
  if (focus && key !== null) /** @type {HTMLElement | null} */ (document.querySelector(`.field[data-key="${key}"]`))?.focus();
}

/** Drag to move, drag the corner to resize, keys to do either. @param {HTMLElement} el @param {number} key */
function wireField(el, key) {
  el.addEventListener('pointerdown', (e) => {
    const f = byKey(key);
    const page = el.closest('.page');
    if (!f || !(page instanceof HTMLElement) || e.button !== 0) return;
    e.preventDefault();
    dragged = false;
    select(key, true);
    const resizing = e.target instanceof Element && e.target.classList.contains('handle');
    const start = percentAt(page, e.clientX, e.clientY);
    const from = { x: f.x, y: f.y, width: f.width, height: f.height };
    let changed = false;
    el.setPointerCapture(e.pointerId);
    const move = (/** @type {PointerEvent} */ ev) => {
      const at = percentAt(page, ev.clientX, ev.clientY);
      const dx = at.x - start.x;
      const dy = at.y - start.y;
      if (Math.abs(dx) + Math.abs(dy) < 0.2 && !changed) return;
      changed = true;
      if (resizing) setBox(f, { width: from.width + dx, height: from.height + dy });
      else setBox(f, { x: from.x + dx, y: from.y + dy });
      el.style.left = `${f.x}%`;
      el.style.top = `${f.y}%`;
      el.style.width = `${f.width}%`;
      el.style.height = `${f.height}%`;
    };
    const up = (/** @type {PointerEvent} */ ev) => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      el.removeEventListener('pointercancel', up);
      if (changed) {
        dragged = true;
        // A move lands on the text line under it; Alt held, or a resize, leaves it where it is.
        if (!resizing && !ev.altKey) snap([f]);
        renderFields();
        select(key, true);
        say(resizing ? t('resized', { type: t(`type_${f.type}`), w: f.width, h: f.height }) : t('moved', { type: t(`type_${f.type}`), x: f.x, y: f.y }));
      }
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
  });
  el.addEventListener('click', (e) => {
    // A click without a drag (or Enter/Space on the button) opens the settings.
    e.stopPropagation();
    select(key, false);
    if (dragged && e.detail !== 0) return;
    openSettings(key);
  });
  el.addEventListener('keydown', (e) => {
    const f = byKey(key);
    if (!f) return;
    const step = e.shiftKey ? 5 : 1;
    const arrows = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const d = arrows[/** @type {keyof typeof arrows} */ (e.key)];
    if (d) {
      e.preventDefault();
      if (e.altKey) {
        setBox(f, { width: f.width + d[0], height: f.height + d[1] });
        say(t('resized', { type: t(`type_${f.type}`), w: f.width, h: f.height }));
      } else {
        setBox(f, { x: f.x + d[0], y: f.y + d[1] });
        say(t('moved', { type: t(`type_${f.type}`), x: f.x, y: f.y }));
      }
      renderFields();
      select(key, true);
      return;
    }
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      removeField(key);
    }
  });
}

/** @param {number} key */
export function removeField(key) {
  const i = S.fields.findIndex((f) => f.key === key);
  if (i < 0) return;
  S.fields.splice(i, 1);
  S.dirty = true;
  S.selected = null;
  renderFields();
  say(t('removed'));
  /** @type {HTMLElement | null} */ (document.querySelector('.palette-item'))?.focus();
}

/** The keyboard's way to place: the field goes near the top left of the chosen page, selected and focused. @param {string} type */
export function addToTarget(type) {
  if (!S.assignee) return say(t('noAssignee'));
  const [part, page] = S.target.split(':').map(Number);
  const f = add(type, part, page, 10, clamp(10 + 5 * S.fields.filter((x) => x.part === part && x.page === page).length, 0, 85), t);
  renderFields();
  select(f.key, true);
  document.getElementById(`page-${part}-${page}`)?.scrollIntoView({ block: 'nearest' });
  say(t('placed', { type: t(`type_${f.type}`), page: f.page }));
}
