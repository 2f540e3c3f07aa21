// The verify page: sends the chosen (or dropped) PDF to POST /v1/verify and shows the verdict.
// Text only through textContent: nothing from the answer is ever parsed as HTML.
const STRINGS = {
  ko: {
    skip: '본문으로 건너뛰기',
    brand: 'Dojang 문서 검증',
    title: '전자계약 문서 검증',
    intro: 'Dojang으로 서명을 마친 PDF를 올리면 이 서비스가 발급한 문서인지, 발급된 뒤 바뀌지 않았는지, 서명과 타임스탬프가 유효한지 확인합니다.',
    fileLabel: 'PDF 파일 선택',
    fileHint: '파일을 이 칸에 끌어다 놓아도 됩니다. 파일은 저장되지 않고 해시(SHA-256)만 표시됩니다. 최대 32MB.',
    verify: '검증하기',
    choose: '먼저 PDF 파일을 선택해 주세요.',
    checking: '검증하는 중…',
    done: '검증을 마쳤습니다.',
    issued_unchanged: '이 서비스가 발급한 원본 그대로입니다',
    issued_unchanged_text: '이 파일은 이 서비스가 발급한 그대로이며 한 바이트도 바뀌지 않았습니다.',
    issued_signature_invalid: '발급된 원본이지만 서명이 유효하지 않습니다',
    issued_signature_invalid_text: '이 파일은 이 서비스가 발급한 그대로이지만, 서명한 인증서가 서명 시각에 폐지되었거나 유효 기간 밖이었거나 폐지 여부를 확인할 수 없습니다. 서명을 믿지 마세요.',
    fingerprint: '인증서 지문(SHA-256)',
    chainOf: '인증서 체인',
    provenAt: '존재가 증명된 시각',
    problem: '문제',
    revocationOf: '폐지 여부',
    trusted: '신뢰 앵커까지 인증서 체인이 이어집니다',
    untrusted: '신뢰할 수 있는 발급자로 확인되지 않았습니다 (untrusted issuer)',
    altered: '변경된 문서입니다',
    altered_text: '이 파일에는 이 서비스의 서명(또는 봉인한 문서 기록)이 있지만 발급된 뒤 내용이 바뀌었습니다. 원본으로 믿지 마세요.',
    not_issued: '이 서비스가 발급한 문서가 아닙니다',
    not_issued_text: '이 서비스가 발급한 어떤 최종 문서와도 일치하지 않습니다. 다른 서비스에서 만들었거나 전혀 다른 파일일 수 있습니다.',
    signatures: '서명',
    noSignatures: '서명이 없습니다.',
    signature: '서명',
    documentTimestamp: '문서 타임스탬프',
    valid: '유효',
    invalid: '유효하지 않음',
    byUs: '이 서비스의 인증서',
    byOther: '다른 인증서',
    wholeFile: '파일 전체를 덮음',
    earlierRevision: '이전 판을 덮음',
    timestamp: '타임스탬프',
    ltv: '장기 검증(LTV) 자료',
    dss: 'DSS',
    revocation: '폐지 확인 자료(OCSP/CRL)',
    present: '있음',
    absent: '없음',
    hash: '파일 해시(SHA-256)',
    document: '문서',
    docTitle: '제목',
    completedAt: '완료 시각',
    chain: '이벤트 기록 체인',
    chainOk: '검증됨',
    chainBad: '검증 실패',
    testMode: '테스트 모드 문서입니다 (실제 계약이 아님).',
    participants: '참여자',
    signedAt: '서명',
    notSigned: '서명 안 함',
    role_signer: '서명자',
    role_reviewer: '검토자',
    role_cc: '참조',
    err_file_too_large: '파일이 너무 큽니다 (최대 32MB).',
    err_unsupported_file_type: 'PDF 파일이 아니거나 암호가 걸린 PDF라 검증할 수 없습니다.',
    err_file_too_complex: '이 PDF는 너무 크거나 복잡해서 검증할 수 없습니다.',
    err_rate_limit_error: '요청이 너무 많습니다. 잠시 후 다시 시도해 주세요.',
    err_network: '서버에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요.',
    err_generic: '검증하지 못했습니다.',
    footer: '결과는 이 서버가 발급한 문서에 대한 것입니다. 증거 번들은 dojang-verify로 오프라인에서도 검증할 수 있습니다.',
    pageTitle: 'Dojang 문서 검증',
  },
  en: {
    skip: 'Skip to content',
    brand: 'Dojang document check',
    title: 'Verify a signed document',
    intro: 'Drop a PDF signed with Dojang to check whether this service issued it, whether it is unchanged since, and whether its signatures and timestamps are valid.',
    fileLabel: 'Choose a PDF',
    fileHint: 'You can also drop the file on this box. It is not kept: only its hash (SHA-256) is shown. At most 32 MB.',
    verify: 'Verify',
    choose: 'Choose a PDF file first.',
    checking: 'Checking…',
    done: 'Check complete.',
    issued_unchanged: 'Issued by this service, unchanged',
    issued_unchanged_text: 'This file is exactly as this service issued it: not a byte has changed.',
    issued_signature_invalid: 'Issued by this service, but its signature does not hold',
    issued_signature_invalid_text: 'This file is exactly as this service issued it, but the certificate that signed it was revoked or outside its validity at the signature\'s time, or its revocation cannot be established. Do not rely on the signature.',
    fingerprint: 'Certificate SHA-256',
    chainOf: 'Chain',
    provenAt: 'Proven to exist at',
    problem: 'Problem',
    revocationOf: 'Revocation',
    trusted: 'the chain reaches a trust anchor this service is configured with',
    untrusted: 'untrusted issuer: the chain reaches no trust anchor this service is configured with',
    altered: 'This document was altered',
    altered_text: "This file carries this service's signature (or a document record it sealed), but its bytes changed after it was issued. Do not rely on it as the original.",
    not_issued: 'Not issued by this service',
    not_issued_text: 'It matches no final document this service issued. It may come from another service, or be another file altogether.',
    signatures: 'Signatures',
    noSignatures: 'No signatures.',
    signature: 'Signature',
    documentTimestamp: 'Document timestamp',
    valid: 'valid',
    invalid: 'not valid',
    byUs: "this service's certificate",
    byOther: 'another certificate',
    wholeFile: 'covers the whole file',
    earlierRevision: 'covers an earlier revision',
    timestamp: 'timestamp',
    ltv: 'Long-term validation (LTV) material',
    dss: 'DSS',
    revocation: 'revocation data (OCSP/CRL)',
    present: 'present',
    absent: 'none',
    hash: 'File hash (SHA-256)',
    document: 'Document',
    docTitle: 'Title',
    completedAt: 'Completed',
    chain: 'Event log chain',
    chainOk: 'verified',
    chainBad: 'verification failed',
    testMode: 'A test-mode document (not a real contract).',
    participants: 'Participants',
    signedAt: 'signed',
    notSigned: 'did not sign',
    role_signer: 'signer',
    role_reviewer: 'reviewer',
    role_cc: 'cc',
    err_file_too_large: 'The file is too large (at most 32 MB).',
    err_unsupported_file_type: 'This is not a PDF, or it is an encrypted PDF, and cannot be checked.',
    err_file_too_complex: 'This PDF is too large or complex to check.',
    err_rate_limit_error: 'Too many requests. Try again in a minute.',
    err_network: 'The server cannot be reached. Try again shortly.',
    err_generic: 'The file could not be checked.',
    footer: 'The result concerns documents this server issued. Evidence bundles can also be checked offline with dojang-verify.',
    pageTitle: 'Dojang document check',
  },
};

const $ = (id) => document.getElementById(id);
let lang = (navigator.language || 'ko').toLowerCase().startsWith('ko') ? 'ko' : 'en';
let last = null;
const t = (key) => STRINGS[lang][key] ?? STRINGS.ko[key] ?? key;

function when(iso) {
  if (!iso) return '';
  // Contracts here are Korean: Seoul time, with the zone named so nobody reads it as local.
  return new Intl.DateTimeFormat(lang === 'ko' ? 'ko-KR' : 'en-GB', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Seoul', timeZoneName: 'short' }).format(new Date(iso));
}

function applyLanguage() {
  document.documentElement.lang = lang;
  document.title = t('pageTitle');
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const btn of document.querySelectorAll('.lang-btn')) btn.setAttribute('aria-pressed', String(btn.dataset.lang === lang));
  if (last) render(last, false);
}

function item(text) {
  const li = document.createElement('li');
  li.textContent = text;
  return li;
}

function render(result, focus = true) {
  last = result;
  const verdict = $('verdict');
  verdict.textContent = t(result.verdict);
  verdict.className = `verdict verdict-${result.verdict}`;
  $('verdict-text').textContent = t(`${result.verdict}_text`);
  const sigs = $('signatures');
  sigs.replaceChildren();
  if (result.signatures.length === 0) sigs.append(item(t('noSignatures')));
  for (const s of result.signatures) {
    const parts = [
      `${t(s.kind === 'document_timestamp' ? 'documentTimestamp' : 'signature')}: ${t(s.valid ? 'valid' : 'invalid')}`,
      s.signer ? `${s.signer} (${t(s.by_this_service ? 'byUs' : 'byOther')})` : null,
      t(s.covers_whole_file ? 'wholeFile' : 'earlierRevision'),
      s.timestamp ? `${t('timestamp')} ${t(s.timestamp.valid ? 'valid' : 'invalid')}${s.timestamp.time ? ` ${when(s.timestamp.time)}` : ''}` : null,
      s.proven_at ? `${t('provenAt')} ${when(s.proven_at)}` : null,
      s.certificate_sha256 ? `${t('fingerprint')} ${s.certificate_sha256}` : null,
      s.chain && s.chain.length > 1 ? `${t('chainOf')}: ${s.chain.map((c) => c.subject).join(' ← ')}` : null,
      s.revocation ? `${t('revocationOf')}: ${s.revocation}` : null,
      // Trust is said either way: without a configured anchor the page never implies it.
      s.trusted === true ? t('trusted') : s.trusted === false ? t('untrusted') : null,
      s.standing_problem ? `${t('problem')}: ${s.standing_problem}` : null,
    ];
    sigs.append(item(parts.filter(Boolean).join(' · ')));
  }
  const l = result.ltv;
  $('ltv').textContent = `${t('dss')} ${t(l.dss ? 'present' : 'absent')} · ${t('revocation')} ${t(l.revocation_data ? 'present' : 'absent')} · ${t('documentTimestamp')} ${t(l.document_timestamp ? 'present' : 'absent')}`;
  $('sha256').textContent = result.sha256;
  const doc = result.document;
  $('document').hidden = !doc;
  if (doc) {
    $('doc-title').textContent = doc.title;
    $('doc-completed').textContent = when(doc.completed_at);
    $('doc-chain').textContent = t(doc.chain_verified ? 'chainOk' : 'chainBad');
    $('doc-test').hidden = doc.livemode;
    const people = $('participants');
    people.replaceChildren();
    for (const p of doc.participants) {
      const contact = [p.phone_masked, p.email_masked].filter(Boolean).join(', ');
      const signed = p.signed_at ? `${t('signedAt')} ${when(p.signed_at)}` : t('notSigned');
      people.append(item(`${p.name} (${t(`role_${p.role}`)})${contact ? ` · ${contact}` : ''} · ${signed}`));
    }
  }
  $('result').hidden = false;
  if (focus) verdict.focus();
}

function showError(code) {
  const el = $('error');
  el.textContent = t(`err_${code}`) === `err_${code}` ? t('err_generic') : t(`err_${code}`);
  el.hidden = false;
}

async function check(file) {
  $('error').hidden = true;
  $('result').hidden = true;
  last = null;
  if (!file) {
    $('error').textContent = t('choose');
    $('error').hidden = false;
    return;
  }
  const button = $('verify-btn');
  button.disabled = true;
  $('status').textContent = t('checking');
  const body = new FormData();
  body.append('file', file, file.name || 'document.pdf');
  let res;
  let json = null;
  try {
    res = await fetch('/v1/verify', { method: 'POST', body, credentials: 'omit' });
    json = await res.json().catch(() => null);
  } catch {
    res = null;
  } finally {
    button.disabled = false;
  }
  if (!res || !res.ok || !json) {
    $('status').textContent = '';
    showError(res ? json?.error?.code ?? 'generic' : 'network');
    return;
  }
  $('status').textContent = t('done');
  // Outside the try: a fault in drawing the answer is a page error, not a "network" message.
  render(json);
}

for (const btn of document.querySelectorAll('.lang-btn')) {
  btn.addEventListener('click', () => {
    lang = btn.dataset.lang;
    applyLanguage();
  });
}
const input = $('file');
input.addEventListener('change', () => check(input.files[0]));
$('verify-form').addEventListener('submit', (event) => {
  event.preventDefault();
  check(input.files[0]);
});
const drop = $('drop');
drop.addEventListener('dragover', (event) => {
  event.preventDefault();
  drop.classList.add('dragging');
});
drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('dragging');
  const file = event.dataTransfer?.files?.[0];
  if (file) check(file);
});
applyLanguage();
