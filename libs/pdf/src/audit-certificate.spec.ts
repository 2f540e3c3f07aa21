import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { appendPdfs } from './append-pdfs';
import { AuditCertificateInput, AuditDelivery, formatKst, renderAuditCertificate, SIGNING_CONSENT_TEXT, timelineWithDeliveries } from './audit-certificate';
import { contentDispositionFor } from './content-disposition';
import { renderDocumentPdf } from './render-document';
import { countersignPdf, readPdfEvidence, sha256Hex, signPdf } from '../../evidence/src/sign-pdf';
import { loadOrCreateSigningIdentity } from '../../evidence/src/signing-identity';
import { pdfFixture } from './testing/fixtures';
import { pdffonts, pdfsig, pdftotext } from './testing/poppler';

const ORIGINAL = 'a'.repeat(16) + 'b'.repeat(16) + 'c'.repeat(16) + '0123456789abcdef';
const FINAL = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';

const input: AuditCertificateInput = {
  title: '근로계약서',
  document_id: '3f1c2b9e-8c1a-4f7e-9a51-2d7c6e0b1a42',
  original_sha256: ORIGINAL,
  final_sha256: FINAL,
  participants: [
    {
      name: '홍길동',
      role: 'signer',
      auth: 'sms_pin',
      phone_masked: '010-****-5678',
      email_masked: 'h***@example.com',
      ip: '203.0.113.7',
      user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      viewed_at: '2026-03-01T00:05:00Z',
      signed_at: '2026-03-01T00:07:30Z',
    },
    { name: '김철수', role: 'cc', auth: 'none', phone_masked: null, email_masked: null, ip: null, user_agent: null, viewed_at: null, signed_at: null },
  ],
  timeline: [
    { at: '2026-03-01T00:00:00Z', event: 'document.sent', actor: '주식회사 도장' },
    { at: '2026-03-01T00:05:00Z', event: 'document.viewed', actor: '홍길동', detail: 'IP 203.0.113.7' },
    { at: '2026-03-01T00:07:30Z', event: 'participant.signed', actor: '홍길동' },
    { at: '2026-03-01T00:07:31Z', event: 'document.completed', actor: 'system' },
  ],
  generated_at: '2026-03-01T00:10:00Z',
};

describe('renderAuditCertificate', () => {
  let pdf: Buffer;
  let text: string;

  beforeAll(async () => {
    pdf = await renderAuditCertificate(input);
    text = pdftotext(pdf);
  });

  it('labels everything in Korean and English', () => {
    for (const label of ['전자서명 감사 추적 인증서', 'Audit Trail Certificate', '문서 정보', '참여자', 'Participants', '처리 이력', 'Timeline',
      '원본 문서 해시', 'Original SHA-256', '최종 문서 해시', 'Final SHA-256', '인증 방법', '서명 일시', 'Signed at']) {
      expect(text).toContain(label);
    }
  });

  it('prints the consent text every signer agreed to, in Korean and English', () => {
    // The row's English label sits beside the text's first line and pdftotext reads across.
    const compact = text.replace(/\s+/g, '').replace('Consenttosign', '');
    expect(compact).toContain(SIGNING_CONSENT_TEXT.ko.replace(/\s+/g, ''));
    expect(compact).toContain(SIGNING_CONSENT_TEXT.en.replace(/\s+/g, ''));
  });

  it("prints the signing certificate's fingerprint and until when it is valid, zone-labelled", async () => {
    const withCert = pdftotext(await renderAuditCertificate({ ...input, signing_certificate_sha256: 'ab'.repeat(32), signing_certificate_not_after: '2027-03-01T00:00:00Z' })).replace(/\s+/g, ' ');
    expect(withCert.replace(/\s+/g, '')).toContain('ab'.repeat(32));
    expect(withCert).toContain('서명 인증서 유효기간');
    expect(withCert).toContain('2027-03-01 09:00:00 KST');
  });

  it('prints both hashes in full and the document id', () => {
    const compact = text.replace(/\s+/g, '');
    expect(compact).toContain(ORIGINAL);
    expect(compact).toContain(FINAL);
    expect(compact).toContain(input.document_id);
  });

  it('lists participants, their evidence and the timeline in KST', () => {
    expect(text).toContain('홍길동');
    expect(text).toContain('서명자 (Signer)');
    expect(text).toContain('참조자 (CC)');
    expect(text).toContain('휴대폰 SMS 인증 (SMS PIN)');
    expect(text).toContain('010-****-5678');
    expect(text).toContain('203.0.113.7');
    expect(text).toContain('2026-03-01 09:07:30 KST');
    expect(text).toContain('서명 요청 발송 (Sent)');
    expect(text).toContain('전체 서명 완료 (Completed)');
  });

  it("states the document's pages and each value's page by the document's one numbering", async () => {
    const withPages = pdftotext(
      await renderAuditCertificate({
        ...input,
        page_count: 7,
        field_values: [{ label: '주소', value: '서울특별시 마포구', participant: '홍길동', at: '2026-03-01T00:07:30Z', page: 5 }],
      }),
    ).replace(/\s+/g, ' ');
    expect(withPages).toContain("쪽수 7 Pages");
    expect(withPages).toContain('5쪽 / p. 5');
  });

  it('says when the document is not completed yet', async () => {
    const pending = pdftotext(await renderAuditCertificate({ ...input, final_sha256: null, timeline: [] }));
    expect(pending).toContain('서명 미완료 (not completed)');
    expect(pending).toContain('기록 없음');
  });

  it('embeds the Korean font', () => {
    expect(pdffonts(pdf)).toMatch(/NotoSansKR-Regular\s+CID TrueType\s+Identity-H\s+yes yes yes/);
  });
});

describe('renderAuditCertificate with the conclusion derived from the events', () => {
  const declined: AuditCertificateInput = {
    ...input,
    final_sha256: null,
    chain: { head_hash: 'd'.repeat(64), event_count: 9, sealed: { revision: 7, hash: 'e'.repeat(64), completed_event_count: 9 } },
    conclusion: {
      status: 'declined',
      event_count: 9,
      created_at: '2026-03-01T00:00:00Z',
      created_by: 'key_9c22ab',
      sender: '인사팀 (org_1)',
      sent_at: '2026-03-01T00:01:00Z',
      sent_by: 'key_9c22ab',
      expires_at: '2026-03-15T00:01:00Z',
      concluded_at: '2026-03-01T00:08:00Z',
      concluded_by: 'signer:p_1',
      last_signature: null,
      declined: { name: '홍길동', declined_at: '2026-03-01T00:08:00Z', reason: '임금 조건이 다릅니다', ip: '::ffff:203.0.113.7', user_agent: 'Mozilla/5.0 (Android 14)' },
      canceled: null,
      certified: { sealed_at: '2026-03-01T00:08:01Z', timestamped_at: null, revision: 8, hash: 'f'.repeat(64) },
    },
  };
  let text: string;
  beforeAll(async () => {
    text = pdftotext(await renderAuditCertificate(declined));
  });

  it('states the sender, the real actors, the decline with its context, the expiry and the certification, times labelled KST', () => {
    for (const s of ['결론', 'Conclusion', '인사팀 (org_1)', 'key_9c22ab', '서명 거절 (Declined)', '임금 조건이 다릅니다', '203.0.113.7', 'Mozilla/5.0 (Android 14)', '2026-03-15 09:01:00 KST', '결론 인증', 'Conclusion certified', 'generated from the 9 stored events']) {
      expect(text).toContain(s);
    }
    expect(text.replace(/\s+/g, '')).toContain('f'.repeat(64));
    expect(text).toContain('Times are Korea Standard Time (KST, UTC+9)');
  });

  it('prints no completed-document footnote on a declined certificate, and no word broken mid-way', () => {
    expect(text).not.toContain('The final hash is that of the completed');
    expect(text).toContain('events at completion');
  });
});

describe('renderAuditCertificate with the service\'s own audit trail', () => {
  const HEAD = 'c987fec0a1b2c3d4e5f60718293a4b5c6d7e8f90123456789abcdef01629140';
  const SEALED = '5d41402abc4b2a76b9719d911017c592ae1c4f8b0d2d5e0a3f6b7c8d9e0f1a2b';
  let text: string;
  let layout: string;

  beforeAll(async () => {
    const pdf = await renderAuditCertificate({
      ...input,
      participants: [{ ...input.participants[0], ip: '::ffff:127.0.0.1' }],
      timeline: [
        { at: '2026-03-01T00:00:00Z', event: 'created', actor: 'system' },
        { at: '2026-03-01T00:00:01Z', event: 'sent', actor: 'system' },
        { at: '2026-03-01T00:05:00Z', event: 'viewed', actor: '홍길동', detail: 'IP ::ffff:127.0.0.1' },
        { at: '2026-03-01T00:07:30Z', event: 'signed', actor: '홍길동', detail: 'IP ::ffff:127.0.0.1' },
        { at: '2026-03-01T00:07:30Z', event: 'completed', actor: 'system', detail: `final PDF sha256 ${FINAL}` },
      ],
      chain: { head_hash: HEAD, event_count: 9, sealed: { revision: 6, hash: SEALED, completed_event_count: 9 } },
    });
    text = pdftotext(pdf);
    layout = pdftotext(pdf, true);
  });

  it('keeps every table inside the page: each full hash is there, wrapped rather than cut', () => {
    const compact = text.replace(/\s+/g, '');
    // The completed row's detail, the original, the final, the chain head and the signed head.
    // The row's actor ("system") stands under its event, beside the detail's second line, and
    // pdftotext may read across to it.
    expect(compact).toMatch(new RegExp(`finalPDFsha256(?:system)?${FINAL}`));
    for (const hash of [ORIGINAL, FINAL, HEAD, SEALED]) expect(compact).toContain(hash);
    expect(compact).toContain('(9events)');
  });

  it('names events in Korean and English, never by their raw codes', () => {
    for (const label of ['문서 생성 / created', '서명 요청 발송 / sent', '문서 열람 / viewed', '서명 완료 / signed', '전체 서명 완료 / completed']) {
      expect(text).toContain(label);
    }
    const rows = layout.split('\n').filter((l) => /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} KST/.test(l));
    for (const row of rows) expect(row).not.toMatch(/KST\s+(created|sent|viewed|signed|completed)\b/);
  });

  it('shows IPv4-mapped addresses as IPv4', () => {
    expect(text).not.toContain('::ffff:');
    expect(text).toContain('IP 127.0.0.1');
  });
});

describe('renderAuditCertificate with deliveries', () => {
  const DELIVERY_HEAD = '7e1d0c9b8a7f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d5c4b3a2918e7d6c5b';
  const deliveries: AuditDelivery[] = [
    { at: '2026-03-01T00:00:02Z', kind: 'signing_request', channel: 'email', recipient_masked: 'h***@example.com', provider_message_id: '<a1b2c3@mail.dojang.test>' },
    { at: '2026-03-01T00:06:10Z', kind: 'pin', channel: 'sms', recipient_masked: '010-****-5678', provider_message_id: 'SM0123456789abcdef0123456789abcdef' },
    { at: '2026-03-01T00:07:31Z', kind: 'completed', channel: 'email', recipient_masked: 'h***@example.com', provider_message_id: '<d4e5f6@mail.dojang.test>' },
  ];
  let text: string;
  let layout: string;

  beforeAll(async () => {
    const pdf = await renderAuditCertificate({ ...input, deliveries: { entries: deliveries, head_hash: DELIVERY_HEAD, event_count: 3 } });
    text = pdftotext(pdf);
    layout = pdftotext(pdf, true);
  });

  it('lists each delivery in the timeline: kind, channel, masked recipient and provider id, in Korean and English, at its KST time', () => {
    for (const label of ['서명 요청 전달 / signing request delivered', '인증번호 전달 / PIN delivered', '완료 안내 전달 / completion notice delivered']) {
      expect(text).toContain(label);
    }
    for (const label of ['채널/Channel: 이메일 (Email)', '채널/Channel: 문자 (SMS)', '수신/To: h***@example.com', '수신/To: 010-****-5678', '발송 ID/Provider message ID:']) {
      expect(text).toContain(label);
    }
    const compact = text.replace(/\s+/g, '');
    for (const id of ['<a1b2c3@mail.dojang.test>', 'SM0123456789abcdef0123456789abcdef', '<d4e5f6@mail.dojang.test>']) expect(compact).toContain(id);
    expect(text).toContain('2026-03-01 09:06:10 KST');
  });

  it('merges them with the audit trail by time, a delivery after the event of the same instant', () => {
    const rows = layout.split('\n').filter((l) => /^\s*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} KST/.test(l)).map((l) => l.trim().slice(0, 23));
    expect(rows).toEqual([
      '2026-03-01 09:00:00 KST', // sent
      '2026-03-01 09:00:02 KST', // signing request delivered
      '2026-03-01 09:05:00 KST', // viewed
      '2026-03-01 09:06:10 KST', // PIN delivered
      '2026-03-01 09:07:30 KST', // signed
      '2026-03-01 09:07:31 KST', // completed
      '2026-03-01 09:07:31 KST', // completion notice delivered
    ]);
    expect(text.indexOf('전체 서명 완료 (Completed)')).toBeLessThan(text.indexOf('완료 안내 전달'));
  });

  it('prints the delivery chain head over the deliveries it lists, and says what a certificate covers', () => {
    expect(text).toContain('전달 기록 체인 헤드');
    expect(text).toContain('Delivery chain head');
    expect(text.replace(/\s+/g, '')).toContain(`${DELIVERY_HEAD}(3deliveries)`);
    expect(text).toMatch(/Deliveries are the messages recorded up to the moment this certificate was\s+generated/);
  });

  it('says when no delivery was recorded, and shows no delivery part for an input without it', async () => {
    const none = pdftotext(await renderAuditCertificate({ ...input, deliveries: { entries: [], head_hash: null, event_count: 0 } }));
    expect(none).toContain('전달 기록 없음 (no deliveries recorded)');
    expect(none).not.toContain('delivered');
    const without = pdftotext(await renderAuditCertificate(input));
    expect(without).not.toContain('전달 기록');
  });

  it('timelineWithDeliveries keeps each list in its own order', () => {
    const merged = timelineWithDeliveries(input.timeline, [
      { ...deliveries[0], at: '2026-03-01T00:00:00Z' },
      { ...deliveries[1], at: '2026-02-28T00:00:00Z' }, // a stream revision recorded with an earlier clock stays after its predecessor
    ]);
    expect(merged.map((e) => e.event)).toEqual([
      'document.sent',
      '서명 요청 전달 / signing request delivered',
      '인증번호 전달 / PIN delivered',
      'document.viewed',
      'participant.signed',
      'document.completed',
    ]);
  });
});

describe('appendPdfs', () => {
  let certificate: Buffer;
  beforeAll(async () => {
    certificate = await renderAuditCertificate(input);
  });

  const pageCount = async (pdf: Buffer) => (await PDFDocument.load(pdf)).getPageCount();

  it('bundles the document with its certificate, pages in order', async () => {
    const contract = await renderDocumentPdf({ title: '근로계약서', format: 'text', content: '갑과 을은 다음과 같이 계약한다.' });
    const bundle = await appendPdfs(contract, certificate);
    expect(await pageCount(bundle)).toBe((await pageCount(contract)) + (await pageCount(certificate)));
    const pages = pdftotext(bundle).split('\f');
    expect(pages[0]).toContain('갑과 을은 다음과 같이 계약한다.');
    expect(pages[await pageCount(contract)]).toContain('감사 추적 인증서');
  });

  it('keeps a signed final byte for byte, so its signature and hash still verify', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dojang-bundle-'));
    try {
      const identity = await loadOrCreateSigningIdentity({ dataDir });
      const signed = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12: identity.p12, passphrase: identity.passphrase });
      const bundle = await appendPdfs(signed, certificate);
      expect(bundle.subarray(0, signed.length).equals(signed)).toBe(true);
      expect(sha256Hex(bundle.subarray(0, signed.length))).toBe(sha256Hex(signed));
      expect(await pageCount(bundle)).toBe(3 + (await pageCount(certificate)));
      const report = pdfsig(bundle);
      expect(report).toContain('Signature Validation: Signature is Valid.');
      // The signature covers its revision; the certificate pages came after it.
      expect(report).not.toContain('Total document signed');
      expect(pdftotext(bundle).split('\f')[3]).toContain('감사 추적 인증서');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a countersignature over the bundle covers the whole file and leaves the contract signature valid', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dojang-bundle-'));
    try {
      const identity = await loadOrCreateSigningIdentity({ dataDir });
      const signed = await signPdf(pdfFixture('chromium-korean-contract-a4.pdf'), { p12: identity.p12, passphrase: identity.passphrase });
      const bundle = await appendPdfs(signed, certificate);
      const sealed = await countersignPdf(bundle, { p12: identity.p12, passphrase: identity.passphrase, reason: 'Audit trail certificate' });
      expect(sealed.subarray(0, bundle.length).equals(bundle)).toBe(true);
      const report = pdfsig(sealed);
      const [first, second] = report.split(/^Signature #\d+:$/m).slice(1);
      expect(first).toContain('Signature Validation: Signature is Valid.');
      expect(first).not.toContain('Total document signed');
      expect(second).toContain('Signature Validation: Signature is Valid.');
      expect(second).toContain('Total document signed');
      expect(await pageCount(sealed)).toBe(await pageCount(bundle));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a countersignature carries its evidence entries beside those of the signed contract, covered by it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dojang-bundle-'));
    try {
      const identity = await loadOrCreateSigningIdentity({ dataDir });
      const contract = await renderDocumentPdf({ title: '근로계약서', format: 'text', content: '갑과 을은 다음과 같이 계약한다.' });
      const signed = await signPdf(contract, { p12: identity.p12, passphrase: identity.passphrase, evidence: { DojangChainHead: '{"hash":"c0ffee"}' } });
      const bundle = await appendPdfs(signed, certificate);
      const head = JSON.stringify({ document_id: input.document_id, event_count: 3, head_hash: 'ab'.repeat(32) });
      const sealed = await countersignPdf(bundle, { p12: identity.p12, passphrase: identity.passphrase, reason: 'Audit trail certificate', evidence: { DojangDeliveryHead: head } });
      expect(sealed.subarray(0, bundle.length).equals(bundle)).toBe(true);
      expect(await readPdfEvidence(sealed)).toEqual({ DojangChainHead: '{"hash":"c0ffee"}', DojangDeliveryHead: head });
      const [first, second] = pdfsig(sealed).split(/^Signature #\d+:$/m).slice(1);
      expect(first).toContain('Signature Validation: Signature is Valid.');
      expect(second).toContain('Signature Validation: Signature is Valid.');
      expect(second).toContain('Total document signed');
      // An unsigned original (a draft's certificate) is signed whole, with the entry too.
      const whole = await countersignPdf(Buffer.from(await (await PDFDocument.load(contract)).save({ useObjectStreams: true })), {
        p12: identity.p12,
        passphrase: identity.passphrase,
        evidence: { DojangDeliveryHead: head },
      });
      expect((await readPdfEvidence(whole)).DojangDeliveryHead).toBe(head);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rewrites inputs that use cross-reference streams', async () => {
    const original = Buffer.from(await (await PDFDocument.load(pdfFixture('chromium-korean-contract-letter.pdf'))).save({ useObjectStreams: true }));
    expect(original.includes('/XRef')).toBe(true);
    const bundle = await appendPdfs(original, certificate);
    expect(await pageCount(bundle)).toBe(3 + (await pageCount(certificate)));
    expect(pdftotext(bundle)).toContain('감사 추적 인증서');
  });
});

describe('formatKst', () => {
  it('shows UTC instants as KST and passes through what it cannot parse', () => {
    expect(formatKst('2026-12-31T15:30:00Z')).toBe('2027-01-01 00:30:00 KST');
    expect(formatKst(null)).toBe('—');
    expect(formatKst('yesterday')).toBe('yesterday');
  });
});

describe('contentDispositionFor', () => {
  it('gives a Korean title as RFC 5987 UTF-8 with a safe ASCII fallback', () => {
    expect(contentDispositionFor('근로계약서')).toBe(
      `attachment; filename="document.pdf"; filename*=UTF-8''%EA%B7%BC%EB%A1%9C%EA%B3%84%EC%95%BD%EC%84%9C.pdf`,
    );
  });

  it('keeps ASCII parts of mixed titles and escapes what headers cannot carry', () => {
    expect(contentDispositionFor('NDA (2026) 비밀유지계약')).toBe(
      `attachment; filename="NDA (2026).pdf"; filename*=UTF-8''NDA%20%282026%29%20%EB%B9%84%EB%B0%80%EC%9C%A0%EC%A7%80%EA%B3%84%EC%95%BD.pdf`,
    );
    const header = contentDispositionFor('a"b\\c/d\r\nSet-Cookie: x=1; it\'s*.pdf');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toBe(
      `attachment; filename="a_b c d Set-Cookie_ x_1_ it_s.pdf"; filename*=UTF-8''a%22b%20c%20d%20Set-Cookie%3A%20x%3D1%3B%20it%27s%2A.pdf`,
    );
    expect(contentDispositionFor('   ')).toBe(`attachment; filename="document.pdf"; filename*=UTF-8''document.pdf`);
  });
});
