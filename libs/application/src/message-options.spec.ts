import { initialOrganizationState } from '@dojang/domain';
import { completedSms, completionEmail, endedSms, expiredEmail, pinSms, reminderEmail, reminderSms, signingRequestEmail, signingRequestSms, smsTypeFor } from '@dojang/notifications';
import { OrganizationRow } from '@dojang/projections';
import { languageOf, messageOptions } from './reactors/signing-notifications.reactor';

/** An organization as the read model holds it, in the given zone, optionally with a logo. */
function org(timeZone: string | undefined, logo: OrganizationRow['logo'] = null): OrganizationRow {
  return {
    ...initialOrganizationState(),
    exists: true,
    id: 'org_ny',
    name: 'Acme Inc.',
    keys: [],
    ...(timeZone ? { time_zone: timeZone } : {}),
    brand: { display_name: 'Acme', color: '#1a56db', reply_to: null },
    logo,
  } as OrganizationRow;
}

// 10 December 2026, 23:59:59.999 in New York (EST, UTC-5) = 11 December 04:59:59.999 UTC.
const NY_END_OF_DAY = '2026-12-11T04:59:59.999Z';
// 1 July 2026, 09:30 in New York (EDT, UTC-4).
const NY_SUMMER = '2026-07-01T13:30:00.000Z';
const URL = 'https://dojang.example/sign/tok';

describe('messages read times in the organization\'s zone, with the zone named', () => {
  it('an organization in New York: e-mail deadlines in EST, completion in EDT, in either language', () => {
    const en = messageOptions(org('America/New_York'), 'en');
    const ko = messageOptions(org('America/New_York'), 'ko');
    const input = { documentTitle: 'Offer', senderName: 'HR', participantName: 'Kim', signingUrl: URL, expiresAt: NY_END_OF_DAY };
    expect(signingRequestEmail({ ...en, ...input }).text).toContain('Please sign by December 10, 2026, 11:59 PM EST.');
    expect(reminderEmail({ ...ko, ...input }).text).toContain('서명 기한: 2026년 12월 10일 오후 11:59 (EST)');
    expect(signingRequestEmail({ ...ko, ...input }).html).toContain('2026년 12월 10일 오후 11:59 (EST)');
    expect(completionEmail({ ...en, documentTitle: 'Offer', participantName: 'Kim', completedAt: NY_SUMMER }).text).toContain('completed July 1, 2026, 9:30 AM EDT');
    expect(expiredEmail({ ...ko, documentTitle: 'Offer', participantName: 'Kim', senderName: 'HR', expiredAt: NY_END_OF_DAY }).text).toContain('2026년 12월 10일 오후 11:59 (EST)');
    // Nothing slips back to Korean time.
    expect(signingRequestEmail({ ...en, ...input }).text).not.toContain('KST');
  });

  it('an SMS/LMS carries its time in the zone too', () => {
    const sms = completedSms({ ...messageOptions(org('America/New_York'), 'ko'), documentTitle: '근로계약서', downloadUrl: URL, availableUntil: NY_END_OF_DAY });
    expect(sms.body).toContain('2026년 12월 10일 오후 11:59 (EST)까지');
    expect(sms.body).toMatch(/^\[Acme\] /);
    // A long body goes as an LMS, with its subject.
    expect(smsTypeFor(sms.body)).toBe('LMS');
    expect(sms.subject).toBe('[Acme] 서명 완료');
  });

  it('without a zone set: Seoul, labelled KST', () => {
    const ko = messageOptions(org(undefined), 'ko');
    expect(signingRequestEmail({ ...ko, documentTitle: 'x', senderName: 'y', participantName: 'z', signingUrl: URL, expiresAt: '2026-12-10T14:59:59.999Z' }).text).toContain('2026년 12월 10일 오후 11:59 (KST)');
  });
});

describe('the logo in the e-mail header', () => {
  const LOGO = { sha256: 'ab'.repeat(32), content_type: 'image/png' as const, byte_size: 1234, width: 400, height: 100 };

  it('by absolute URL under the public origin, sized to fit the header, the display name as alt text', () => {
    const o = messageOptions(org('Asia/Seoul', LOGO), 'ko', 'https://sign.example.com');
    const mail = signingRequestEmail({ ...o, documentTitle: 'x', senderName: 'y', participantName: 'z', signingUrl: URL });
    expect(mail.html).toContain(`<img src="https://sign.example.com/sign/brand/org_ny/${'ab'.repeat(32)}.png" width="192" height="48" alt="Acme"`);
    // The name is not written a second time beside the logo that stands for it.
    expect(mail.html).not.toMatch(/>Acme<\/div>/);
  });

  it('no logo: the name in the brand colour, as before', () => {
    const mail = signingRequestEmail({ ...messageOptions(org('Asia/Seoul'), 'ko', 'https://sign.example.com'), documentTitle: 'x', senderName: 'y', participantName: 'z', signingUrl: URL });
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('color:#1a56db;margin-bottom:24px;">Acme</div>');
  });

  it('the alt text is escaped like every value', () => {
    const o = { ...messageOptions(org('Asia/Seoul', LOGO), 'ko', 'https://sign.example.com'), brandName: 'A"><script>x</script>' };
    const mail = signingRequestEmail({ ...o, documentTitle: 'x', senderName: 'y', participantName: 'z', signingUrl: URL });
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('alt="A&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
  });
});

describe('one language per message, the recipient\'s', () => {
  it('Korean for a Korean number (domestic or +82), for e-mail only, and English for a foreign number, unless the participant chose', () => {
    expect(languageOf({ phone: '01012345678', language: undefined } as never)).toBe('ko');
    expect(languageOf({ phone: '+821012345678', language: undefined } as never)).toBe('ko');
    expect(languageOf({ phone: null, language: undefined } as never)).toBe('ko');
    expect(languageOf({ phone: '+14155552671', language: undefined } as never)).toBe('en');
    expect(languageOf({ phone: '01012345678', language: 'en' } as never)).toBe('en');
    expect(languageOf({ phone: '+14155552671', language: 'ko' } as never)).toBe('ko');
  });

  it('a Korean text has no English sentence and an English one no Hangul, in e-mails and SMS', () => {
    const input = { documentTitle: 'Contract', senderName: 'HR', participantName: 'Kim', signingUrl: URL, expiresAt: NY_END_OF_DAY };
    const ko = messageOptions(org('America/New_York'), 'ko');
    const en = messageOptions(org('America/New_York'), 'en');
    const koMail = signingRequestEmail({ ...ko, ...input });
    const enMail = signingRequestEmail({ ...en, ...input });
    expect(koMail.text).not.toMatch(/Please|sign by|Hello/);
    expect(enMail.text + enMail.subject + enMail.html).not.toMatch(/[\uac00-\ud7a3]/);
    for (const make of [signingRequestSms, reminderSms]) {
      expect(make({ ...ko, ...input }).body).not.toMatch(/asks you|Reminder/);
      expect(make({ ...en, ...input }).body + make({ ...en, ...input }).subject).not.toMatch(/[\uac00-\ud7a3]/);
    }
  });

  it('a text that fits 90 EUC-KR bytes goes as SMS; one over it as LMS with a subject', () => {
    const ko = messageOptions(org('Asia/Seoul'), 'ko');
    const short = endedSms({ ...ko, documentTitle: '계약서', senderName: '인사팀', kind: 'expired' });
    expect(smsTypeFor(short.body)).toBe('SMS');
    expect(smsTypeFor(pinSms({ ...ko, pin: '123456' }).body)).toBe('SMS');
    const long = signingRequestSms({ ...ko, documentTitle: '2027년 근로계약서', senderName: '인사팀', signingUrl: `https://dojang.example/sign/${'t'.repeat(43)}` });
    expect(smsTypeFor(long.body)).toBe('LMS');
    expect(long.subject).toBe('[Acme] 서명 요청');
  });
});
