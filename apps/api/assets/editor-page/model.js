/*
 * What the editor holds: the session, the fields being placed (in the order they are saved, so
 * an API error's fields[i] names one of them), who they are for, and the selection.
 */

/**
 * @typedef {{ key: number, type: string, part: number, page: number, x: number, y: number, width: number, height: number,
 *   assignee: string, settings: Record<string, unknown>, anchor: unknown, moved: boolean, id: string | null, error: string | null }} EditorField
 */

/** Sizes a field is dropped with, in percent of the page (adjusted after by resizing). */
export const DEFAULT_SIZE = {
  signature: [20, 7],
  seal: [10, 7],
  initials: [8, 4],
  text: [25, 3.5],
  number: [15, 3.5],
  date: [16, 3.5],
  signing_date: [16, 3.5],
  checkbox: [3, 2.2],
  radio: [3, 2.2],
  dropdown: [20, 3.5],
  name: [15, 3.5],
  email: [25, 3.5],
  phone: [18, 3.5],
  attachment: [20, 4],
};

/** The palette: every field type, and the groups that are several fields (checkboxes, radio buttons). */
export const PALETTE = ['signature', 'seal', 'initials', 'text', 'number', 'date', 'signing_date', 'checkbox', 'checkbox_group', 'radio', 'dropdown', 'name', 'email', 'phone', 'attachment'];

/** Settings the API takes per field (FieldDto), sent back as they are; anything else is left out. */
const SETTING_KEYS = [
  'required', 'upload_only', 'label', 'read_only', 'value', 'font_size', 'multiline', 'max_length', 'pattern', 'pattern_message',
  'min', 'max', 'decimals', 'number_format', 'options', 'group', 'option', 'min_checked', 'max_checked', 'locale', 'accept', 'max_bytes',
];

/** Tints for assignees (dark text on each passes contrast): one per participant or role, in order. */
export const TINTS = ['#dbeafe', '#fce7f3', '#dcfce7', '#fef3c7', '#ede9fe', '#ffedd5', '#e0f2fe', '#f1f5f9'];

export const S = {
  /** @type {any} */
  session: null,
  /** @type {EditorField[]} */
  fields: [],
  /** @type {number | null} */
  selected: null,
  /** A palette entry chosen for tap-then-tap placement. @type {string | null} */
  armed: null,
  /** The assignee new fields are for: a participant id (document) or a role (template). */
  assignee: '',
  /** The page a keyboard-added field goes to: `${part}:${page}`. */
  target: '0:1',
  zoom: 1,
  /** Preview as a signer: the assignee whose fields alone are shown, or null. @type {string | null} */
  preview: null,
  nextKey: 1,
  dirty: false,
  /**
   * The baselines of each part's text lines, page by page (GET …/parts/{part}/lines), fetched
   * once per part when the pages are drawn: what fields snap to. Absent until they arrive (a
   * field placed before then is simply not snapped). @type {Map<number, number[][]>}
   */
  lines: new Map(),
};

/**
 * How near (percent of the page height, about 8 pt on A4) a field's bottom edge must come to a
 * text line to snap onto it: about half the usual line spacing of a contract (14 to 20 pt leading
 * is 1.7 to 2.4 %), so it lands on the line the user aimed at, never on the next one, and a field
 * put between lines on purpose stays there.
 */
export const SNAP_DISTANCE = 1;

/**
 * The vertical move that puts `f`'s bottom edge on the nearest text line of its page within
 * SNAP_DISTANCE (so what is typed in it stands on the line, as in a printed form), or 0.
 * @param {{ part: number, page: number, y: number, height: number }} f
 */
export function snapOffset(f) {
  const lines = S.lines.get(f.part)?.[f.page - 1] ?? [];
  const bottom = f.y + f.height;
  let best = 0;
  let bestDistance = SNAP_DISTANCE;
  for (const line of lines) {
    const d = Math.abs(line - bottom);
    // Never above the page's top: a field stays whole on its page.
    if (d <= bestDistance && line - f.height >= 0) {
      best = line - bottom;
      bestDistance = d;
    }
  }
  return round(best);
}

const round = (/** @type {number} */ v) => Math.round(v * 100) / 100;
export const clamp = (/** @type {number} */ v, /** @type {number} */ lo, /** @type {number} */ hi) => Math.min(hi, Math.max(lo, v));

/** Who fields can be for: participants of a document, roles of a template. */
export function assignees() {
  const s = S.session;
  if (!s) return [];
  if (s.kind === 'document') return s.participants.filter((/** @type {any} */ p) => p.role !== 'cc').map((/** @type {any} */ p) => ({ value: p.id, name: p.name }));
  return s.roles.filter((/** @type {any} */ r) => r.participant_role !== 'cc').map((/** @type {any} */ r) => ({ value: r.role, name: r.role }));
}

/** @param {string} value */
export function assigneeName(value) {
  return assignees().find((a) => a.value === value)?.name ?? value;
}

/** @param {string} value */
export function tintOf(value) {
  const i = assignees().findIndex((a) => a.value === value);
  return TINTS[(i < 0 ? 0 : i) % TINTS.length];
}

/**
 * The API numbers pages across the whole document (or template), every part once: part 2's first
 * page follows part 1's last. The editor draws each part's pages apart, so it keeps a page within
 * its part and converts at the API's edge, both ways.
 */
function partOffsets() {
  /** @type {number[]} */
  const out = [];
  let before = 0;
  for (const p of S.session?.parts ?? []) {
    out.push(before);
    before += p.page_count;
  }
  return out;
}

/** A document-wide page as its part and the page within that part. @param {number} page */
export function partPageOf(page) {
  const offsets = partOffsets();
  for (let i = offsets.length - 1; i > 0; i--) if (page > offsets[i]) return { part: i, page: page - offsets[i] };
  return { part: 0, page };
}

/** A part's page as the API's document-wide page. @param {number} part @param {number} page */
export function documentPageOf(part, page) {
  return (partOffsets()[part] ?? 0) + page;
}

/** The fields the session holds, as the editor edits them. @param {any[]} fields */
export function load(fields) {
  S.fields = fields.map((f) => {
    const at = typeof f.page === 'number' ? partPageOf(f.page) : { part: f.part ?? 0, page: f.page };
    /** @type {Record<string, unknown>} */
    const settings = {};
    for (const k of SETTING_KEYS) if (f[k] !== undefined && f[k] !== null) settings[k] = f[k];
    return {
      key: S.nextKey++,
      type: f.type,
      part: at.part,
      page: at.page,
      x: f.x,
      y: f.y,
      width: f.width,
      height: f.height,
      assignee: f.participant_id ?? f.role,
      settings,
      anchor: f.anchor ?? null,
      moved: false,
      id: f.id ?? null,
      error: null,
    };
  });
}

/**
 * Adds a field of `type` (or the fields of a group) at x, y on a page; answers the first one.
 * @param {string} type
 * @param {number} part
 * @param {number} page
 * @param {number} x
 * @param {number} y
 * @param {(key: string, vars?: Record<string, string | number>) => string} t
 */
export function add(type, part, page, x, y, t) {
  const groupOf = (/** @type {string} */ prefix) => {
    let n = 1;
    while (S.fields.some((f) => f.settings.group === `${prefix}${n}`)) n++;
    return `${prefix}${n}`;
  };
  /** @type {Array<[string, Record<string, unknown>]>} */
  let made;
  if (type === 'checkbox_group') {
    const group = groupOf('checks');
    made = [['checkbox', { group, min_checked: 1 }], ['checkbox', { group }]];
  } else if (type === 'radio') {
    const group = groupOf('choice');
    made = [['radio', { group, option: t('choice', { n: 1 }) }], ['radio', { group, option: t('choice', { n: 2 }) }]];
  } else if (type === 'dropdown') {
    made = [['dropdown', { options: [t('choice', { n: 1 }), t('choice', { n: 2 })] }]];
  } else {
    made = [[type, {}]];
  }
  const first = S.fields.length;
  made.forEach(([kind, settings], i) => {
    const [w, h] = DEFAULT_SIZE[kind];
    const top = y + i * (h + 1.5);
    S.fields.push({
      key: S.nextKey++,
      type: kind,
      part,
      page,
      x: round(clamp(x, 0, 100 - w)),
      y: round(clamp(top, 0, 100 - h)),
      width: w,
      height: h,
      assignee: S.assignee,
      settings,
      anchor: null,
      moved: true,
      id: null,
      error: null,
    });
  });
  S.dirty = true;
  return S.fields[first];
}

/** @param {number} key */
export const byKey = (key) => S.fields.find((f) => f.key === key) ?? null;

/**
 * Moves or resizes a field, kept whole on its page (the API refuses a box past the edge).
 * @param {EditorField} f
 * @param {{ x?: number, y?: number, width?: number, height?: number }} box
 */
export function setBox(f, box) {
  const width = round(clamp(box.width ?? f.width, 1, 100));
  const height = round(clamp(box.height ?? f.height, 1, 100));
  f.width = width;
  f.height = height;
  f.x = round(clamp(box.x ?? f.x, 0, 100 - width));
  f.y = round(clamp(box.y ?? f.y, 0, 100 - height));
  f.moved = true;
  f.error = null;
  S.dirty = true;
}

/** The body of the save: exactly what PUT …/fields (or PATCH /templates) takes, in the editor's order. */
export function serialize() {
  const template = S.session?.kind === 'template';
  return S.fields.map((f) => {
    /** @type {Record<string, unknown>} */
    const out = { type: f.type };
    if (template) {
      out.role = f.assignee;
      if (f.id) out.id = f.id;
    } else out.participant_id = f.assignee;
    if (f.part) out.part = f.part;
    // An anchored field not moved keeps its anchor (found again in each document made from a
    // template); once adjusted it stays where it was put.
    if (f.anchor && !f.moved) out.anchor = f.anchor;
    else Object.assign(out, { page: documentPageOf(f.part, f.page), x: f.x, y: f.y, width: f.width, height: f.height });
    for (const [k, v] of Object.entries(f.settings)) if (v !== undefined && v !== null && v !== '') out[k] = v;
    return out;
  });
}

/**
 * The field an API error's param names (fields[3].x → the fourth field), or null.
 * @param {string | null} param
 */
export function fieldOfParam(param) {
  const m = /^fields\[(\d+)\]/.exec(param ?? '');
  return m ? S.fields[Number(m[1])] ?? null : null;
}
