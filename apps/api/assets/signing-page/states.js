/*
 * Where the signer stands. Every state the link can be in has its own words: not valid, replaced
 * by a newer link, canceled, declined, expired, deleted, not your turn yet, signed (waiting for the
 * others), completed (with the signed PDF to download), copy only, and signing.
 */
import { t } from './i18n.js';
import { $, S, setText, show } from './state.js';

var FATAL = {
  invalid: ['invalidTitle', 'invalidText'],
  replaced: ['replacedTitle', 'replacedText'],
  load: ['loadFailedTitle', 'loadFailedText'],
};
var INACTIVE = {
  canceled: ['canceledTitle', 'canceledText'],
  declined: ['declinedLinkTitle', 'declinedLinkText'],
  expired: ['expiredTitle', 'expiredText'],
  deleted: ['deletedTitle', 'deletedText'],
};

/** The link no longer opens a session: invalid, replaced, inactive (and why) or unreachable. */
export function renderFatal() {
  var f = S.fatal;
  show($('fatal'), Boolean(f));
  if (!f) return;
  var keys = f.kind === 'inactive' ? INACTIVE[f.reason] || ['inactiveTitle', 'inactiveText'] : FATAL[f.kind];
  setText($('fatal-title'), t(keys[0]));
  setText($('fatal-text'), t(keys[1]));
  var detail = '';
  // The server's own (English) message is not shown: the title and text above say it in the
  // signer's language; the request id is what support needs.
  if (f.error && f.error.code === 'network') detail = t('err_network');
  if (f.error && f.error.request_id) detail += (detail ? ' · ' : '') + t('requestId', { id: f.error.request_id });
  setText($('fatal-detail'), detail);
  show($('fatal-detail'), Boolean(detail));
  show($('fatal-retry'), f.kind === 'load');
}

/**
 * The page mode for the current view, which decides every section:
 * 'declined' | 'completed' | 'signed' | 'cc' | 'waiting' | 'pin' | 'sign' | 'closed'.
 */
export function pageMode() {
  var v = S.view;
  var p = v.participant;
  if (S.result === 'declined' || p.status === 'declined') return 'declined';
  // The signed PDF needs the same PIN check as signing (…/file and its pages answer 409 without it).
  if (v.document.status === 'completed') return v.pin_required && !v.pin_verified ? 'pin' : 'completed';
  if (S.result === 'signed' || p.status === 'signed') return 'signed';
  if (p.role === 'cc') return 'cc';
  if (v.waiting_for_others) return 'waiting';
  if (v.your_turn) return v.can_sign ? 'sign' : v.pin_required ? 'pin' : 'closed';
  return 'closed';
}

var NOTICE = {
  declined: { title: 'declinedTitle', text: 'declinedText', tone: 'muted' },
  completed: { title: 'allDoneTitle', text: 'allDoneText', tone: 'success' },
  signed: { title: 'signedTitle', text: 'signedText', tone: 'success' },
  cc: { title: 'ccTitle', text: 'ccText', tone: 'info' },
  waiting: { title: 'waitingTitle', text: 'waitingText', tone: 'waiting' },
  closed: { title: 'notActionableTitle', text: 'notActionableText', tone: 'info' },
};

/** The notice for every mode but the signing steps; completed offers the signed PDF. */
export function renderNotice(mode) {
  var n = NOTICE[mode];
  var notice = $('notice');
  show(notice, Boolean(n));
  var completed = mode === 'completed';
  var download = $('download-final');
  show(download, completed);
  if (completed) download.href = fileUrl() + '?v=final';
  show($('check-again'), mode === 'waiting' || (mode === 'signed' && !S.result));
  if (!n) return;
  notice.className = 'card state state-' + n.tone;
  var title = n.title;
  // Right after signing the news is "signed"; reopened later, "you have already signed".
  if (mode === 'completed' && S.result === 'signed') title = 'signedAllDoneTitle';
  if (mode === 'signed' && S.result !== 'signed') title = 'alreadySignedTitle';
  setText($('notice-title'), t(title));
  setText($('notice-text'), t(n.text));
}

/** The signing link's document file (the final PDF once completed, with ?v=final). */
export function fileUrl() {
  return '/v1/signing/' + encodeURIComponent(S.token) + '/file';
}

/** The line above the document: what the document is for the signer right now. */
export var READ_HINT = {
  sign: 'readHintSign',
  pin: 'readHintSign',
  waiting: 'readHintWaiting',
  signed: 'readHintSigned',
  completed: 'readHintCompleted',
  cc: 'readHintCc',
  closed: 'readHintClosed',
};
