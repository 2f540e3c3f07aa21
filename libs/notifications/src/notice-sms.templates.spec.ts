import { completedSms, endedSms } from './message.templates';

/** Notices by SMS for participants without an e-mail address (issue 21 items 7 and 8). */
describe('notice SMS', () => {
  it('completed: the link and until when it serves the signed copy (time with its zone)', () => {
    const sms = completedSms({ documentTitle: '근로계약서\n(2027)', downloadUrl: 'https://dojang.example/sign/abc', availableUntil: '2027-01-31T16:00:00.000Z' });
    expect(sms.body).toBe('[Dojang] 「근로계약서 (2027)」 서명 완료. 계약서 받기(2027년 2월 1일 오전 1:00 (KST)까지): https://dojang.example/sign/abc');
  });

  it('completed: refuses a link that is not http(s)', () => {
    expect(() => completedSms({ documentTitle: 't', downloadUrl: 'javascript:alert(1)', availableUntil: '2027-01-01T00:00:00Z' })).toThrow(TypeError);
  });

  it('canceled: the sender and their reason, on one line and shortened', () => {
    const body = endedSms({ documentTitle: '근로계약서', senderName: '주식회사 도장', kind: 'canceled', reason: `조건 변경\n${'가'.repeat(80)}` }).body;
    expect(body).toContain('주식회사 도장님이 「근로계약서」 서명 요청을 취소했습니다. 사유: 조건 변경 가');
    expect(body).not.toContain('\n');
    expect(body).toContain('…');
    expect(endedSms({ documentTitle: 't', senderName: 's', kind: 'canceled' }).body).not.toContain('사유');
  });

  it('expired and declined name what happened', () => {
    expect(endedSms({ documentTitle: 't', senderName: 's', kind: 'expired' }).body).toContain('서명 기한이 지나 요청이 만료되었습니다');
    expect(endedSms({ documentTitle: 't', senderName: 's', kind: 'declined' }).body).toContain('거절되어 종료되었습니다');
    expect(endedSms({ documentTitle: 't', senderName: 's', kind: 'expired', lang: 'en' }).body).toBe('[Dojang] The request to sign "t" has expired.');
  });
});
