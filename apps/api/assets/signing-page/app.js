/*
 * Dojang signing page. Plain browser JavaScript, no build step, no external resources.
 *
 * It talks to the JSON API under /v1/signing/<token> (the token is the last segment of
 * /sign/<token>). Rules kept throughout, because the page runs under a strict CSP and shows
 * server data: no inline script or style, no innerHTML — every text goes in with textContent.
 * Every visible string lives in the dictionary below (Korean by default, English on request).
 */
(function () {
  'use strict';

  // ---------------------------------------------------------------------------------------------
  // Strings
  // ---------------------------------------------------------------------------------------------

  var STRINGS = {
    ko: {
      brand: 'Dojang 전자서명',
      skip: '본문으로 건너뛰기',
      language: '언어',
      pageTitle: '{title} – Dojang 전자서명',
      pageTitleBare: 'Dojang 전자서명',
      loading: '불러오는 중…',
      retry: '다시 시도',
      sender: '보낸 사람',
      status: '상태',
      deadline: '서명 기한',
      completedAt: '완료 일시',
      participant: '참여자',
      yourFields: '입력할 항목',
      documentHeading: '문서 확인',
      openPdf: 'PDF 열기',
      readHint: '서명하기 전에 문서 전체를 읽어 주세요. 화면에 문서가 보이지 않으면 "PDF 열기"를 누르세요.',
      pdfFrameTitle: '문서 미리보기',
      pinHeading: '본인 확인',
      pinIntro: '서명하거나 거부하려면 먼저 본인 확인이 필요합니다. {phone}(으)로 6자리 인증번호를 보내드립니다.',
      pinIntroNoPhone: '서명하거나 거부하려면 먼저 본인 확인이 필요합니다. 등록된 휴대폰 번호로 6자리 인증번호를 보내드립니다.',
      sendPin: '인증번호 받기',
      resendPin: '새 인증번호 받기',
      resendIn: '다시 받기 ({s}초)',
      sending: '보내는 중…',
      pinSent: '{phone}(으)로 인증번호를 보냈습니다. {time}까지 입력해 주세요.',
      pinSentNoTime: '{phone}(으)로 인증번호를 보냈습니다.',
      pinLabel: '인증번호 6자리',
      verify: '확인',
      verifying: '확인 중…',
      signHeading: '서명하기',
      reviewHeading: '검토 후 승인',
      signatureLabel: '아래 칸에 손가락이나 마우스로 서명해 주세요',
      signatureCanvas: '서명 입력란',
      signHere: '여기에 서명',
      clear: '지우기',
      sealLabel: '도장 이미지',
      sealHint: 'PNG 또는 JPEG 파일, 1MB 이하',
      sealPreview: '선택한 도장 이미지',
      remove: '삭제',
      consent: '전자서명에 동의합니다',
      consentHint: '동의하고 서명하면 이 문서의 내용에 동의하며, 전자서명이 자필 서명과 같은 효력을 가진다는 것에 동의하게 됩니다.',
      sign: '서명하기',
      approve: '승인하기',
      signing: '서명 중…',
      needSignature: '서명을 그려 주세요.',
      needSeal: '도장 이미지를 선택해 주세요.',
      needConsent: '전자서명 동의에 체크해 주세요.',
      declineHeading: '서명 거부',
      declineOpen: '서명을 거부합니다',
      declineReason: '거부 사유 (필수)',
      declineHint: '거부하면 이 서명 요청 전체가 중단되며 되돌릴 수 없습니다.',
      cancel: '취소',
      declineConfirm: '거부 확정',
      declining: '처리 중…',
      signedTitle: '서명 완료',
      signedText: '서명이 접수되었습니다. 다른 참여자의 서명이 끝나면 문서가 완료됩니다.',
      allDoneTitle: '모든 서명이 완료되었습니다',
      allDoneText: '완료된 문서는 "PDF 열기"로 확인하고 저장할 수 있습니다.',
      alreadySignedTitle: '이미 서명하셨습니다',
      alreadySignedText: '다른 참여자의 서명을 기다리고 있습니다.',
      waitingTitle: '앞 순서 서명자를 기다리는 중',
      waitingText: '앞 순서 서명자의 서명이 끝나면 서명할 수 있으며, 차례가 되면 다시 알려드립니다. 그동안 문서를 미리 읽어 보세요.',
      checkAgain: '다시 확인',
      ccTitle: '참조용 문서',
      ccText: '참조자로 지정되어 서명할 항목이 없습니다. 문서 내용만 확인하시면 됩니다.',
      declinedTitle: '서명을 거부했습니다',
      declinedText: '거부가 기록되었고 이 서명 요청은 중단되었습니다.',
      notActionableTitle: '지금은 서명할 수 없습니다',
      notActionableText: '이 문서는 서명을 받을 수 있는 상태가 아닙니다.',
      invalidTitle: '유효하지 않은 링크입니다',
      invalidText: '주소가 정확한지 확인하거나, 보낸 사람에게 새 링크를 요청해 주세요.',
      inactiveTitle: '더 이상 사용할 수 없는 링크입니다',
      inactiveText: '서명 요청이 취소 또는 거부되었거나 기한이 지났습니다. 자세한 내용은 보낸 사람에게 문의해 주세요.',
      loadFailedTitle: '문서를 불러오지 못했습니다',
      loadFailedText: '잠시 후 다시 시도해 주세요.',
      status_draft: '작성 중',
      status_sent: '서명 진행 중',
      status_completed: '완료',
      status_declined: '거부됨',
      status_canceled: '취소됨',
      status_expired: '기한 만료',
      role_signer: '서명자',
      role_reviewer: '검토자',
      role_cc: '참조자',
      signedOn: '{date} 서명',
      fieldSignature: '서명 {n}개',
      fieldSeal: '도장 {n}개',
      fieldPages: '{pages}쪽',
      listSep: ', ',
      requestId: '요청 ID: {id}',
      serverMessage: '서버 메시지: {m}',
      footer: '이 링크는 본인에게만 발송되었습니다. 다른 사람과 공유하지 마세요.',
      err_pin_incorrect: '인증번호가 올바르지 않습니다. 남은 시도 횟수: {n}회',
      err_pin_incorrect_plain: '인증번호가 올바르지 않습니다.',
      err_pin_locked: '인증번호를 여러 번 잘못 입력해 잠겼습니다. 새 인증번호를 받아 주세요.',
      err_pin_expired: '인증번호가 만료되었습니다. 새 인증번호를 받아 주세요.',
      err_pin_resend_cooldown: '{s}초 후에 인증번호를 다시 받을 수 있습니다.',
      err_pin_resend_cooldown_plain: '잠시 후에 인증번호를 다시 받을 수 있습니다.',
      err_pin_not_requested: '먼저 인증번호를 받아 주세요.',
      err_pin_verification_required: '먼저 본인 확인(인증번호)을 완료해 주세요.',
      err_pin_format: '인증번호 6자리 숫자를 입력해 주세요.',
      err_consent_required: '전자서명 동의에 체크해 주세요.',
      err_not_your_turn: '앞 순서 서명자가 아직 서명하지 않았습니다.',
      err_participant_already_signed: '이미 서명하셨습니다.',
      err_participant_declined: '이미 서명을 거부하셨습니다.',
      err_file_too_large: '이미지가 너무 큽니다. 1MB 이하의 파일을 선택해 주세요.',
      err_unsupported_file_type: 'PNG 또는 JPEG 이미지만 사용할 수 있습니다.',
      err_file_read: '파일을 읽지 못했습니다. 다른 파일을 선택해 주세요.',
      err_missing_signature: '서명을 그려 주세요.',
      err_missing_seal: '도장 이미지를 선택해 주세요.',
      err_missing_reason: '거부 사유를 입력해 주세요.',
      err_seal_upload_required: '이 도장 칸에는 도장 이미지를 직접 올려야 합니다.',
      err_link: '이 서명 링크는 더 이상 사용할 수 없습니다.',
      err_network: '서버에 연결할 수 없습니다. 인터넷 연결을 확인하고 다시 시도해 주세요.',
      err_rate_limited: '요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.',
      err_generic: '요청을 처리하지 못했습니다.',
    },
    en: {
      brand: 'Dojang e-Signature',
      skip: 'Skip to content',
      language: 'Language',
      pageTitle: '{title} – Dojang e-Signature',
      pageTitleBare: 'Dojang e-Signature',
      loading: 'Loading…',
      retry: 'Try again',
      sender: 'From',
      status: 'Status',
      deadline: 'Sign by',
      completedAt: 'Completed',
      participant: 'You',
      yourFields: 'To fill in',
      documentHeading: 'Read the document',
      openPdf: 'Open PDF',
      readHint: 'Please read the whole document before signing. If it does not show here, tap "Open PDF".',
      pdfFrameTitle: 'Document preview',
      pinHeading: 'Verify it’s you',
      pinIntro: 'Before you sign or decline, confirm your identity. We will text a 6-digit PIN to {phone}.',
      pinIntroNoPhone: 'Before you sign or decline, confirm your identity. We will text a 6-digit PIN to your registered phone.',
      sendPin: 'Send PIN',
      resendPin: 'Send a new PIN',
      resendIn: 'Resend in {s}s',
      sending: 'Sending…',
      pinSent: 'We sent a PIN to {phone}. Enter it by {time}.',
      pinSentNoTime: 'We sent a PIN to {phone}.',
      pinLabel: '6-digit PIN',
      verify: 'Verify',
      verifying: 'Verifying…',
      signHeading: 'Sign',
      reviewHeading: 'Review and approve',
      signatureLabel: 'Draw your signature below with a finger or mouse',
      signatureCanvas: 'Signature pad',
      signHere: 'Sign here',
      clear: 'Clear',
      sealLabel: 'Seal image',
      sealHint: 'PNG or JPEG file, up to 1 MB',
      sealPreview: 'Selected seal image',
      remove: 'Remove',
      consent: 'I agree to sign electronically',
      consentHint: 'By signing you agree to the contents of this document and that your electronic signature has the same effect as a handwritten one.',
      sign: 'Sign',
      approve: 'Approve',
      signing: 'Signing…',
      needSignature: 'Draw your signature.',
      needSeal: 'Choose a seal image.',
      needConsent: 'Tick the consent box.',
      declineHeading: 'Decline to sign',
      declineOpen: 'Decline this document',
      declineReason: 'Reason (required)',
      declineHint: 'Declining stops the whole signature request and cannot be undone.',
      cancel: 'Cancel',
      declineConfirm: 'Confirm decline',
      declining: 'Declining…',
      signedTitle: 'Signed',
      signedText: 'Your signature was recorded. The document completes once the other participants have signed.',
      allDoneTitle: 'All signatures are complete',
      allDoneText: 'Use "Open PDF" to view and save the completed document.',
      alreadySignedTitle: 'You have already signed',
      alreadySignedText: 'Waiting for the other participants to sign.',
      waitingTitle: 'Waiting for earlier signers',
      waitingText: 'You can sign once the earlier signers have signed; we will let you know when it is your turn. Meanwhile you can read the document.',
      checkAgain: 'Check again',
      ccTitle: 'Copy for your information',
      ccText: 'You were added as a cc participant, so there is nothing for you to sign.',
      declinedTitle: 'You declined to sign',
      declinedText: 'Your decision was recorded and this signature request has been stopped.',
      notActionableTitle: 'This document cannot be signed now',
      notActionableText: 'The document is not open for signatures.',
      invalidTitle: 'This link is not valid',
      invalidText: 'Check the address, or ask the sender for a new link.',
      inactiveTitle: 'This link is no longer active',
      inactiveText: 'The signature request was canceled or declined, or its deadline has passed. Please contact the sender.',
      loadFailedTitle: 'Could not load the document',
      loadFailedText: 'Please try again in a moment.',
      status_draft: 'Draft',
      status_sent: 'Awaiting signatures',
      status_completed: 'Completed',
      status_declined: 'Declined',
      status_canceled: 'Canceled',
      status_expired: 'Expired',
      role_signer: 'Signer',
      role_reviewer: 'Reviewer',
      role_cc: 'CC',
      signedOn: 'signed {date}',
      fieldSignature: '{n} signature',
      fieldSeal: '{n} seal',
      fieldPages: 'page {pages}',
      listSep: ', ',
      requestId: 'Request ID: {id}',
      serverMessage: '{m}',
      footer: 'This link was sent to you only. Please do not share it.',
      err_pin_incorrect: 'Incorrect PIN. {n} attempts left.',
      err_pin_incorrect_plain: 'Incorrect PIN.',
      err_pin_locked: 'Too many wrong PINs: this PIN is locked. Request a new PIN.',
      err_pin_expired: 'The PIN has expired. Request a new PIN.',
      err_pin_resend_cooldown: 'You can request a new PIN in {s} seconds.',
      err_pin_resend_cooldown_plain: 'You can request a new PIN in a moment.',
      err_pin_not_requested: 'Request a PIN first.',
      err_pin_verification_required: 'Verify your PIN first.',
      err_pin_format: 'Enter the 6 digits of the PIN.',
      err_consent_required: 'Tick the consent box.',
      err_not_your_turn: 'An earlier signer has not signed yet.',
      err_participant_already_signed: 'You have already signed.',
      err_participant_declined: 'You have already declined.',
      err_file_too_large: 'The image is too large. Choose a file of 1 MB or less.',
      err_unsupported_file_type: 'Only PNG or JPEG images can be used.',
      err_file_read: 'The file could not be read. Choose another file.',
      err_missing_signature: 'Draw your signature.',
      err_missing_seal: 'Choose a seal image.',
      err_missing_reason: 'Enter a reason.',
      err_seal_upload_required: 'This seal field needs an uploaded seal image.',
      err_link: 'This signing link no longer works.',
      err_network: 'Cannot reach the server. Check your connection and try again.',
      err_rate_limited: 'Too many requests. Try again in a moment.',
      err_generic: 'The request could not be completed.',
    },
  };

  var SEAL_MAX_BYTES = 1024 * 1024;
  var LANG_KEY = 'dojang.signing.lang';

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------

  var S = {
    token: null,
    lang: 'ko',
    view: null,
    fatal: null, // { kind: 'invalid' | 'inactive' | 'load', error }
    result: null, // 'signed' | 'declined'
    pin: { sending: false, verifying: false, sentTo: null, expiresAt: null, resendAt: 0, needNew: false, info: false, error: null },
    sign: { busy: false, error: null, seal: null, hasSignature: false },
    decline: { open: false, busy: false, error: null },
    announce: null, // element id to focus after the next render
  };

  var pad = null; // SignaturePad instance, created when the signature block first shows
  var countdownTimer = null;
  var pdfSrc = null;

  function $(id) {
    return document.getElementById(id);
  }

  function t(key, vars) {
    var table = STRINGS[S.lang] || STRINGS.ko;
    var s = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : STRINGS.ko[key] || key;
    if (vars) {
      s = s.replace(/\{(\w+)\}/g, function (m, name) {
        return Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : m;
      });
    }
    return s;
  }

  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }

  function show(el, visible) {
    el.hidden = !visible;
  }

  // ---------------------------------------------------------------------------------------------
  // Language
  // ---------------------------------------------------------------------------------------------

  function initialLang() {
    try {
      var q = new URLSearchParams(location.search).get('lang');
      if (q === 'ko' || q === 'en') return q;
    } catch (e) { /* no URLSearchParams: fall through */ }
    try {
      var stored = window.localStorage.getItem(LANG_KEY);
      if (stored === 'ko' || stored === 'en') return stored;
    } catch (e) { /* storage blocked */ }
    // Korean unless the browser clearly prefers another language (then English, the common fallback).
    var nav = (navigator.languages && navigator.languages[0]) || navigator.language || 'ko';
    return /^ko\b/i.test(nav) || !nav ? 'ko' : 'en';
  }

  function setLang(lang) {
    S.lang = lang === 'en' ? 'en' : 'ko';
    try {
      window.localStorage.setItem(LANG_KEY, S.lang);
    } catch (e) { /* storage blocked */ }
    applyStaticStrings();
    render();
  }

  function applyStaticStrings() {
    document.documentElement.lang = S.lang;
    var nodes = document.querySelectorAll('[data-i18n]');
    for (var i = 0; i < nodes.length; i++) setText(nodes[i], t(nodes[i].getAttribute('data-i18n')));
    var attrs = [['data-i18n-aria', 'aria-label'], ['data-i18n-title', 'title'], ['data-i18n-alt', 'alt']];
    attrs.forEach(function (pair) {
      var els = document.querySelectorAll('[' + pair[0] + ']');
      for (var j = 0; j < els.length; j++) els[j].setAttribute(pair[1], t(els[j].getAttribute(pair[0])));
    });
    var buttons = document.querySelectorAll('.lang-btn');
    for (var k = 0; k < buttons.length; k++) {
      buttons[k].setAttribute('aria-pressed', String(buttons[k].getAttribute('data-lang') === S.lang));
    }
  }

  function formatDate(iso) {
    if (!iso) return '';
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso;
    try {
      return new Intl.DateTimeFormat(S.lang === 'ko' ? 'ko-KR' : 'en-US', { dateStyle: 'long', timeStyle: 'short' }).format(d);
    } catch (e) {
      return d.toLocaleString();
    }
  }

  function formatTime(ms) {
    var d = new Date(ms);
    try {
      return new Intl.DateTimeFormat(S.lang === 'ko' ? 'ko-KR' : 'en-US', { hour: 'numeric', minute: '2-digit' }).format(d);
    } catch (e) {
      return d.toLocaleTimeString();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // API
  // ---------------------------------------------------------------------------------------------

  /** An API failure: the server's error envelope, or status 0 for a network failure. */
  function ApiFailure(status, body) {
    var e = (body && body.error) || {};
    this.status = status;
    this.code = e.code || (status === 0 ? 'network' : 'http_' + status);
    this.message = typeof e.message === 'string' ? e.message : '';
    this.param = e.param || null;
    this.request_id = e.request_id || null;
  }

  function api(method, path, body) {
    var init = {
      method: method,
      headers: { Accept: 'application/json' },
      credentials: 'same-origin',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch('/v1/signing/' + encodeURIComponent(S.token) + path, init).then(
      function (res) {
        return res.json().then(
          function (data) {
            return { res: res, data: data };
          },
          function () {
            return { res: res, data: null };
          },
        ).then(function (r) {
          if (!r.res.ok) throw new ApiFailure(r.res.status, r.data);
          // The server's clock, to turn server timestamps into local countdowns despite clock skew.
          // The Date header has whole seconds, so only a real difference (over 2 s) counts.
          var serverNow = Date.parse(r.res.headers.get('Date') || '');
          var skew = isNaN(serverNow) ? 0 : Date.now() - serverNow;
          return { data: r.data, skew: Math.abs(skew) > 2000 ? skew : 0 };
        });
      },
      function () {
        throw new ApiFailure(0, null);
      },
    );
  }

  /** Link-level failures end the session on any call: the page switches to the fatal state. */
  function isLinkFailure(err) {
    return err instanceof ApiFailure && (err.status === 404 || err.status === 410);
  }

  function failLink(err) {
    S.fatal = { kind: err.status === 410 ? 'inactive' : 'invalid', error: err };
    S.announce = 'fatal-title';
    render();
  }

  // ---------------------------------------------------------------------------------------------
  // Errors shown to the signer
  // ---------------------------------------------------------------------------------------------

  /** A localized headline for an error; the server's own message is always shown alongside. */
  function localizedError(err) {
    var m;
    switch (err.code) {
      case 'pin_incorrect':
        m = /(\d+)\s+attempt/.exec(err.message);
        return m ? t('err_pin_incorrect', { n: m[1] }) : t('err_pin_incorrect_plain');
      case 'pin_resend_cooldown':
        m = /(\d+)\s+second/.exec(err.message);
        return m ? t('err_pin_resend_cooldown', { s: m[1] }) : t('err_pin_resend_cooldown_plain');
      case 'missing_parameter':
      case 'invalid_parameter':
        if (err.param === 'signature') return t('err_missing_signature');
        if (err.param === 'seal_id' || err.param === 'seal_image') return t('err_missing_seal');
        if (err.param === 'reason') return t('err_missing_reason');
        if (err.param === 'pin') return t('err_pin_format');
        return t('err_generic');
      case 'signing_link_invalid':
      case 'signing_link_inactive':
        return t('err_link');
      case 'network':
        return t('err_network');
      default:
        if (STRINGS.ko['err_' + err.code]) return t('err_' + err.code);
        if (err.status === 429) return t('err_rate_limited');
        return t('err_generic');
    }
  }

  function renderError(el, err) {
    show(el, Boolean(err));
    while (el.firstChild) el.removeChild(el.firstChild);
    if (!err) return;
    var main = document.createElement('p');
    main.className = 'error-main';
    var fromServer = err instanceof ApiFailure && err.message;
    // English readers get the server's message as the headline; Korean readers get a Korean
    // headline and the server's message below it. Either way the server's message is visible.
    main.textContent = S.lang === 'en' && fromServer ? err.message : localizedError(err);
    el.appendChild(main);
    if (fromServer && S.lang !== 'en') {
      var detail = document.createElement('p');
      detail.className = 'error-detail';
      detail.textContent = t('serverMessage', { m: err.message });
      el.appendChild(detail);
    }
    if (err instanceof ApiFailure && err.request_id) {
      var rid = document.createElement('p');
      rid.className = 'error-rid';
      rid.textContent = t('requestId', { id: err.request_id });
      el.appendChild(rid);
    }
  }

  function clientError(code) {
    return { code: code, status: -1, message: '' };
  }

  // ---------------------------------------------------------------------------------------------
  // Loading the view
  // ---------------------------------------------------------------------------------------------

  function load() {
    S.fatal = null;
    show($('loading'), true);
    show($('fatal'), false);
    return api('GET', '')
      .then(function (r) {
        S.view = r.data;
        render();
      })
      .catch(function (err) {
        if (isLinkFailure(err)) return failLink(err);
        S.fatal = { kind: 'load', error: err };
        render();
      });
  }

  // ---------------------------------------------------------------------------------------------
  // Rendering
  // ---------------------------------------------------------------------------------------------

  function render() {
    show($('loading'), !S.view && !S.fatal);
    renderFatal();
    show($('content'), Boolean(S.view) && !S.fatal);
    if (S.view && !S.fatal) {
      renderSummary();
      var mode = renderNotice();
      renderDocument(mode);
      renderPin(mode);
      renderSign(mode);
      renderDecline(mode);
    }
    // First strong isolate … pop directional isolate: the title's own bidi controls end with it.
    document.title = S.view && !S.fatal ? t('pageTitle', { title: '\u2068' + S.view.document.title + '\u2069' }) : t('pageTitleBare');
    if (S.announce) {
      var target = $(S.announce);
      S.announce = null;
      if (target && !target.hidden && target.offsetParent !== null) {
        target.focus({ preventScroll: false });
      }
    }
  }

  function renderFatal() {
    var f = S.fatal;
    show($('fatal'), Boolean(f));
    if (!f) return;
    var kind = f.kind;
    setText($('fatal-title'), t(kind === 'inactive' ? 'inactiveTitle' : kind === 'invalid' ? 'invalidTitle' : 'loadFailedTitle'));
    setText($('fatal-text'), t(kind === 'inactive' ? 'inactiveText' : kind === 'invalid' ? 'invalidText' : 'loadFailedText'));
    var detail = '';
    if (f.error && f.error.message) detail = f.error.message;
    else if (f.error && f.error.code === 'network') detail = t('err_network');
    if (f.error && f.error.request_id) detail += (detail ? ' · ' : '') + t('requestId', { id: f.error.request_id });
    setText($('fatal-detail'), detail);
    show($('fatal-detail'), Boolean(detail));
    show($('fatal-retry'), kind === 'load');
  }

  function effectiveStatus() {
    return S.result === 'declined' ? 'declined' : S.view.document.status;
  }

  function renderSummary() {
    var v = S.view;
    var d = v.document;
    setText($('doc-title'), d.title || '');
    setText($('doc-sender'), d.author_name || '');
    show($('row-sender'), Boolean(d.author_name));
    var status = effectiveStatus();
    var badge = $('doc-status');
    setText(badge, t('status_' + status) !== 'status_' + status ? t('status_' + status) : status);
    badge.className = 'badge badge-' + status;
    var row = $('row-deadline');
    if (d.status === 'completed' && d.completed_at) {
      setText(row.querySelector('dt'), t('completedAt'));
      setText($('doc-deadline'), formatDate(d.completed_at));
      show(row, true);
    } else {
      setText(row.querySelector('dt'), t('deadline'));
      setText($('doc-deadline'), formatDate(d.expires_at));
      show(row, Boolean(d.expires_at));
    }
    var p = v.participant;
    // The name in a <bdi>: a bidi control in it (U+202E) must not reverse the role after it.
    var who = ' (' + t('role_' + p.role) + ')';
    if (p.signed_at) who += ' · ' + t('signedOn', { date: formatDate(p.signed_at) });
    var line = $('doc-participant');
    var name = line.querySelector('bdi') || document.createElement('bdi');
    setText(name, p.name);
    if (!name.parentNode) line.appendChild(name);
    if (!name.nextSibling) line.appendChild(document.createTextNode(''));
    setText(name.nextSibling, who);
    var fields = v.fields || [];
    show($('row-fields'), fields.length > 0 && p.role !== 'cc');
    if (fields.length) {
      var parts = [];
      var sig = fields.filter(function (f) { return f.type === 'signature'; }).length;
      var seal = fields.filter(function (f) { return f.type === 'seal'; }).length;
      if (sig) parts.push(t('fieldSignature', { n: sig }));
      if (seal) parts.push(t('fieldSeal', { n: seal }));
      var pages = [];
      fields.forEach(function (f) {
        if (pages.indexOf(f.page) < 0) pages.push(f.page);
      });
      pages.sort(function (a, b) { return a - b; });
      setText($('doc-fields'), parts.join(t('listSep')) + ' · ' + t('fieldPages', { pages: pages.join(', ') }));
    }
  }

  /**
   * The outcome / waiting notice. Returns the page mode that decides the other sections:
   * 'declined' | 'done' | 'info' | 'pin' | 'sign'.
   */
  function renderNotice() {
    var v = S.view;
    var p = v.participant;
    var title = null;
    var text = '';
    var extra = '';
    var mode = 'info';
    var tone = 'info';
    if (S.result === 'declined' || p.status === 'declined') {
      title = t('declinedTitle');
      text = t('declinedText');
      mode = 'declined';
      tone = 'muted';
    } else if (S.result === 'signed') {
      title = t('signedTitle');
      text = v.document.status === 'completed' ? t('allDoneTitle') : t('signedText');
      if (v.document.status === 'completed') extra = t('allDoneText');
      mode = 'done';
      tone = 'success';
    } else if (v.document.status === 'completed') {
      title = t('allDoneTitle');
      text = t('allDoneText');
      mode = 'done';
      tone = 'success';
    } else if (p.role === 'cc') {
      title = t('ccTitle');
      text = t('ccText');
    } else if (p.status === 'signed') {
      title = t('alreadySignedTitle');
      text = t('alreadySignedText');
      mode = 'done';
      tone = 'success';
    } else if (v.waiting_for_others) {
      title = t('waitingTitle');
      text = t('waitingText');
      tone = 'waiting';
    } else if (v.your_turn) {
      mode = v.can_sign ? 'sign' : v.pin_required ? 'pin' : 'info';
    } else {
      title = t('notActionableTitle');
      text = t('notActionableText');
    }
    var notice = $('notice');
    show(notice, title !== null);
    notice.className = 'card state state-' + tone;
    setText($('notice-title'), title || '');
    setText($('notice-text'), text);
    setText($('notice-extra'), extra);
    show($('notice-extra'), Boolean(extra));
    var again = $('check-again');
    show(again, title !== null && v.waiting_for_others && !S.result);
    return mode;
  }

  function renderDocument(mode) {
    // After a decline the link is inactive, so the file is gone too.
    show($('document'), mode !== 'declined');
    if (mode === 'declined') return;
    var url = '/v1/signing/' + encodeURIComponent(S.token) + '/file';
    // A completed document serves the final PDF: a new src makes the frame fetch it.
    var src = url + (S.view.document.status === 'completed' ? '?v=final' : '');
    $('open-pdf').href = src;
    if (pdfSrc !== src) {
      pdfSrc = src;
      $('pdf').src = src;
    }
  }

  function renderPin(mode) {
    var v = S.view;
    var st = S.pin;
    show($('pin-step'), mode === 'pin');
    if (mode !== 'pin') return;
    var phone = v.participant.phone_masked;
    setText($('pin-intro'), phone ? t('pinIntro', { phone: phone }) : t('pinIntroNoPhone'));
    var sendBtn = $('send-pin');
    var waitS = Math.ceil((st.resendAt - Date.now()) / 1000);
    var label;
    if (st.sending) label = t('sending');
    else if (waitS > 0) label = t('resendIn', { s: waitS });
    else label = st.sentTo || st.needNew ? t('resendPin') : t('sendPin');
    setText(sendBtn, label);
    sendBtn.disabled = st.sending || waitS > 0;
    sendBtn.className = 'btn btn-block ' + (st.sentTo && !st.needNew ? 'btn-secondary' : 'btn-primary');
    var info = $('pin-info');
    show(info, Boolean(st.sentTo));
    if (st.sentTo) {
      setText(info, st.expiresAt ? t('pinSent', { phone: st.sentTo, time: formatTime(st.expiresAt) }) : t('pinSentNoTime', { phone: st.sentTo }));
    }
    show($('pin-form'), Boolean(st.sentTo) || st.info);
    var input = $('pin-input');
    setText($('verify-pin'), st.verifying ? t('verifying') : t('verify'));
    $('verify-pin').disabled = st.verifying || !/^\d{6}$/.test(input.value);
    input.setAttribute('aria-invalid', String(Boolean(st.error) && st.error.code === 'pin_incorrect'));
    renderError($('pin-error'), st.error);
  }

  function signatureFields() {
    return (S.view.fields || []).filter(function (f) { return f.type === 'signature'; });
  }

  function sealFields() {
    return (S.view.fields || []).filter(function (f) { return f.type === 'seal'; });
  }

  /** What still stops the Sign button, as hint keys. */
  function missingForSign() {
    var missing = [];
    var sig = signatureFields();
    var seal = sealFields();
    var needsSig = sig.some(function (f) { return f.required; });
    var needsSeal = seal.some(function (f) { return f.required; });
    if (needsSig && !S.sign.hasSignature) missing.push('needSignature');
    if (needsSeal && !S.sign.seal) missing.push('needSeal');
    if (!$('consent').checked) missing.push('needConsent');
    return missing;
  }

  function renderSign(mode) {
    show($('sign-step'), mode === 'sign');
    if (mode !== 'sign') return;
    var reviewer = S.view.participant.role === 'reviewer';
    setText($('sign-heading'), t(reviewer ? 'reviewHeading' : 'signHeading'));
    var hasSig = signatureFields().length > 0;
    show($('signature-block'), hasSig);
    if (hasSig) ensurePad();
    show($('signature-placeholder'), !S.sign.hasSignature);
    show($('seal-block'), sealFields().length > 0);
    renderSealPicker();
    show($('seal-preview-wrap'), Boolean(S.sign.seal));
    if (S.sign.seal && $('seal-preview').src !== S.sign.seal) $('seal-preview').src = S.sign.seal;
    var missing = missingForSign();
    var btn = $('sign-btn');
    btn.disabled = S.sign.busy || missing.length > 0;
    setText(btn, S.sign.busy ? t('signing') : t(reviewer ? 'approve' : 'sign'));
    setText($('sign-requirements'), missing.map(function (k) { return t(k); }).join(' '));
    renderError($('sign-error'), S.sign.error);
  }

  /**
   * Hook: the organization seal picker. The signer view does not list the sending organization's
   * seals yet, so nothing renders. When it does (e.g. `view.seals: [{id, name, image_url}]`),
   * render one radio per seal into #seal-picker, keep the chosen id in S.sign.sealId and post it
   * as `seal_id` (fields with `upload_only` still need an uploaded image).
   */
  function renderSealPicker() {
    var seals = S.view && Array.isArray(S.view.seals) ? S.view.seals : [];
    show($('seal-picker'), false);
    return seals;
  }

  function renderDecline(mode) {
    var st = S.decline;
    show($('decline-step'), mode === 'sign');
    if (mode !== 'sign') return;
    show($('decline-open'), !st.open);
    show($('decline-form'), st.open);
    var reason = $('decline-reason');
    $('decline-confirm').disabled = st.busy || !reason.value.trim();
    setText($('decline-confirm'), st.busy ? t('declining') : t('declineConfirm'));
    renderError($('decline-error'), st.error);
  }

  // ---------------------------------------------------------------------------------------------
  // PIN
  // ---------------------------------------------------------------------------------------------

  function tickCountdown() {
    if (countdownTimer) return;
    countdownTimer = window.setInterval(function () {
      if (Date.now() >= S.pin.resendAt) {
        window.clearInterval(countdownTimer);
        countdownTimer = null;
      }
      render();
    }, 1000);
  }

  function sendPin() {
    var st = S.pin;
    if (st.sending) return;
    st.sending = true;
    st.error = null;
    render();
    api('POST', '/pin')
      .then(function (r) {
        st.sentTo = r.data.sent_to || S.view.participant.phone_masked || '';
        var expires = Date.parse(r.data.expires_at || '');
        st.expiresAt = isNaN(expires) ? null : expires + r.skew;
        var resend = Date.parse(r.data.resend_available_at || '');
        st.resendAt = isNaN(resend) ? 0 : resend + r.skew;
        st.needNew = false;
        $('pin-input').value = '';
        S.announce = 'pin-input';
        tickCountdown();
      })
      .catch(function (err) {
        if (isLinkFailure(err)) return failLink(err);
        st.error = err;
        if (err.code === 'pin_resend_cooldown') {
          // A PIN was sent moments ago (another tab, a reload): let the signer enter it.
          var m = /(\d+)\s+second/.exec(err.message);
          st.resendAt = Date.now() + (m ? Number(m[1]) : 60) * 1000;
          st.info = true;
          tickCountdown();
        }
      })
      .then(function () {
        st.sending = false;
        render();
      });
  }

  function verifyPin(ev) {
    if (ev) ev.preventDefault();
    var st = S.pin;
    var pin = $('pin-input').value;
    if (st.verifying) return;
    if (!/^\d{6}$/.test(pin)) {
      st.error = clientError('pin_format');
      render();
      return;
    }
    st.verifying = true;
    st.error = null;
    render();
    api('POST', '/verify', { pin: pin })
      .then(function () {
        return api('GET', '').then(function (r) {
          S.view = r.data;
          S.announce = 'sign-heading';
        });
      })
      .catch(function (err) {
        if (isLinkFailure(err)) return failLink(err);
        st.error = err;
        if (err.code === 'pin_locked' || err.code === 'pin_expired' || err.code === 'pin_not_requested') {
          st.needNew = true;
          $('pin-input').value = '';
        } else {
          $('pin-input').select();
        }
      })
      .then(function () {
        st.verifying = false;
        render();
      });
  }

  function onPinInput() {
    var input = $('pin-input');
    var digits = input.value.replace(/\D+/g, '').slice(0, 6);
    if (digits !== input.value) input.value = digits;
    $('verify-pin').disabled = S.pin.verifying || digits.length !== 6;
  }

  // ---------------------------------------------------------------------------------------------
  // Signature pad
  // ---------------------------------------------------------------------------------------------

  function ensurePad() {
    if (pad) return;
    if (typeof window.SignaturePad !== 'function') return;
    var canvas = $('signature-canvas');
    pad = new window.SignaturePad(canvas, { minWidth: 0.8, maxWidth: 2.6, penColor: '#111827', velocityFilterWeight: 0.7 });
    pad.addEventListener('beginStroke', function () {
      show($('signature-placeholder'), false);
    });
    pad.addEventListener('endStroke', function () {
      S.sign.hasSignature = !pad.isEmpty();
      S.sign.error = null;
      renderSign('sign');
    });
    resizeCanvas();
    if ('ResizeObserver' in window) {
      new ResizeObserver(function () { resizeCanvas(); }).observe($('signature-wrap'));
    } else {
      window.addEventListener('resize', resizeCanvas);
    }
    watchPixelRatio();
  }

  /** Sizes the backing store to CSS size × devicePixelRatio and keeps the strokes drawn so far. */
  function resizeCanvas() {
    if (!pad) return;
    var canvas = $('signature-canvas');
    var ratio = Math.max(window.devicePixelRatio || 1, 1);
    var w = canvas.offsetWidth;
    var h = canvas.offsetHeight;
    if (!w || !h) return; // hidden: sized when it shows
    var bw = Math.round(w * ratio);
    var bh = Math.round(h * ratio);
    if (canvas.width === bw && canvas.height === bh) return;
    var strokes = pad.toData();
    canvas.width = bw;
    canvas.height = bh;
    canvas.getContext('2d').scale(ratio, ratio);
    pad.clear();
    if (strokes.length) pad.fromData(strokes);
  }

  function watchPixelRatio() {
    if (!window.matchMedia) return;
    var mq = window.matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
    var onChange = function () {
      if (mq.removeEventListener) mq.removeEventListener('change', onChange);
      resizeCanvas();
      watchPixelRatio();
    };
    if (mq.addEventListener) mq.addEventListener('change', onChange);
  }

  function clearSignature() {
    if (pad) pad.clear();
    S.sign.hasSignature = false;
    renderSign('sign');
  }

  /** The drawn signature as a PNG data URL, cropped to the ink so it fills the field box. */
  function signatureDataUrl() {
    if (!pad || pad.isEmpty()) return null;
    var canvas = $('signature-canvas');
    var w = canvas.width;
    var h = canvas.height;
    var pixels = canvas.getContext('2d').getImageData(0, 0, w, h).data;
    var minX = w;
    var minY = h;
    var maxX = -1;
    var maxY = -1;
    for (var y = 0; y < h; y++) {
      var row = y * w * 4;
      for (var x = 0; x < w; x++) {
        if (pixels[row + x * 4 + 3] !== 0) {
          if (x < minX) minX = x;
          if (x > maxX) maxX = x;
          if (y < minY) minY = y;
          maxY = y;
        }
      }
    }
    if (maxX < 0) return null;
    var padPx = Math.round(4 * Math.max(window.devicePixelRatio || 1, 1));
    minX = Math.max(0, minX - padPx);
    minY = Math.max(0, minY - padPx);
    maxX = Math.min(w - 1, maxX + padPx);
    maxY = Math.min(h - 1, maxY + padPx);
    var out = document.createElement('canvas');
    out.width = maxX - minX + 1;
    out.height = maxY - minY + 1;
    out.getContext('2d').drawImage(canvas, minX, minY, out.width, out.height, 0, 0, out.width, out.height);
    return out.toDataURL('image/png');
  }

  // ---------------------------------------------------------------------------------------------
  // Seal image
  // ---------------------------------------------------------------------------------------------

  function onSealFile() {
    var input = $('seal-file');
    var file = input.files && input.files[0];
    S.sign.error = null;
    if (!file) {
      S.sign.seal = null;
      renderSign('sign');
      return;
    }
    if (file.type !== 'image/png' && file.type !== 'image/jpeg') {
      S.sign.seal = null;
      input.value = '';
      S.sign.error = clientError('unsupported_file_type');
      renderSign('sign');
      return;
    }
    if (file.size > SEAL_MAX_BYTES) {
      S.sign.seal = null;
      input.value = '';
      S.sign.error = clientError('file_too_large');
      renderSign('sign');
      return;
    }
    var reader = new FileReader();
    reader.onload = function () {
      S.sign.seal = typeof reader.result === 'string' ? reader.result : null;
      renderSign('sign');
    };
    reader.onerror = function () {
      S.sign.seal = null;
      S.sign.error = clientError('file_read');
      renderSign('sign');
    };
    reader.readAsDataURL(file);
  }

  function removeSeal() {
    S.sign.seal = null;
    $('seal-file').value = '';
    $('seal-preview').removeAttribute('src');
    renderSign('sign');
  }

  // ---------------------------------------------------------------------------------------------
  // Sign and decline
  // ---------------------------------------------------------------------------------------------


  /**
   * Embedded signing: after signing or declining, the sender's page (the participant's https
   * redirect_url) gets the signer back with the outcome in the query string. Never the token: the
   * target is another site (and the page sends no Referer).
   */
  function redirectAfter(outcome, view) {
    var target = view && view.participant && view.participant.redirect_url;
    if (!target) return;
    var url;
    try {
      url = new URL(target);
    } catch (e) {
      return;
    }
    if (url.protocol !== 'https:') return;
    url.searchParams.set('dojang_event', outcome);
    url.searchParams.set('document_id', view.document.id);
    url.searchParams.set('participant_id', view.participant.id);
    window.location.assign(url.toString());
  }
  function sign() {
    var st = S.sign;
    if (st.busy || missingForSign().length) return;
    var body = { consent: $('consent').checked === true };
    if (signatureFields().length) {
      var png = signatureDataUrl();
      if (png) body.signature = png;
    }
    if (sealFields().length && st.seal) body.seal_image = st.seal;
    st.busy = true;
    st.error = null;
    render();
    var before = S.view;
    api('POST', '/sign', body)
      .then(function (r) {
        S.view = r.data;
        S.result = 'signed';
        S.announce = 'notice-title';
        redirectAfter('signed', before);
      })
      .catch(function (err) {
        if (isLinkFailure(err)) return failLink(err);
        st.error = err;
        // The PIN may have been used or reset elsewhere: refresh what the server thinks.
        if (err.code === 'pin_verification_required' || err.code === 'not_your_turn' || err.code === 'participant_already_signed') {
          return api('GET', '').then(function (r) { S.view = r.data; }, function () { /* keep the error shown */ });
        }
      })
      .then(function () {
        st.busy = false;
        render();
      });
  }

  function openDecline() {
    S.decline.open = true;
    S.decline.error = null;
    render();
    $('decline-reason').focus();
  }

  function cancelDecline() {
    S.decline.open = false;
    S.decline.error = null;
    render();
    $('decline-open').focus();
  }

  function confirmDecline(ev) {
    if (ev) ev.preventDefault();
    var st = S.decline;
    var reason = $('decline-reason').value.trim();
    if (st.busy) return;
    if (!reason) {
      st.error = clientError('missing_reason');
      render();
      return;
    }
    st.busy = true;
    st.error = null;
    render();
    api('POST', '/decline', { reason: reason })
      .then(function () {
        S.result = 'declined';
        S.announce = 'notice-title';
        redirectAfter('declined', S.view);
      })
      .catch(function (err) {
        if (isLinkFailure(err)) return failLink(err);
        st.error = err;
      })
      .then(function () {
        st.busy = false;
        render();
      });
  }

  // ---------------------------------------------------------------------------------------------
  // Start
  // ---------------------------------------------------------------------------------------------

  function addCheckAgainButton() {
    // The "check again" button lives in the notice; built here to keep index.html declarative.
    var btn = document.createElement('button');
    btn.type = 'button';
    btn.id = 'check-again';
    btn.className = 'btn btn-secondary';
    btn.setAttribute('data-i18n', 'checkAgain');
    btn.hidden = true;
    btn.addEventListener('click', function () {
      btn.disabled = true;
      api('GET', '')
        .then(function (r) { S.view = r.data; }, function (err) {
          if (isLinkFailure(err)) failLink(err);
        })
        .then(function () {
          btn.disabled = false;
          render();
        });
    });
    $('notice').appendChild(btn);
  }

  function start() {
    addCheckAgainButton();
    S.lang = initialLang();
    applyStaticStrings();

    var buttons = document.querySelectorAll('.lang-btn');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener('click', function (ev) {
        setLang(ev.currentTarget.getAttribute('data-lang'));
      });
    }
    $('fatal-retry').addEventListener('click', load);
    $('send-pin').addEventListener('click', sendPin);
    $('pin-form').addEventListener('submit', verifyPin);
    $('pin-input').addEventListener('input', onPinInput);
    $('clear-signature').addEventListener('click', clearSignature);
    $('seal-file').addEventListener('change', onSealFile);
    $('seal-remove').addEventListener('click', removeSeal);
    $('consent').addEventListener('change', function () {
      S.sign.error = null;
      renderSign('sign');
    });
    $('sign-btn').addEventListener('click', sign);
    $('decline-open').addEventListener('click', openDecline);
    $('decline-cancel').addEventListener('click', cancelDecline);
    $('decline-form').addEventListener('submit', confirmDecline);
    $('decline-reason').addEventListener('input', function () {
      $('decline-confirm').disabled = S.decline.busy || !$('decline-reason').value.trim();
    });

    var m = /^\/sign\/([^/]+)\/?$/.exec(location.pathname);
    try {
      S.token = m ? decodeURIComponent(m[1]) : '';
    } catch (e) {
      S.token = ''; // malformed %-escapes: not a link we issued
    }
    if (!S.token) {
      S.fatal = { kind: 'invalid', error: null };
      render();
      return;
    }
    load();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
