/**
 * Notification texts, one language per message (the recipient's: Korean unless told otherwise),
 * branded with the sending organization's name and colour. Every value that reaches HTML goes
 * through the `html` tag below,
 * which escapes anything not explicitly built as HTML: document titles,
 * names and sender messages are integrator or user input.
 */

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface RenderedSms {
  body: string;
}

export type MessageLanguage = 'ko' | 'en';

/** Who sends and in which language: every template takes these beside its own input. */
export interface MessageOptions {
  /** Default `ko`. */
  lang?: MessageLanguage;
  /** The organization's display name: subject and SMS prefix `[name]`, e-mail header. Default `Dojang`. */
  brandName?: string | null;
  /** `#rrggbb` for the e-mail header and button; anything else is ignored. */
  brandColor?: string | null;
  /** The e-mail has a Reply-To: the footer then invites replies instead of forbidding them. */
  replyTo?: boolean;
  /**
   * The organization's logo for the e-mail header: an absolute http(s) URL (a mail client has no
   * base to resolve a path against) and its size in pixels. Shown in place of the name, with the
   * name as its alt text, so a client that blocks images still shows who sent it.
   */
  logo?: { url: string; width: number; height: number } | null;
  /** How a time is written (the organization's zone, with its name); default Korean time. */
  formatTime?: (value: DateInput, lang: MessageLanguage) => string;
}

const langOf = (o: MessageOptions | undefined): MessageLanguage => (o?.lang === 'en' ? 'en' : 'ko');
const brandOf = (o: MessageOptions | undefined): string => oneLine(o?.brandName ?? '') || 'Dojang';
const colorOf = (o: MessageOptions | undefined): string => (o?.brandColor && /^#[0-9a-f]{6}$/i.test(o.brandColor) ? o.brandColor : '#b91c1c');
const timeOf = (o: MessageOptions | undefined, value: DateInput, lang: MessageLanguage): string =>
  o?.formatTime ? o.formatTime(value, lang) : lang === 'ko' ? formatKoreanDateTime(value) : formatEnglishDateTime(value);

// ---------------------------------------------------------------- escaping

class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function renderValue(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

/** Tagged template: literal parts are trusted markup, every `${value}` is escaped unless it is itself SafeHtml. */
function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    out += renderValue(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}

/** Escaped text with line breaks kept, for free-form sender messages. */
function multiline(text: string): SafeHtml {
  return new SafeHtml(
    text
      .split(/\r\n|\r|\n/)
      .map((line) => escapeHtml(line))
      .join('<br>'),
  );
}

/** Only our own http(s) links belong in a button; anything else (javascript:, data:) is a bug upstream. */
function assertHttpUrl(url: string, name: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${name} must be an absolute http(s) URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`${name} must be an absolute http(s) URL`);
  }
  return url;
}

/** Header and SMS text must stay on one line; a newline in a title must not start a new header. */
function oneLine(value: string): string {
  return String(value).replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
}

function truncate(value: string, max: number): string {
  const chars = Array.from(value);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : value;
}

// ---------------------------------------------------------------- dates

export type DateInput = Date | string | number;

function toDate(value: DateInput): Date {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new TypeError(`invalid date: ${String(value)}`);
  return date;
}

const KST_OFFSET_MS = 9 * 60 * 60 * 1000; // Korea has kept UTC+9 without daylight saving since 1988
const EN_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * Korean wall-clock parts. Done by hand rather than with Intl because ICU
 * versions disagree on Korean day periods ("오후" versus "PM"), and a
 * contract deadline should read the same on every server.
 */
function kstParts(value: DateInput) {
  const d = new Date(toDate(value).getTime() + KST_OFFSET_MS);
  const hour24 = d.getUTCHours();
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour12: hour24 % 12 === 0 ? 12 : hour24 % 12,
    pm: hour24 >= 12,
    minute: String(d.getUTCMinutes()).padStart(2, '0'),
  };
}

/** Deadlines are read by people in Korea; both languages show Korean time so they agree. */
export function formatKoreanDateTime(value: DateInput): string {
  const p = kstParts(value);
  return `${p.year}년 ${p.month}월 ${p.day}일 ${p.pm ? '오후' : '오전'} ${p.hour12}:${p.minute} (KST)`;
}

export function formatEnglishDateTime(value: DateInput): string {
  const p = kstParts(value);
  return `${EN_MONTHS[p.month - 1]} ${p.day}, ${p.year}, ${p.hour12}:${p.minute} ${p.pm ? 'PM' : 'AM'} KST`;
}

// ---------------------------------------------------------------- layout

interface Section {
  heading: string;
  greeting: string;
  paragraphs: string[];
  quote?: { label: string; text: string };
  action?: { label: string; url: string; fallback: string };
  notes?: string[];
}

/** Korean-capable system fonts first; trusted markup, so it is not escaped. */
const FONT = new SafeHtml("'Apple SD Gothic Neo','Malgun Gothic','Noto Sans KR',Arial,sans-serif");

function footer(lang: MessageLanguage, brand: string, replyTo: boolean): string {
  if (lang === 'ko') {
    return replyTo
      ? `이 메일은 ${brand}의 요청으로 Dojang 전자서명 서비스에서 발송되었습니다. 회신하면 ${brand}에게 전달됩니다.`
      : `이 메일은 ${brand}의 요청으로 Dojang 전자서명 서비스에서 자동으로 발송되었습니다. 회신하지 마세요.`;
  }
  return replyTo
    ? `Sent for ${brand} by the Dojang e-signature service. Replies reach ${brand}.`
    : `Sent automatically for ${brand} by the Dojang e-signature service. Please do not reply.`;
}

function sectionHtml(section: Section, lang: 'ko' | 'en', color: string): SafeHtml {
  return html`<div lang="${lang}">
<h1 style="font-size:20px;margin:0 0 16px;">${section.heading}</h1>
<p style="margin:0 0 12px;">${section.greeting}</p>
${section.paragraphs.map((p) => html`<p style="margin:0 0 12px;">${p}</p>\n`)}${
    section.quote
      ? html`<p style="margin:16px 0 4px;color:#57534e;">${section.quote.label}</p>
<blockquote style="margin:0 0 16px;padding:8px 12px;border-left:3px solid ${color};background:#fafaf9;">${multiline(section.quote.text)}</blockquote>
`
      : ''
  }${
    section.action
      ? html`<p style="margin:24px 0;"><a href="${section.action.url}" style="display:inline-block;padding:12px 20px;background:${color};color:#ffffff;text-decoration:none;border-radius:6px;font-weight:700;">${section.action.label}</a></p>
<p style="margin:0 0 12px;font-size:12px;color:#78716c;">${section.action.fallback}<br><a href="${section.action.url}" style="color:#78716c;word-break:break-all;">${section.action.url}</a></p>
`
      : ''
  }${(section.notes ?? []).map((n) => html`<p style="margin:0 0 8px;font-size:13px;color:#57534e;">${n}</p>\n`)}</div>`;
}

function sectionText(section: Section): string {
  const lines = [section.heading, '', section.greeting, ''];
  for (const p of section.paragraphs) lines.push(p, '');
  if (section.quote) lines.push(`${section.quote.label}`, section.quote.text, '');
  if (section.action) lines.push(`${section.action.label}: ${section.action.url}`, '');
  for (const n of section.notes ?? []) lines.push(n);
  return lines.join('\n').trim();
}

/** Drawn at most this tall and this wide in the header, keeping its shape. */
const LOGO_MAX_HEIGHT = 48;
const LOGO_MAX_WIDTH = 200;

/**
 * The header: the logo (width and height attributes too, which Outlook needs to size an image)
 * with the brand name as alt text, or the name in the brand colour when there is no logo.
 */
function brandHeader(brand: string, color: string, logo: MessageOptions['logo']): SafeHtml {
  if (logo && logo.width > 0 && logo.height > 0) {
    const url = assertHttpUrl(logo.url, 'logo.url');
    const scale = Math.min(1, LOGO_MAX_HEIGHT / logo.height, LOGO_MAX_WIDTH / logo.width);
    const width = Math.max(1, Math.round(logo.width * scale));
    const height = Math.max(1, Math.round(logo.height * scale));
    return html`<div style="margin-bottom:24px;"><img src="${url}" width="${width}" height="${height}" alt="${brand}" style="display:block;border:0;outline:none;text-decoration:none;height:${height}px;width:${width}px;font-size:16px;font-weight:700;color:${color};"></div>`;
  }
  return html`<div style="font-size:16px;font-weight:700;color:${color};margin-bottom:24px;">${brand}</div>`;
}

function renderEmail(subjectKo: string, subjectEn: string, ko: Section, en: Section, options?: MessageOptions): RenderedEmail {
  const lang = langOf(options);
  const brand = brandOf(options);
  const color = colorOf(options);
  const section = lang === 'ko' ? ko : en;
  const foot = footer(lang, brand, options?.replyTo === true);
  const subject = oneLine(`[${brand}] ${lang === 'ko' ? subjectKo : subjectEn}`);
  const text = [sectionText(section), '', '--', foot, ''].join('\n');
  const body = html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${subject}</title>
</head>
<body style="margin:0;padding:0;background:#f5f5f4;">
<div style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff;font-family:${FONT};color:#1c1917;font-size:15px;line-height:1.6;">
${brandHeader(brand, color, options?.logo)}
${sectionHtml(section, lang, color)}
<hr style="border:none;border-top:1px solid #e7e5e4;margin:28px 0 12px;">
<p style="margin:0;font-size:12px;color:#a8a29e;">${foot}</p>
</div>
</body>
</html>
`;
  return { subject, text, html: body.value };
}

// ---------------------------------------------------------------- e-mails

export interface SigningRequestEmailInput extends MessageOptions {
  documentTitle: string;
  senderName: string;
  participantName: string;
  signingUrl: string;
  /** The note the sender passed with POST /documents/{id}/send. */
  message?: string | null;
  expiresAt?: DateInput | null;
}

const PERSONAL_LINK_KO = '이 링크는 받는 분 본인에게만 발급되었습니다. 다른 사람에게 전달하지 마세요.';
const PERSONAL_LINK_EN = 'This link was issued to you personally. Please do not forward it.';

function deadlineNotes(expiresAt: DateInput | null | undefined, o?: MessageOptions): { ko: string[]; en: string[] } {
  if (expiresAt === undefined || expiresAt === null) return { ko: [], en: [] };
  return {
    ko: [`서명 기한: ${timeOf(o, expiresAt, 'ko')}`],
    en: [`Please sign by ${timeOf(o, expiresAt, 'en')}.`],
  };
}

export function signingRequestEmail(input: SigningRequestEmailInput): RenderedEmail {
  const url = assertHttpUrl(input.signingUrl, 'signingUrl');
  const { documentTitle: title, senderName: sender, participantName: name } = input;
  const deadline = deadlineNotes(input.expiresAt, input);
  const message = input.message?.trim();
  return renderEmail(
    `서명 요청: ${title}`,
    `Please sign: ${title}`,
    {
      heading: '서명 요청',
      greeting: `${name}님, 안녕하세요.`,
      paragraphs: [`${sender}님이 「${title}」 문서에 서명을 요청했습니다.`, '아래 버튼을 눌러 문서를 확인하고 서명해 주세요.'],
      quote: message ? { label: `${sender}님의 메시지`, text: message } : undefined,
      action: { label: '문서 확인하고 서명하기', url, fallback: '버튼이 열리지 않으면 아래 주소를 브라우저에 붙여 넣으세요.' },
      notes: [...deadline.ko, PERSONAL_LINK_KO],
    },
    {
      heading: 'Signature requested',
      greeting: `Hello ${name},`,
      paragraphs: [`${sender} has asked you to sign “${title}”.`, 'Use the button below to review and sign the document.'],
      quote: message ? { label: `Message from ${sender}`, text: message } : undefined,
      action: { label: 'Review and sign', url, fallback: 'If the button does not work, paste this address into your browser.' },
      notes: [...deadline.en, PERSONAL_LINK_EN],
    },
    input,
  );
}

export type ReminderEmailInput = SigningRequestEmailInput;

export function reminderEmail(input: ReminderEmailInput): RenderedEmail {
  const url = assertHttpUrl(input.signingUrl, 'signingUrl');
  const { documentTitle: title, senderName: sender, participantName: name } = input;
  const deadline = deadlineNotes(input.expiresAt, input);
  const message = input.message?.trim();
  return renderEmail(
    `서명 요청 알림: ${title}`,
    `Reminder to sign: ${title}`,
    {
      heading: '서명을 기다리고 있습니다',
      greeting: `${name}님, 안녕하세요.`,
      paragraphs: [`${sender}님이 요청한 「${title}」 문서의 서명이 아직 완료되지 않았습니다.`, '아래 버튼을 눌러 서명을 마쳐 주세요.'],
      quote: message ? { label: `${sender}님의 메시지`, text: message } : undefined,
      action: { label: '문서 확인하고 서명하기', url, fallback: '버튼이 열리지 않으면 아래 주소를 브라우저에 붙여 넣으세요.' },
      notes: [...deadline.ko, PERSONAL_LINK_KO],
    },
    {
      heading: 'Your signature is still needed',
      greeting: `Hello ${name},`,
      paragraphs: [`“${title}”, sent by ${sender}, is still waiting for your signature.`, 'Use the button below to finish signing.'],
      quote: message ? { label: `Message from ${sender}`, text: message } : undefined,
      action: { label: 'Review and sign', url, fallback: 'If the button does not work, paste this address into your browser.' },
      notes: [...deadline.en, PERSONAL_LINK_EN],
    },
    input,
  );
}

export interface CompletionEmailInput extends MessageOptions {
  documentTitle: string;
  participantName: string;
  completedAt: DateInput;
}

/** The caller attaches the completed PDF. */
export function completionEmail(input: CompletionEmailInput): RenderedEmail {
  const { documentTitle: title, participantName: name } = input;
  return renderEmail(
    `서명 완료: ${title}`,
    `Completed: ${title}`,
    {
      heading: '모든 서명이 완료되었습니다',
      greeting: `${name}님, 안녕하세요.`,
      paragraphs: [
        `「${title}」 문서에 모든 참여자가 서명을 마쳤습니다. (완료: ${timeOf(input, input.completedAt, 'ko')})`,
        '서명이 완료된 문서(PDF)를 첨부합니다. 보관해 두세요.',
      ],
    },
    {
      heading: 'All signatures are complete',
      greeting: `Hello ${name},`,
      paragraphs: [
        `Everyone has signed “${title}” (completed ${timeOf(input, input.completedAt, 'en')}).`,
        'The signed PDF is attached for your records.',
      ],
    },
    input,
  );
}

export interface CanceledEmailInput extends MessageOptions {
  documentTitle: string;
  participantName: string;
  senderName: string;
  reason?: string | null;
}

export function canceledEmail(input: CanceledEmailInput): RenderedEmail {
  const { documentTitle: title, participantName: name, senderName: sender } = input;
  const reason = input.reason?.trim();
  return renderEmail(
    `서명 요청 취소: ${title}`,
    `Canceled: ${title}`,
    {
      heading: '서명 요청이 취소되었습니다',
      greeting: `${name}님, 안녕하세요.`,
      paragraphs: [`${sender}님이 「${title}」 문서의 서명 요청을 취소했습니다.`, '이전에 받은 서명 링크는 더 이상 사용할 수 없습니다.'],
      quote: reason ? { label: '취소 사유', text: reason } : undefined,
      notes: [`궁금한 점은 ${sender}님에게 문의해 주세요.`],
    },
    {
      heading: 'The signature request was canceled',
      greeting: `Hello ${name},`,
      paragraphs: [`${sender} canceled the signature request for “${title}”.`, 'The signing link you received no longer works.'],
      quote: reason ? { label: 'Reason', text: reason } : undefined,
      notes: [`If you have questions, please contact ${sender}.`],
    },
    input,
  );
}

export interface ExpiredEmailInput extends MessageOptions {
  documentTitle: string;
  participantName: string;
  senderName: string;
  expiredAt?: DateInput | null;
}

export function expiredEmail(input: ExpiredEmailInput): RenderedEmail {
  const { documentTitle: title, participantName: name, senderName: sender } = input;
  const when = input.expiredAt === undefined || input.expiredAt === null ? undefined : input.expiredAt;
  return renderEmail(
    `서명 기한 만료: ${title}`,
    `Expired: ${title}`,
    {
      heading: '서명 기한이 지났습니다',
      greeting: `${name}님, 안녕하세요.`,
      paragraphs: [
        `「${title}」 문서의 서명 기한${when === undefined ? '이' : `(${timeOf(input, when, 'ko')})이`} 지나 서명 요청이 만료되었습니다.`,
        '서명 링크는 더 이상 사용할 수 없습니다.',
      ],
      notes: [`서명이 다시 필요하면 ${sender}님에게 새 요청을 받아 주세요.`],
    },
    {
      heading: 'The signing deadline has passed',
      greeting: `Hello ${name},`,
      paragraphs: [
        `The signature request for “${title}” expired${when === undefined ? '' : ` on ${timeOf(input, when, 'en')}`}.`,
        'The signing link no longer works.',
      ],
      notes: [`If a signature is still needed, please ask ${sender} to send a new request.`],
    },
    input,
  );
}

// ---------------------------------------------------------------- SMS

/**
 * SMS bodies are plain text, so nothing is escaped; instead every value is forced onto one line
 * and shortened. One language, prefixed with the sender's brand `[회사명]`: a body of at most 90
 * EUC-KR bytes goes as one SMS, a longer one as LMS with `subject` (see sms-length.ts).
 */
export interface RenderedSmsWithSubject extends RenderedSms {
  /** The LMS subject, used when the body does not fit an SMS. */
  subject: string;
}

const prefixOf = (o: MessageOptions | undefined) => `[${truncate(brandOf(o), 20)}]`;

export interface SigningRequestSmsInput extends MessageOptions {
  documentTitle: string;
  senderName: string;
  signingUrl: string;
}

export function signingRequestSms(input: SigningRequestSmsInput): RenderedSmsWithSubject {
  const url = assertHttpUrl(input.signingUrl, 'signingUrl');
  const title = truncate(oneLine(input.documentTitle), 30);
  const sender = truncate(oneLine(input.senderName), 20);
  return langOf(input) === 'ko'
    ? { subject: `${prefixOf(input)} 서명 요청`, body: `${prefixOf(input)} ${sender}님이 「${title}」 서명을 요청했습니다. ${url}` }
    : { subject: `${prefixOf(input)} Signature requested`, body: `${prefixOf(input)} ${sender} asks you to sign "${title}": ${url}` };
}

export type ReminderSmsInput = SigningRequestSmsInput;

export function reminderSms(input: ReminderSmsInput): RenderedSmsWithSubject {
  const url = assertHttpUrl(input.signingUrl, 'signingUrl');
  const title = truncate(oneLine(input.documentTitle), 30);
  const sender = truncate(oneLine(input.senderName), 20);
  return langOf(input) === 'ko'
    ? { subject: `${prefixOf(input)} 서명 요청 알림`, body: `${prefixOf(input)} ${sender}님이 요청한 「${title}」 서명을 기다리고 있습니다. ${url}` }
    : { subject: `${prefixOf(input)} Reminder to sign`, body: `${prefixOf(input)} Reminder: "${title}" from ${sender} awaits your signature: ${url}` };
}

export interface PinSmsInput extends MessageOptions {
  pin: string;
}

/** One SMS; "10분" must match the PIN lifetime enforced by the signing flow (DESIGN: SMS PIN). */
export function pinSms(input: PinSmsInput): RenderedSmsWithSubject {
  if (!/^\d{4,10}$/.test(input.pin)) throw new TypeError('pin must be 4 to 10 digits');
  return langOf(input) === 'ko'
    ? { subject: `${prefixOf(input)} 인증번호`, body: `${prefixOf(input)} 인증번호 ${input.pin} (10분 내 입력)` }
    : { subject: `${prefixOf(input)} Your code`, body: `${prefixOf(input)} Your code: ${input.pin} (valid 10 minutes)` };
}

export interface CompletedSmsInput extends MessageOptions {
  documentTitle: string;
  /** The participant's link: after PIN verification (sms_pin) it serves the signed PDF. */
  downloadUrl: string;
  /** Until when the link serves the PDF. */
  availableUntil: DateInput;
}

/**
 * For a participant reachable only by phone, the signed contract must still reach them (an
 * employer hands the employee the signed 근로계약서): a link, checked like signing, time-limited.
 */
export function completedSms(input: CompletedSmsInput): RenderedSmsWithSubject {
  const url = assertHttpUrl(input.downloadUrl, 'downloadUrl');
  const title = truncate(oneLine(input.documentTitle), 30);
  const lang = langOf(input);
  const until = timeOf(input, input.availableUntil, lang);
  return lang === 'ko'
    ? { subject: `${prefixOf(input)} 서명 완료`, body: `${prefixOf(input)} 「${title}」 서명 완료. 계약서 받기(${until}까지): ${url}` }
    : { subject: `${prefixOf(input)} Signed`, body: `${prefixOf(input)} "${title}" is signed. Your copy (until ${until}): ${url}` };
}

export interface EndedSmsInput extends MessageOptions {
  documentTitle: string;
  senderName: string;
  kind: 'canceled' | 'expired' | 'declined';
  /** The sender's cancel reason, shortened to keep the message short. */
  reason?: string | null;
}

/** The end of a request, told by SMS to a participant with no e-mail address (the link stops working). */
export function endedSms(input: EndedSmsInput): RenderedSmsWithSubject {
  const title = truncate(oneLine(input.documentTitle), 30);
  const sender = truncate(oneLine(input.senderName), 20);
  const reason = input.reason ? truncate(oneLine(input.reason), 60) : '';
  const p = prefixOf(input);
  if (langOf(input) === 'en') {
    switch (input.kind) {
      case 'canceled':
        return { subject: `${p} Request canceled`, body: `${p} ${sender} canceled the request to sign "${title}".${reason ? ` Reason: ${reason}` : ''}` };
      case 'expired':
        return { subject: `${p} Request expired`, body: `${p} The request to sign "${title}" has expired.` };
      case 'declined':
        return { subject: `${p} Request declined`, body: `${p} The request to sign "${title}" was declined and has ended.` };
    }
  }
  switch (input.kind) {
    case 'canceled':
      return { subject: `${p} 서명 요청 취소`, body: `${p} ${sender}님이 「${title}」 서명 요청을 취소했습니다.${reason ? ` 사유: ${reason}` : ''}` };
    case 'expired':
      return { subject: `${p} 서명 기한 만료`, body: `${p} 「${title}」 서명 기한이 지나 요청이 만료되었습니다.` };
    case 'declined':
      return { subject: `${p} 서명 요청 종료`, body: `${p} 「${title}」 서명 요청이 거절되어 종료되었습니다.` };
  }
}
