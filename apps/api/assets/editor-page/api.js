/*
 * The editor's calls to /v1/editor/{session}. The session's secret came in this page's HTML (the
 * one-time URL that opened it works no more); it is sent in the path, never stored by the page.
 */

const meta = document.querySelector('meta[name="dojang-editor-session"]');
export const SESSION = meta ? meta.getAttribute('content') ?? '' : '';
const BASE = `/v1/editor/${SESSION}`;

/** An API refusal: its code, and param naming the field (fields[3].x) when the API gave one. */
export class EditorApiError extends Error {
  /**
   * @param {number} status
   * @param {{ code?: string, message?: string, param?: string }} body
   */
  constructor(status, body) {
    super(body.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body.code ?? 'api_error';
    this.param = body.param ?? null;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function call(method, path, body) {
  const res = await fetch(BASE + path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new EditorApiError(res.status, json.error ?? {});
  return json;
}

/**
 * A page image's URL: the widths the server renders, chosen by the browser from srcset.
 * @param {number} part
 * @param {number} page
 * @param {number} width
 * @param {string} version
 */
export function pageUrl(part, page, width, version) {
  return `${BASE}/parts/${part}/pages/${page}.png?w=${width}&v=${encodeURIComponent(version)}`;
}

/**
 * The baselines of the text lines of a part's pages (percent of the page height), for snapping.
 * @param {number} part
 * @returns {Promise<number[][]>}
 */
export async function textLines(part) {
  const body = await call('GET', `/parts/${part}/lines`);
  return body.pages.map((/** @type {{ lines: number[] }} */ p) => p.lines);
}
