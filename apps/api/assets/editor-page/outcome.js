/*
 * What the editor tells the integrator: each save, send and cancel is posted to the parent window
 * as {type: 'dojang.editor.saved' | 'dojang.editor.sent' | 'dojang.editor.cancelled', …}, only to
 * the organization's embed origins (a page that frames the editor from anywhere else is refused
 * by the CSP, and a message to another origin is dropped by the browser); and with a
 * redirect_url the frame goes there with the outcome in its query.
 */
import { S } from './model.js';

/**
 * @param {{ type: string, document_id: string | null, template_id: string | null, template_version: number | null, field_count: number | null, redirect_url: string | null }} event
 */
export function announce(event) {
  const { redirect_url: redirect, ...rest } = event;
  const message = { type: rest.type, document_id: rest.document_id, template_id: rest.template_id, template_version: rest.template_version, field_count: rest.field_count };
  if (window.parent !== window) {
    for (const origin of S.session?.embed_origins ?? []) window.parent.postMessage(message, origin);
  }
  if (redirect) window.location.assign(redirect);
}
