import iconv from 'iconv-lite';
import { eucKrByteLength, pinSms, signingRequestSms, smsTypeFor } from '@dojang/notifications';

describe('SMS or LMS by EUC-KR bytes', () => {
  it('counts Hangul as 2 bytes and ASCII as 1', () => {
    expect(eucKrByteLength('abc')).toBe(3);
    expect(eucKrByteLength('가나다')).toBe(6);
    expect(eucKrByteLength('[도장] 인증번호 123456')).toBe(22);
    // Not in EUC-KR: counted as a double-byte character, as carriers replace it.
    expect(eucKrByteLength('😀')).toBe(2);
    expect(eucKrByteLength('?')).toBe(1);
  });

  it('counts every character as iconv-lite encodes it on its own, the first time and from its table after', () => {
    const text = '[도장] 김철수님, 「근로계약서」 서명 요청 — 漢字 ÀÉ ñ € ™ ½ ← ①② 😀🇰🇷 \t\n~ 끝';
    let expected = 0;
    for (const ch of text) {
      const encoded = iconv.encode(ch, 'euc-kr');
      expected += encoded.length === 1 && encoded[0] === 0x3f && ch !== '?' ? 2 : encoded.length;
    }
    expect(eucKrByteLength(text)).toBe(expected);
    expect(eucKrByteLength(text)).toBe(expected);
  });

  it('sends up to 90 bytes as SMS and 91 as LMS', () => {
    expect(smsTypeFor('a'.repeat(90))).toBe('SMS');
    expect(smsTypeFor('a'.repeat(91))).toBe('LMS');
    expect(smsTypeFor('가'.repeat(45))).toBe('SMS');
    expect(smsTypeFor(`${'가'.repeat(44)}ab`)).toBe('SMS');
    expect(smsTypeFor(`${'가'.repeat(45)}a`)).toBe('LMS');
  });

  it('fits a PIN in one SMS and a signing request with its link in an LMS', () => {
    expect(smsTypeFor(pinSms({ pin: '123456', brandName: '주식회사 도장상사' }).body)).toBe('SMS');
    const request = signingRequestSms({ documentTitle: '2027년 근로계약서', senderName: '인사팀', signingUrl: `https://dojang.example/sign/${'t'.repeat(43)}` });
    expect(smsTypeFor(request.body)).toBe('LMS');
    expect(request.subject).toBe('[Dojang] 서명 요청');
  });
});
