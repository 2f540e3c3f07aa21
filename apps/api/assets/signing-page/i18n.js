/*
 * Every visible string, Korean by default and English on request, and the formatting of dates.
 * Strings go in with textContent only (the page shows server data under a strict CSP).
 */
import { S, render, setText } from './state.js';

export var STRINGS = {
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
    readHintSign: '서명하기 전에 문서 전체를 읽어 주세요. 파란 칸을 누르면 입력할 수 있고, "확대"나 "PDF 열기"로 크게 볼 수 있습니다.',
    readHintWaiting: '서명할 차례가 되기 전에 문서를 미리 읽어 볼 수 있습니다.',
    readHintSigned: '서명하신 문서입니다. 모든 참여자가 서명하면 완료된 문서를 받을 수 있습니다.',
    readHintCompleted: '모든 참여자가 서명한 최종 문서입니다.',
    readHintCc: '참조용으로 받은 문서입니다.',
    readHintClosed: '지금은 이 문서를 읽기만 할 수 있습니다.',
    pagesLabel: '문서 쪽',
    pageAlt: '문서 {n}쪽 (전체 {count}쪽)',
    partHeading: '문서 {n}/{count} · {title}',
    fieldSignatureOn: '{page}쪽 서명 칸',
    fieldSealOn: '{page}쪽 도장 칸',
    fieldFilled: '입력됨',
    fieldEmpty: '눌러서 입력',
    nextField: '다음 입력 칸 ({n}개 남음)',
    nextFieldDone: '모든 칸 입력 완료',
    zoomIn: '확대',
    zoomOut: '축소',
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
    allDoneText: '서명이 완료된 문서를 내려받아 보관해 주세요.',
    signedAllDoneTitle: '서명 완료: 모든 서명이 끝났습니다',
    downloadFinal: '완료된 문서 내려받기 (PDF)',
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
    invalidText: '주소가 정확한지 확인해 주세요. 새 링크를 받았다면 가장 최근에 받은 링크를 사용하고, 그래도 안 되면 보낸 사람에게 새 링크를 요청해 주세요.',
    inactiveTitle: '더 이상 사용할 수 없는 링크입니다',
    inactiveText: '서명 요청이 취소 또는 거부되었거나 기한이 지났습니다. 자세한 내용은 보낸 사람에게 문의해 주세요.',
    canceledTitle: '서명 요청이 취소되었습니다',
    canceledText: '보낸 사람이 이 서명 요청을 취소해 더 이상 서명할 수 없습니다. 자세한 내용은 보낸 사람에게 문의해 주세요.',
    declinedLinkTitle: '서명이 거부된 문서입니다',
    declinedLinkText: '참여자 중 한 명이 서명을 거부해 이 서명 요청이 중단되었습니다.',
    expiredTitle: '서명 기한이 지났습니다',
    expiredText: '서명 기한이 지나 더 이상 서명할 수 없습니다. 새 요청이 필요하면 보낸 사람에게 문의해 주세요.',
    deletedTitle: '삭제된 문서입니다',
    deletedText: '보낸 사람이 이 문서를 삭제했습니다.',
    replacedTitle: '새 링크로 바뀐 링크입니다',
    replacedText: '보낸 사람이 서명 요청을 고쳐 새 링크를 보냈습니다. 가장 최근에 받은 메시지의 링크를 열어 주세요.',
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
    err_signing_link_locked: '인증번호를 여러 번 잘못 입력해 이 서명 링크가 잠겼습니다. 보낸 사람에게 서명 요청을 다시 보내 달라고 해 주세요.',
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
    fieldOn: '{page}쪽 {name} 칸',
    otherField: '참여자 {n}의 {name} 칸 (다른 참여자가 입력)',
    autoAtSign: '서명할 때 자동 입력',
    attachmentDone: '첨부됨',
    attachmentHint: '{types} 파일, {mb}MB 이하',
    attachmentPick: '파일 선택',
    attachmentCamera: '카메라로 촬영',
    attachmentCurrent: '첨부한 파일: {name}',
    uploading: '올리는 중…',
    fieldValueLabel: '{name} ({page}쪽)',
    choose: '선택하세요',
    save: '저장',
    hintRequired: '필수',
    hintMaxLength: '최대 {n}자',
    hintRange: '{min}부터 {max}까지',
    ruleRequired: '이 칸은 필수입니다. 값을 입력해 주세요.',
    ruleRequiredCheck: '필수 체크 항목입니다. 체크해 주세요.',
    ruleRadio: '선택 항목 중 하나를 골라 주세요.',
    ruleMinChecked: '이 묶음에서 {n}개 이상 체크해 주세요.',
    ruleMaxChecked: '이 묶음에서는 {n}개까지만 체크할 수 있습니다.',
    ruleMaxLength: '{n}자 이하로 입력해 주세요.',
    ruleSingleLine: '한 줄로 입력해 주세요.',
    rulePattern: '입력 형식이 맞지 않습니다.',
    rulePatternMessage: '{m}',
    ruleNumber: '숫자만 입력해 주세요 (예: 1234, -12.5, 쉼표 없이).',
    ruleWhole: '소수점 없는 정수로 입력해 주세요.',
    ruleDecimals: '소수점 아래 {n}자리까지 입력할 수 있습니다.',
    ruleMin: '{n} 이상이어야 합니다.',
    ruleMax: '{n} 이하여야 합니다.',
    ruleDate: '날짜를 선택해 주세요.',
    ruleOption: '목록에서 하나를 선택해 주세요.',
    needFields: '입력할 칸을 모두 채워 주세요.',
    type_signature: '서명',
    type_seal: '도장',
    type_initials: '이니셜',
    type_text: '텍스트',
    type_number: '숫자',
    type_date: '날짜',
    type_signing_date: '서명일',
    type_checkbox: '체크박스',
    type_radio: '선택',
    type_dropdown: '목록 선택',
    type_name: '이름',
    type_email: '이메일',
    type_phone: '전화번호',
    type_attachment: '첨부 파일',
    sigModes: '서명 방법',
    sigDraw: '직접 그리기',
    sigType: '이름 입력하기',
    typedLabel: '서명으로 쓸 이름',
    typedHint: '입력한 이름이 손글씨 서체로 서명 칸에 들어갑니다.',
    typedPreview: '입력한 서명 미리보기',
    fieldValues: '입력 {n}개',
    err_attachment_type: '허용되지 않는 파일 형식입니다. 안내된 형식의 파일을 선택해 주세요.',
    err_attachment_too_large: '파일이 너무 큽니다. 안내된 크기 이하의 파일을 선택해 주세요.',
    err_field_value_invalid: '입력한 값이 올바르지 않습니다. 표시된 칸을 확인해 주세요.',
    err_field_value_required: '필수 칸이 비어 있습니다. 표시된 칸을 채워 주세요.',
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
    readHintSign: 'Please read the whole document before signing. Tap a blue box to fill it; use "Zoom in" or "Open PDF" to see it larger.',
    readHintWaiting: 'You can read the document before it is your turn to sign.',
    readHintSigned: 'You signed this document. Once everyone has signed, the completed document is available here.',
    readHintCompleted: 'The final document, signed by every participant.',
    readHintCc: 'A copy of the document for your information.',
    readHintClosed: 'For now you can only read this document.',
    pagesLabel: 'Document pages',
    pageAlt: 'Page {n} of {count} of the document',
    partHeading: 'Part {n} of {count}: {title}',
    fieldSignatureOn: 'Signature field, page {page}',
    fieldSealOn: 'Seal field, page {page}',
    fieldFilled: 'filled',
    fieldEmpty: 'tap to fill',
    nextField: 'Next field ({n} left)',
    nextFieldDone: 'All fields filled',
    zoomIn: 'Zoom in',
    zoomOut: 'Zoom out',
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
    allDoneText: 'Download the completed document and keep it.',
    signedAllDoneTitle: 'Signed: all signatures are complete',
    downloadFinal: 'Download the completed document (PDF)',
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
    invalidText: 'Check the address. If you received a newer link, use the most recent one; otherwise ask the sender for a new link.',
    inactiveTitle: 'This link is no longer active',
    inactiveText: 'The signature request was canceled or declined, or its deadline has passed. Please contact the sender.',
    canceledTitle: 'This signature request was canceled',
    canceledText: 'The sender canceled this signature request, so it can no longer be signed. Please contact the sender for details.',
    declinedLinkTitle: 'This document was declined',
    declinedLinkText: 'A participant declined to sign, so this signature request has been stopped.',
    expiredTitle: 'The signing deadline has passed',
    expiredText: 'The deadline passed, so this document can no longer be signed. Ask the sender if you need a new request.',
    deletedTitle: 'This document was deleted',
    deletedText: 'The sender deleted this document.',
    replacedTitle: 'This link was replaced',
    replacedText: 'The sender corrected the signature request and sent you a new link. Open the link in the most recent message.',
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
    err_signing_link_locked: 'Too many wrong PINs: this signing link is locked. Ask the sender to send the request again.',
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
    fieldOn: '{name} field, page {page}',
    otherField: '{name} field of participant {n} (filled by them)',
    autoAtSign: 'filled in when you sign',
    attachmentDone: 'attached',
    attachmentHint: '{types}, up to {mb} MB',
    attachmentPick: 'Choose a file',
    attachmentCamera: 'Take a photo',
    attachmentCurrent: 'Attached: {name}',
    uploading: 'Uploading…',
    fieldValueLabel: '{name} (page {page})',
    choose: 'Choose…',
    save: 'Save',
    hintRequired: 'required',
    hintMaxLength: 'up to {n} characters',
    hintRange: 'from {min} to {max}',
    ruleRequired: 'This field is required.',
    ruleRequiredCheck: 'This box must be checked.',
    ruleRadio: 'Choose one of the options.',
    ruleMinChecked: 'Check at least {n} boxes in this group.',
    ruleMaxChecked: 'At most {n} boxes can be checked in this group.',
    ruleMaxLength: 'Use at most {n} characters.',
    ruleSingleLine: 'Use a single line.',
    rulePattern: 'The value does not have the expected format.',
    rulePatternMessage: '{m}',
    ruleNumber: 'Enter a number such as 1234 or -12.5 (no separators).',
    ruleWhole: 'Enter a whole number.',
    ruleDecimals: 'Use at most {n} decimal places.',
    ruleMin: 'Must be at least {n}.',
    ruleMax: 'Must be at most {n}.',
    ruleDate: 'Choose a date.',
    ruleOption: 'Choose one of the options.',
    needFields: 'Fill in every required field.',
    type_signature: 'Signature',
    type_seal: 'Seal',
    type_initials: 'Initials',
    type_text: 'Text',
    type_number: 'Number',
    type_date: 'Date',
    type_signing_date: 'Signing date',
    type_checkbox: 'Checkbox',
    type_radio: 'Option',
    type_dropdown: 'Choice',
    type_name: 'Name',
    type_email: 'Email',
    type_phone: 'Phone',
    type_attachment: 'Attachment',
    sigModes: 'How to sign',
    sigDraw: 'Draw',
    sigType: 'Type my name',
    typedLabel: 'Name to sign with',
    typedHint: 'Your name goes into the signature field in a handwriting font.',
    typedPreview: 'Preview of the typed signature',
    fieldValues: '{n} to fill in',
    err_attachment_type: 'This file type is not accepted. Choose a file of the listed types.',
    err_attachment_too_large: 'The file is too large. Choose a smaller file.',
    err_field_value_invalid: 'A value was refused. Check the marked field.',
    err_field_value_required: 'A required field is empty. Fill in the marked field.',
    err_generic: 'The request could not be completed.',
  },
};

var LANG_KEY = 'dojang.signing.lang';

export function t(key, vars) {
  var table = STRINGS[S.lang] || STRINGS.ko;
  var s = Object.prototype.hasOwnProperty.call(table, key) ? table[key] : STRINGS.ko[key] || key;
  if (vars) {
    s = s.replace(/\{(\w+)\}/g, function (m, name) {
      return Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : m;
    });
  }
  return s;
}

export function initialLang() {
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

export function setLang(lang) {
  S.lang = lang === 'en' ? 'en' : 'ko';
  try {
    window.localStorage.setItem(LANG_KEY, S.lang);
  } catch (e) { /* storage blocked */ }
  applyStaticStrings();
  render();
}

export function applyStaticStrings() {
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

/** Names Intl does not abbreviate in English (it says GMT+9): the ones the server names by hand too (zoned-time.ts). */
var ZONE_NAMES = { 'Asia/Seoul': 'KST', 'Asia/Tokyo': 'JST', 'Asia/Shanghai': 'CST', 'Asia/Singapore': 'SGT', 'Asia/Hong_Kong': 'HKT', 'Asia/Taipei': 'CST', UTC: 'UTC', 'Etc/UTC': 'UTC' };

/** The organization's zone, as the session names it (the browser's own when it does not). */
function orgZone() {
  return (S.view && S.view.sender && S.view.sender.time_zone) || undefined;
}

/**
 * The zone's name at that instant, as messages and the certificate write it: KST, EST or EDT;
 * where English has no abbreviation, the IANA name itself (Europe/Istanbul), never a bare offset.
 */
export function zoneLabel(d, zone) {
  if (!zone) return '';
  if (ZONE_NAMES[zone]) return ZONE_NAMES[zone];
  try {
    var parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'short' }).formatToParts(d);
    for (var i = 0; i < parts.length; i++) {
      if (parts[i].type === 'timeZoneName' && /^[A-Z]{2,5}$/.test(parts[i].value)) return parts[i].value;
    }
  } catch (e) {
    /* an unknown zone: its name below */
  }
  return zone;
}

export function formatDate(iso) {
  if (!iso) return '';
  var d = new Date(iso);
  if (isNaN(d.getTime())) return iso;
  var zone = orgZone();
  try {
    // In the organization's zone, with the zone named (e.g. "December 10, 2026 at 11:59 PM (EST)").
    var text = new Intl.DateTimeFormat(S.lang === 'ko' ? 'ko-KR' : 'en-US', { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: zone }).format(d);
    return zone ? text + ' (' + zoneLabel(d, zone) + ')' : text;
  } catch (e) {
    return d.toLocaleString();
  }
}

export function formatTime(ms) {
  var d = new Date(ms);
  var zone = orgZone();
  try {
    var text = new Intl.DateTimeFormat(S.lang === 'ko' ? 'ko-KR' : 'en-US', { hour: 'numeric', minute: '2-digit', timeZone: zone }).format(d);
    return zone ? text + ' (' + zoneLabel(d, zone) + ')' : text;
  } catch (e) {
    return d.toLocaleTimeString();
  }
}
