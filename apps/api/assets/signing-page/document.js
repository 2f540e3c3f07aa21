/*
 * The document itself, with a line saying what it is for the signer in the current state.
 */
import { t } from './i18n.js';
import { fileUrl, READ_HINT } from './states.js';
import { $, S, setText, show } from './state.js';

var pdfSrc = null;

export function renderDocument(mode) {
  // After a decline the link is inactive, so the file is gone too.
  show($('document'), mode !== 'declined');
  if (mode === 'declined') return;
  setText($('read-hint'), t(READ_HINT[mode]));
  // A completed document serves the final PDF: a new src makes the frame fetch it.
  var src = fileUrl() + (S.view.document.status === 'completed' ? '?v=final' : '');
  $('open-pdf').href = src;
  if (pdfSrc !== src) {
    pdfSrc = src;
    $('pdf').src = src;
  }
}
