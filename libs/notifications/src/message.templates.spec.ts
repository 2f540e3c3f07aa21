import {
  canceledEmail,
  completionEmail,
  escapeHtml,
  expiredEmail,
  formatEnglishDateTime,
  formatKoreanDateTime,
  pinSms,
  reminderEmail,
  reminderSms,
  signingRequestEmail,
  signingRequestSms,
} from '@dojang/notifications';

const evil = '<script>alert("x")</script> & \'quote\'';

describe('message templates', () => {
  it('escapes HTML', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('writes the signing request in one language, Korean by default, in text and HTML', () => {
    const email = signingRequestEmail({
      documentTitle: '근로계약서',
      senderName: '주식회사 도장',
      participantName: '홍길동',
      signingUrl: 'https://dojang.example/sign/tok_123',
      message: '검토 후 서명 부탁드립니다.\n감사합니다.',
      expiresAt: '2025-03-10T14:59:00Z',
    });
    expect(email.subject).toBe('[Dojang] 서명 요청: 근로계약서');
    for (const body of [email.text, email.html]) {
      expect(body).toContain('주식회사 도장님이 「근로계약서」 문서에 서명을 요청했습니다.');
      expect(body).not.toContain('has asked you to sign');
      expect(body).toContain('홍길동님, 안녕하세요.');
      expect(body).toContain('2025년 3월 10일 오후 11:59 (KST)');
    }
    expect(email.text).toContain('문서 확인하고 서명하기: https://dojang.example/sign/tok_123');
    expect(email.text).toContain('검토 후 서명 부탁드립니다.\n감사합니다.');
    expect(email.html).toContain('검토 후 서명 부탁드립니다.<br>감사합니다.');
    expect(email.html).toContain('<a href="https://dojang.example/sign/tok_123"');
    expect(email.html).toMatch(/^<!doctype html>\n<html lang="ko">/);
    expect(email.html).toContain('<meta charset="utf-8">');
  });

  it('writes English when asked, under the sender\'s brand, colour, reply hint and time zone', () => {
    const email = signingRequestEmail({
      documentTitle: 'Offer letter',
      senderName: 'HR',
      participantName: 'Jane',
      signingUrl: 'https://dojang.example/sign/tok_123',
      expiresAt: '2026-12-11T04:59:59.999Z',
      lang: 'en',
      brandName: 'Acme 주식회사',
      brandColor: '#1a56db',
      replyTo: true,
      formatTime: (v, lang) => `${lang}:${new Date(v).toISOString()} (EST)`,
    });
    expect(email.subject).toBe('[Acme 주식회사] Please sign: Offer letter');
    expect(email.text).toContain('HR has asked you to sign “Offer letter”.');
    expect(email.text).not.toContain('서명을 요청했습니다');
    expect(email.text).toContain('Please sign by en:2026-12-11T04:59:59.999Z (EST).');
    expect(email.text).toContain('Replies reach Acme 주식회사.');
    expect(email.html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(email.html).toContain('background:#1a56db;');
    // A colour that is not #rrggbb never reaches a style attribute.
    expect(signingRequestEmail({ documentTitle: 't', senderName: 's', participantName: 'p', signingUrl: 'https://x.example/s', brandColor: 'red;x:url(y)' }).html).not.toContain('url(y)');
  });

  it('escapes every interpolated value in every e-mail', () => {
    const common = { documentTitle: evil, participantName: evil, senderName: evil };
    const emails = [
      signingRequestEmail({ ...common, signingUrl: 'https://dojang.example/sign/a?x=1&y="2"', message: evil, expiresAt: new Date() }),
      reminderEmail({ ...common, signingUrl: 'https://dojang.example/sign/a', message: evil }),
      completionEmail({ documentTitle: evil, participantName: evil, completedAt: new Date() }),
      canceledEmail({ ...common, reason: evil }),
      expiredEmail({ ...common, expiredAt: Date.now() }),
      signingRequestEmail({ ...common, signingUrl: 'https://dojang.example/sign/a', brandName: evil, lang: 'en' }),
    ];
    for (const email of emails) {
      expect(email.html).not.toContain('<script>');
      expect(email.html).not.toContain('"x"');
      expect(email.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quote&#39;');
      expect(email.text).toContain(evil);
      expect(email.subject).toContain(evil);
      expect(email.html).not.toMatch(/href="[^"]*"[^>]*"2"/);
    }
    expect(emails[0].html).toContain('href="https://dojang.example/sign/a?x=1&amp;y=&quot;2&quot;"');
  });

  it('keeps subjects on one line', () => {
    const email = canceledEmail({ documentTitle: '계약서\r\nBcc: victim@example.com', participantName: 'a', senderName: 'b' });
    expect(email.subject).toBe('[Dojang] 서명 요청 취소: 계약서 Bcc: victim@example.com');
    expect(canceledEmail({ documentTitle: 't', participantName: 'a', senderName: 'b', brandName: 'X\r\nBcc: y@example.com' }).subject).toBe('[X Bcc: y@example.com] 서명 요청 취소: t');
  });

  it('refuses non-http signing links', () => {
    const input = { documentTitle: 't', senderName: 's', participantName: 'p' };
    expect(() => signingRequestEmail({ ...input, signingUrl: 'javascript:alert(1)' })).toThrow(TypeError);
    expect(() => signingRequestSms({ ...input, signingUrl: 'data:text/html,x' })).toThrow(TypeError);
    expect(() => reminderEmail({ ...input, signingUrl: '/sign/relative' })).toThrow(TypeError);
  });

  it('renders completion, cancellation and expiry messages', () => {
    const done = completionEmail({ documentTitle: '임대차계약서', participantName: '김영희', completedAt: '2025-01-01T00:00:00Z' });
    expect(done.subject).toBe('[Dojang] 서명 완료: 임대차계약서');
    expect(done.text).toContain('서명이 완료된 문서(PDF)를 첨부합니다.');
    expect(done.text).toContain('2025년 1월 1일 오전 9:00 (KST)');
    expect(completionEmail({ documentTitle: 'Lease', participantName: 'Kim', completedAt: '2025-01-01T00:00:00Z', lang: 'en' }).text).toContain('The signed PDF is attached');

    const canceled = canceledEmail({ documentTitle: '임대차계약서', participantName: '김영희', senderName: '박부동산', reason: '조건 변경' });
    expect(canceled.text).toContain('박부동산님이 「임대차계약서」 문서의 서명 요청을 취소했습니다.');
    expect(canceled.text).toContain('취소 사유\n조건 변경');
    expect(canceled.html).not.toContain('href=');

    const expired = expiredEmail({ documentTitle: '임대차계약서', participantName: '김영희', senderName: '박부동산', expiredAt: '2025-02-01T03:00:00Z' });
    expect(expired.subject).toBe('[Dojang] 서명 기한 만료: 임대차계약서');
    expect(expired.text).toContain('서명 기한(2025년 2월 1일 오후 12:00 (KST))이 지나');
    expect(expiredEmail({ documentTitle: 'Lease', participantName: 'Kim', senderName: 'Park', expiredAt: '2025-02-01T03:00:00Z', lang: 'en' }).text).toContain('expired on February 1, 2025, 12:00 PM KST.');
    expect(expiredEmail({ documentTitle: 'x', participantName: 'y', senderName: 'z' }).text).toContain('서명 기한이 지나');
  });

  it('formats times in Korea time regardless of the server zone', () => {
    expect(formatKoreanDateTime('2025-06-30T15:05:00Z')).toBe('2025년 7월 1일 오전 12:05 (KST)');
    expect(formatEnglishDateTime('2025-06-30T15:05:00Z')).toBe('July 1, 2025, 12:05 AM KST');
    expect(() => formatKoreanDateTime('not a date')).toThrow(TypeError);
  });

  it('writes the PIN SMS exactly', () => {
    expect(pinSms({ pin: '123456' })).toEqual({ subject: '[Dojang] 인증번호', body: '[Dojang] 인증번호 123456 (10분 내 입력)' });
    expect(pinSms({ pin: '123456', lang: 'en', brandName: '도장상사' }).body).toBe('[도장상사] Your code: 123456 (valid 10 minutes)');
    expect(() => pinSms({ pin: '12a456' })).toThrow(TypeError);
  });

  it('keeps signing SMS on one line and short', () => {
    const url = 'https://dojang.example/sign/tok';
    const sms = signingRequestSms({ documentTitle: '아주 긴 제목\n'.repeat(10), senderName: '주식회사 도장', signingUrl: url });
    expect(sms.body).not.toContain('\n');
    expect(sms.body.startsWith('[Dojang] 주식회사 도장님이 「아주 긴 제목 아주 긴 제목')).toBe(true);
    expect(sms.body).toContain('…」 서명을 요청했습니다.');
    expect(sms.body.endsWith(url)).toBe(true);
    const reminder = reminderSms({ documentTitle: '근로계약서', senderName: '도장', signingUrl: url });
    expect(reminder.body).toBe(`[Dojang] 도장님이 요청한 「근로계약서」 서명을 기다리고 있습니다. ${url}`);
    const branded = signingRequestSms({ documentTitle: '근로계약서', senderName: '인사팀', signingUrl: url, brandName: '도장상사' });
    expect(branded.body).toBe(`[도장상사] 인사팀님이 「근로계약서」 서명을 요청했습니다. ${url}`);
    expect(branded.subject).toBe('[도장상사] 서명 요청');
    expect(signingRequestSms({ documentTitle: 'Offer', senderName: 'HR', signingUrl: url, lang: 'en' }).body).toBe(`[Dojang] HR asks you to sign "Offer": ${url}`);
  });
});
