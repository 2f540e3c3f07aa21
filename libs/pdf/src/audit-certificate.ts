import type { Content, TableCell, TDocumentDefinitions } from 'pdfmake/interfaces';
import { flowingText, type FlowOptions } from './certificate-text';
import { KOREAN_FONT_FAMILY } from './fonts';
import { renderDocDefinition } from './pdfmake-render';
import { stripInvisible } from './printable-text';
import { DEFAULT_CERTIFICATE_ZONE, formatCertificateTime, type TimeFormat } from './certificate-time';
export { DEFAULT_CERTIFICATE_ZONE, formatCertificateTime, formatKst, type TimeFormat } from './certificate-time';
import { pageNumberFooter } from './render-document';

export interface AuditParticipant {
  name: string;
  role: string;
  auth: string;
  phone_masked?: string | null;
  email_masked?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  viewed_at?: string | null;
  signed_at?: string | null;
}

export interface AuditTimelineEntry {
  at: string;
  event: string;
  actor: string;
  detail?: string | null;
}

/**
 * A message about the document that left Dojang (a `MessageDelivered` of the `delivery-<id>`
 * stream). The recipient arrives masked: the certificate never prints a full address or number.
 */
export interface AuditDelivery {
  /** When the provider accepted it (or it reached the test-mode outbox). */
  at: string;
  /** signing_request, reminder, pin, completed, canceled, expired, declined. */
  kind: string;
  channel: string;
  recipient_masked: string;
  /** The SMTP Message-ID, Twilio SID or SOLAPI message id; `outbox` in test mode. */
  provider_message_id: string;
  /** `not_delivered`: a KakaoTalk attempt that failed (`at` is when), followed by its SMS/LMS. Absent: delivered. */
  result?: 'delivered' | 'not_delivered';
  /** The provider's result code, when it gave one. */
  provider_status?: string | null;
  /** On an SMS that replaced a failed KakaoTalk message. */
  fallback_of?: string | null;
}

/** A value a participant's signature recorded (a form field), as the certificate lists it. */
export interface AuditFieldValue {
  /** The field's label, or its type when it has none. */
  label: string;
  /** As printed (dates per the field's locale, ✓/□ for checkboxes, ●/○ and the option for radio buttons). */
  value: string;
  /** The participant whose signature recorded it. */
  participant: string;
  /** When that participant signed. */
  at: string;
  /** The document page the field is on, every part counted once (as the PDF's footers number it); absent: not shown. */
  page?: number;
}

/**
 * The document's conclusion as the stored events state it (libs/verifier's document facts):
 * printed in its own section, the same facts the countersignature embeds as `DojangAuditFacts`.
 */
export interface AuditConclusion {
  status: string;
  event_count: number;
  created_at: string | null;
  /** The actor (API key or member) of each event, as the history shows it. */
  created_by: string | null;
  /** The sender: the author name and organization the document was created under. */
  sender: string | null;
  sent_at: string | null;
  sent_by: string | null;
  expires_at: string | null;
  concluded_at: string | null;
  concluded_by: string | null;
  last_signature: { name: string; signed_at: string | null; auth: string | null; phone_masked: string | null; actor: string | null; ip: string | null } | null;
  declined: { name: string; declined_at: string | null; reason: string | null; ip: string | null; user_agent: string | null } | null;
  canceled: { canceled_at: string | null; reason: string | null; actor: string | null } | null;
  /** Dojang's certification of the conclusion (DocumentCertified); null while not certified. */
  certified: { sealed_at: string; timestamped_at: string | null; revision: number; hash: string } | null;
}

export interface AuditCertificateInput {
  title: string;
  document_id: string;
  original_sha256: string;
  /** The document's pages, every part counted once (the numbering of its footers and its fields); absent: not shown. */
  page_count?: number | null;
  /** SHA-256 of the completed, signed document (without this certificate); null until completed. */
  final_sha256: string | null;
  participants: AuditParticipant[];
  timeline: AuditTimelineEntry[];
  generated_at: string;
  /**
   * SHA-256 fingerprint of the certificate that signs the PDFs (DER): what a reader compares with
   * `openssl x509 -fingerprint -sha256` of the PDF's signer and with the operator's published one.
   */
  signing_certificate_sha256?: string | null;
  /** Until when that certificate is valid (its notAfter, ISO 8601); absent: not shown. */
  signing_certificate_not_after?: string | null;
  /** Whose certificate it is: its subject on one line (`O=주식회사 한빛소프트, CN=홍길동`); absent: not shown. */
  signing_certificate_subject?: string | null;
  /**
   * The document's hash chain when the certificate was made, and the head its completion sealed
   * with the document-signing key (see `cli verify`): what an auditor compares with the log.
   */
  chain?: {
    head_hash: string;
    event_count: number;
    sealed?: { revision: number; hash: string; completed_event_count: number } | null;
  } | null;
  /**
   * Every delivery recorded in `delivery-<id>` when the certificate was generated, oldest first,
   * and the head of exactly those: listed in the timeline, and the head printed beside the event
   * chain's (the caller seals the same head into the countersignature). Absent: not shown.
   */
  deliveries?: {
    entries: AuditDelivery[];
    head_hash: string | null;
    event_count: number;
  } | null;
  /** The field values the signatures recorded, in field order; absent or empty: no section. */
  field_values?: AuditFieldValue[] | null;
  /** The conclusion derived from the events; absent: no section. */
  conclusion?: AuditConclusion | null;
  /**
   * The organization's IANA time zone: every time on the certificate is its wall clock there,
   * labelled with the zone's name. Absent: Asia/Seoul.
   */
  time_zone?: string | null;
  /**
   * The sender in the header: its display name and, when it uploaded one, its logo (stored
   * re-encoded by the pool's logo check: a PNG from our own encoder, or a JPEG whose frame header
   * was read). Absent: the header names no sender.
   */
  sender?: { name: string; logo?: { type: 'png' | 'jpeg'; bytes: Uint8Array; width: number; height: number } | null } | null;
}

const ROLE_LABELS: Record<string, string> = {
  signer: '서명자 (Signer)',
  reviewer: '검토자 (Reviewer)',
  cc: '참조자 (CC)',
};

const AUTH_LABELS: Record<string, string> = {
  sms_pin: '휴대폰 SMS 인증 (SMS PIN)',
  none: '인증 없음 (None)',
};

/** Audit-trail codes, public webhook names and domain event names all reach the timeline. */
const EVENT_LABELS: Record<string, string> = {
  created: '문서 생성 / created',
  sent: '서명 요청 발송 / sent',
  viewed: '문서 열람 / viewed',
  pin_sent: '인증번호 발송 / PIN sent',
  pin_failed: '인증번호 불일치 / PIN failed',
  pin_verified: '본인 인증 완료 / PIN verified',
  signed: '서명 완료 / signed',
  declined: '서명 거절 / declined',
  reminded: '알림 재발송 / reminded',
  canceled: '요청 취소 / canceled',
  expired: '기한 만료 / expired',
  completed: '전체 서명 완료 / completed',
  corrected: '참여자 정정 / participant corrected',
  resent: '서명 요청 재발송 / request resent',
  'document.created': '문서 생성 (Created)',
  'document.sent': '서명 요청 발송 (Sent)',
  'document.viewed': '문서 열람 (Viewed)',
  'participant.signed': '서명 완료 (Signed)',
  'document.completed': '전체 서명 완료 (Completed)',
  'document.canceled': '요청 취소 (Canceled)',
  'document.declined': '서명 거절 (Declined)',
  'document.expired': '기한 만료 (Expired)',
  DocumentCreated: '문서 생성 (Created)',
  DocumentUpdated: '문서 수정 (Updated)',
  ParticipantAdded: '참여자 추가 (Participant added)',
  ParticipantRemoved: '참여자 삭제 (Participant removed)',
  FieldsReplaced: '서명 위치 지정 (Fields placed)',
  DocumentSent: '서명 요청 발송 (Sent)',
  SigningLinkOpened: '문서 열람 (Viewed)',
  PinIssued: '인증번호 발송 (PIN sent)',
  PinVerificationFailed: '인증번호 불일치 (PIN failed)',
  PinVerified: '본인 인증 완료 (PIN verified)',
  ParticipantSigned: '서명 완료 (Signed)',
  ParticipantDeclined: '서명 거절 (Declined)',
  DocumentCompleted: '전체 서명 완료 (Completed)',
  DocumentCanceled: '요청 취소 (Canceled)',
  DocumentDeclined: '서명 거절 (Declined)',
  DocumentExpired: '기한 만료 (Expired)',
  ReminderSent: '알림 재발송 (Reminder sent)',
  ParticipantCorrected: '참여자 정정 (Participant corrected)',
  SigningRequestResent: '서명 요청 재발송 (Request resent)',
  ParticipantDelegated: '서명 위임 (Delegated)',
  SigningGroupSatisfied: '그룹 서명 완료 (Group signed)',
  AttachmentUploaded: '첨부 파일 제출 (Attachment uploaded)',
  DocumentCertified: '결론 인증 (Certified)',
  // Its stored name before issue 35: documents concluded before print it with the same label.
  DocumentSealed: '결론 인증 (Certified)',
};

const STATUS_LABELS: Record<string, string> = {
  draft: '초안 (Draft)',
  sent: '서명 진행 중 (Sent)',
  completed: '전체 서명 완료 (Completed)',
  declined: '서명 거절 (Declined)',
  canceled: '요청 취소 (Canceled)',
  expired: '기한 만료 (Expired)',
};

/** The conclusion, as the events state it: every line here is re-derivable from the log. */
function conclusionTable(c: AuditConclusion, at: TimeFormat): Content {
  const rows: Array<[Content, Content]> = [
    [label('상태', 'Status'), STATUS_LABELS[c.status] ?? c.status],
    [label('발신자', 'Sender'), dash(c.sender)],
    [label('생성', 'Created'), `${at(c.created_at)} · ${dash(c.created_by)}`],
    [label('발송', 'Sent'), `${at(c.sent_at)} · ${dash(c.sent_by)}`],
    [label('만료 기한', 'Expires at'), at(c.expires_at)],
    [label('결론 일시', 'Concluded at'), c.concluded_at ? `${at(c.concluded_at)} · ${dash(c.concluded_by)}` : '—'],
  ];
  if (c.last_signature) {
    const s = c.last_signature;
    rows.push([
      label('마지막 서명', 'Last signature'),
      `${s.name} · ${at(s.signed_at)} · ${AUTH_LABELS[s.auth ?? ''] ?? dash(s.auth)}${s.phone_masked ? ` ${s.phone_masked}` : ''} · ${dash(s.actor)}${s.ip ? ` · IP ${displayIp(s.ip)}` : ''}`,
    ]);
  }
  if (c.declined) {
    const d = c.declined;
    rows.push([label('거절', 'Declined'), `${d.name} · ${at(d.declined_at)}${d.ip ? ` · IP ${displayIp(d.ip)}` : ''}`]);
    rows.push([label('거절 사유', 'Decline reason'), dash(d.reason)]);
    rows.push([label('거절 접속 환경', 'Decline user agent'), mono(dash(d.user_agent))]);
  }
  if (c.canceled) rows.push([label('취소', 'Canceled'), `${at(c.canceled.canceled_at)} · ${dash(c.canceled.actor)}${c.canceled.reason ? ` · 사유/Reason: ${c.canceled.reason}` : ''}`]);
  rows.push([
    label('결론 인증', 'Conclusion certified'),
    c.certified
      ? mono(`revision ${c.certified.revision} ${c.certified.hash} · ${c.certified.timestamped_at ? `TSA ${at(c.certified.timestamped_at)}` : `server clock ${at(c.certified.sealed_at)}`}`)
      : ['completed', 'declined', 'canceled', 'expired'].includes(c.status)
        ? '인증 대기 (not certified yet)'
        : '결론 전 (not concluded)',
  ]);
  rows.push([label('근거', 'Source'), `이벤트 기록 ${c.event_count}건에서 생성 / generated from the ${c.event_count} stored events`]);
  return keyValueTable(rows);
}

const DELIVERY_LABELS: Record<string, string> = {
  signing_request: '서명 요청 전달 / signing request delivered',
  reminder: '알림 전달 / reminder delivered',
  pin: '인증번호 전달 / PIN delivered',
  completed: '완료 안내 전달 / completion notice delivered',
  canceled: '취소 안내 전달 / cancelation notice delivered',
  expired: '만료 안내 전달 / expiry notice delivered',
  declined: '거절 안내 전달 / decline notice delivered',
};

const CHANNEL_LABELS: Record<string, string> = {
  email: '이메일 (Email)',
  sms: '문자 (SMS)',
  kakao: '카카오 알림톡 (KakaoTalk)',
};

/**
 * What every signer agreed to before their signature was recorded (the signing page's consent box
 * and the sentence under it, apps/api/assets/signing-page/i18n.js): `POST …/sign` records
 * nothing without `consent: true`.
 */
export const SIGNING_CONSENT_TEXT = {
  ko: '전자서명에 동의합니다 — 동의하고 서명하면 이 문서의 내용에 동의하며, 전자서명이 자필 서명과 같은 효력을 가진다는 것에 동의하게 됩니다.',
  en: 'I agree to sign electronically — By signing you agree to the contents of this document and that your electronic signature has the same effect as a handwritten one.',
} as const;


const dash = (value: string | null | undefined): string => (value && value.trim() ? value : '—');

/** An IPv4 client seen through a dual-stack socket (`::ffff:127.0.0.1`) is shown as the IPv4 address it is. */
export function displayIp(text: string): string {
  return text.replace(/(?<![0-9a-f:])::ffff:(\d{1,3}(?:\.\d{1,3}){3})\b/gi, '$1');
}

function label(korean: string, english: string): Content {
  return {
    stack: [
      { text: korean, bold: true },
      { text: english, fontSize: 7, color: '#666666' },
    ],
  };
}

/**
 * Hashes, ids and user agents, a size smaller: readable() sets the hashes in the monospace face
 * and keeps every token whole (a user agent too long for its column may still be cut).
 */
const mono = (text: string): Content => ({ text, fontSize: 7.5 }) as Content;

/**
 * A narrow cell: its hashes come in groups of 32 and its ids are small monospace runs, whole
 * (certificate-text.ts, ID_FONT_SIZE). Set on the cell, read by readable().
 */
const NARROW = '_narrow';

/**
 * The whole certificate made to read like a document (issue 31, item 5): every text breaks only
 * where Korean and English allow and never inside a hash, id, phone number or time
 * (certificate-text.ts), and no table row is split across a page, so a row and its label stay
 * together. Applied to the finished definition, so no part of it can be forgotten.
 */
function readable(node: unknown, options: FlowOptions = {}): unknown {
  if (typeof node === 'string') return { text: flowingText(node, options) };
  if (Array.isArray(node)) return node.map((n) => readable(n, options));
  if (!node || typeof node !== 'object') return node;
  const { [NARROW]: narrow, ...rest } = node as Record<string, unknown>;
  const own = narrow ? { ...options, hexGroup: 32, idGroups: true } : options;
  const out: Record<string, unknown> = { ...rest };
  if (typeof out.text === 'string' && !out.noWrap) out.text = flowingText(out.text, own);
  else if (Array.isArray(out.text)) {
    // An inline's own style does not reach the runs pdfmake flattens out of it: each run carries it.
    out.text = out.text.flatMap((inline: unknown) => {
      if (typeof inline === 'string') return flowingText(inline, own);
      if (inline && typeof inline === 'object' && typeof (inline as { text?: unknown }).text === 'string') {
        const { text, ...style } = inline as { text: string };
        return flowingText(text, own).map((run) => ({ ...style, ...run }));
      }
      return [inline];
    });
  }
  if (Array.isArray(out.stack)) out.stack = out.stack.map((n) => readable(n, own));
  if (Array.isArray(out.columns)) out.columns = out.columns.map((n) => readable(n, own));
  const table = out.table as { body?: unknown[][] } | undefined;
  if (table?.body) out.table = { dontBreakRows: true, ...table, body: table.body.map((row) => row.map((cell) => readable(cell, own))) };
  return out;
}

const keyValueLayout = {
  hLineWidth: () => 0.5,
  vLineWidth: () => 0.5,
  hLineColor: () => '#bbbbbb',
  vLineColor: () => '#bbbbbb',
  paddingTop: () => 3,
  paddingBottom: () => 3,
};

function keyValueTable(rows: Array<[Content, Content]>): Content {
  return {
    table: { widths: [110, '*'], body: rows.map(([k, v]) => [{ ...(k as object), fillColor: '#f4f4f4' } as TableCell, v as TableCell]) },
    layout: keyValueLayout,
    margin: [0, 0, 0, 10],
  };
}

function sectionHeading(korean: string, english: string): Content {
  return { text: [{ text: korean }, { text: `  ${english}`, fontSize: 9, color: '#666666', bold: false }], fontSize: 12.5, bold: true, margin: [0, 8, 0, 6] };
}

function participantBlock(p: AuditParticipant, index: number, at: TimeFormat): Content {
  return {
    unbreakable: true,
    stack: [
      { text: `${index + 1}. ${p.name} · ${ROLE_LABELS[p.role] ?? p.role}`, bold: true, margin: [0, 0, 0, 3] },
      keyValueTable([
        [label('인증 방법', 'Authentication'), AUTH_LABELS[p.auth] ?? p.auth],
        [label('휴대폰', 'Phone'), dash(p.phone_masked)],
        [label('이메일', 'Email'), dash(p.email_masked)],
        [label('IP 주소', 'IP address'), dash(p.ip && displayIp(p.ip))],
        [label('접속 환경', 'User agent'), mono(dash(p.user_agent))],
        [label('열람 일시', 'Viewed at'), at(p.viewed_at)],
        [label('서명 일시', 'Signed at'), at(p.signed_at)],
      ]),
    ],
  };
}

function fieldValuesTable(values: AuditFieldValue[], at: TimeFormat): Content {
  const header: TableCell[] = [label('항목', 'Field'), label('입력 값', 'Value'), label('입력자', 'Filled by'), label('서명 일시', 'Signed at')].map(
    (c) => ({ ...(c as object), fillColor: '#f4f4f4' }) as TableCell,
  );
  const rows: TableCell[][] = values.map((v) => [
    // The page by the document's one numbering, so a reader finds the value where the footers say.
    (v.page === undefined ? { text: v.label } : { stack: [{ text: v.label }, { text: `${v.page}쪽 / p. ${v.page}`, fontSize: 7, color: '#666666' }] }) as TableCell,
    { text: v.value } as TableCell,
    v.participant,
    { text: at(v.at), fontSize: 8 },
  ]);
  return { table: { headerRows: 1, keepWithHeaderRows: 1, widths: [110, '*', 80, 96], body: [header, ...rows] }, layout: keyValueLayout, fontSize: 8.5, margin: [0, 0, 0, 10] };
}

/** A timeline row; a delivery's has no actor (Dojang sent it). */
type TimelineRow = AuditTimelineEntry & { delivery?: true };

/** A delivery as a timeline row: who was told what, by which channel, under which provider id. */
function deliveryEntry(d: AuditDelivery): TimelineRow {
  return {
    at: d.at,
    event:
      d.result === 'not_delivered'
        ? '알림톡 미전달 → 문자 대체 / KakaoTalk not delivered, SMS follows'
        : // The fallback note on a line of its own: in the event column (186 pt) it would wrap
          // mid-phrase, as "(알림톡 / 대체 / KakaoTalk fallback)".
          (DELIVERY_LABELS[d.kind] ?? `메시지 전달 / ${d.kind} delivered`) + (d.fallback_of ? '\n(알림톡 대체 / KakaoTalk fallback)' : ''),
    actor: 'system',
    // Short bilingual keys: a masked address must fit the column unbroken to stay legible.
    detail: [
      `채널/Channel: ${CHANNEL_LABELS[d.channel] ?? d.channel}`,
      `수신/To: ${dash(d.recipient_masked)}`,
      `발송 ID/Provider message ID: ${dash(d.provider_message_id)}`,
      ...(d.provider_status ? [`결과/Result: ${d.provider_status}`] : []),
    ].join('\n'),
    delivery: true,
  };
}

const instant = (at: string): number => {
  const t = Date.parse(at);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
};

/**
 * The timeline with the deliveries merged in by time. Each list keeps its own order (the audit
 * trail's sequence, the delivery stream's revisions); a delivery goes after every entry of the
 * same instant, since a message answers the event that caused it.
 */
export function timelineWithDeliveries(timeline: AuditTimelineEntry[], deliveries: AuditDelivery[]): TimelineRow[] {
  const out: TimelineRow[] = [];
  let i = 0;
  for (const d of deliveries) {
    while (i < timeline.length && instant(timeline[i].at) <= instant(d.at)) out.push(timeline[i++]);
    out.push(deliveryEntry(d));
  }
  return out.concat(timeline.slice(i));
}

function timelineTable(entries: TimelineRow[], at: TimeFormat): Content {
  const header: TableCell[] = [label('일시', 'Time'), label('이벤트 · 행위자', 'Event · Actor'), label('내용', 'Detail')].map(
    (c) => ({ ...(c as object), fillColor: '#f4f4f4' }) as TableCell,
  );
  const rows: TableCell[][] = entries.map((e) => [
    { text: at(e.at), fontSize: 8 },
    // The actor on a line of its own under the event, as wide as both: a participant id (48
    // characters) fits whole there in the ids' small monospace face, where a column of its own
    // beside the event's was too narrow and cut it at its UUID's groups.
    (e.delivery ? e.event : { stack: [EVENT_LABELS[e.event] ?? e.event, { text: e.actor, [NARROW]: true, fontSize: 8, color: '#444444', margin: [0, 1, 0, 0] }] }) as TableCell,
    // A detail may hold a whole SHA-256: in two fixed groups of 32 in this narrow column.
    { text: dash(e.detail && displayIp(e.detail)), fontSize: 8, [NARROW]: true } as TableCell,
  ]);
  if (rows.length === 0) rows.push([{ text: '기록 없음 (no events)', colSpan: 3 }, {}, {}]);
  return {
    // 186 pt: a participant id in ID_FONT_SIZE (181 pt) whole; the detail keeps 183 pt, as wide
    // as a hash's group of 32 (144 pt) and a participant id in free text need.
    table: { headerRows: 1, keepWithHeaderRows: 1, widths: [104, 186, '*'], body: [header, ...rows] },
    layout: keyValueLayout,
    fontSize: 8.5,
  };
}

/** Every string here came from users or their browsers; see printable-text.ts. */
function printable<T>(value: T): T {
  if (typeof value === 'string') return stripInvisible(value) as T;
  if (Array.isArray(value)) return value.map(printable) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printable(v)])) as T;
  }
  return value;
}

/** The sender's logo (at most 40 pt high, 160 pt wide) and name above the title. */
function senderHeader(sender: AuditCertificateInput['sender']): Content[] {
  if (!sender) return [];
  const logo = sender.logo;
  const image: Content[] = logo
    ? [{ image: `data:image/${logo.type};base64,${Buffer.from(logo.bytes).toString('base64')}`, fit: [160, 40], alignment: 'center', margin: [0, 0, 0, 4] } as Content]
    : [];
  return [...image, { text: sender.name, fontSize: 10, bold: true, alignment: 'center', color: '#444444', margin: [0, 0, 0, 8] }];
}

/** The footnote on times: the zone they are in, said in both languages. */
function zoneNote(zone: string): { ko: string; en: string } {
  if (zone === 'Asia/Seoul') return { ko: ' 시각은 한국 표준시(KST, UTC+9)입니다.', en: ' Times are Korea Standard Time (KST, UTC+9).' };
  return { ko: ` 시각은 조직의 시간대(${zone}) 기준입니다.`, en: ` Times are in the organization's time zone, ${zone}, labelled with its abbreviation at each time.` };
}

export function buildAuditCertificateDefinition(input: AuditCertificateInput): TDocumentDefinitions {
  // The logo's bytes pass around printable(), which would walk them as an object.
  const { sender, ...rest } = input;
  const info = { ...printable(rest), sender: sender ? { name: stripInvisible(sender.name), logo: sender.logo ?? null } : null };
  const zone = info.time_zone || DEFAULT_CERTIFICATE_ZONE;
  const at: TimeFormat = (value) => formatCertificateTime(value, zone);
  const note = zoneNote(zone);
  const generated = new Date(info.generated_at);
  return {
    pageSize: 'A4',
    pageMargins: [48, 48, 48, 56],
    version: '1.7',
    language: 'ko-KR',
    info: {
      title: `감사 추적 인증서 (Audit Trail Certificate) — ${info.title}`,
      creator: 'Dojang',
      producer: 'Dojang (pdfmake)',
      ...(Number.isNaN(generated.getTime()) ? {} : { creationDate: generated }),
    },
    content: readable([
      ...senderHeader(info.sender),
      { text: '전자서명 감사 추적 인증서', fontSize: 18, bold: true, alignment: 'center' },
      { text: 'Audit Trail Certificate', fontSize: 10, color: '#666666', alignment: 'center', margin: [0, 2, 0, 14] },
      sectionHeading('문서 정보', 'Document'),
      keyValueTable([
        [label('문서 제목', 'Title'), info.title],
        [label('문서 ID', 'Document ID'), mono(info.document_id)],
        [label('원본 문서 해시', 'Original SHA-256'), mono(info.original_sha256)],
        ...(info.page_count ? [[label('쪽수', 'Pages'), `${info.page_count}`] as [Content, Content]] : []),
        [label('최종 문서 해시', 'Final SHA-256'), info.final_sha256 ? mono(info.final_sha256) : '서명 미완료 (not completed)'],
        ...(info.signing_certificate_subject ? [[label('서명 인증서', 'Signing certificate'), info.signing_certificate_subject] as [Content, Content]] : []),
        ...(info.signing_certificate_sha256 ? [[label('서명 인증서 지문', 'Signing certificate SHA-256'), mono(info.signing_certificate_sha256)] as [Content, Content]] : []),
        ...(info.signing_certificate_not_after ? [[label('서명 인증서 유효기간', 'Signing certificate valid until'), at(info.signing_certificate_not_after)] as [Content, Content]] : []),
        [label('발급 일시', 'Generated at'), at(info.generated_at)],
        ...(info.chain
          ? ([
              [label('이벤트 체인 헤드', 'Event chain head'), mono(`${info.chain.head_hash} (${info.chain.event_count} events)`)],
              ...(info.chain.sealed
                ? [[label('서명된 체인 헤드', 'Signed chain head'), { stack: [mono(info.chain.sealed.hash), { text: `revision ${info.chain.sealed.revision}, ${info.chain.sealed.completed_event_count} events at completion`, fontSize: 7.5 }] }]]
                : []),
            ] as Array<[Content, Content]>)
          : []),
        ...(info.deliveries
          ? ([
              [
                label('전달 기록 체인 헤드', 'Delivery chain head'),
                info.deliveries.head_hash ? mono(`${info.deliveries.head_hash} (${info.deliveries.event_count} deliveries)`) : '전달 기록 없음 (no deliveries recorded)',
              ],
            ] as Array<[Content, Content]>)
          : []),
      ]),
      ...(info.conclusion ? [sectionHeading('결론', 'Conclusion'), conclusionTable(info.conclusion, at)] : []),
      sectionHeading('참여자', 'Participants'),
      ...info.participants.map((p, i) => participantBlock(p, i, at)),
      keyValueTable([
        [
          label('서명 동의 문구', 'Consent to sign'),
          { stack: [SIGNING_CONSENT_TEXT.ko, { text: SIGNING_CONSENT_TEXT.en, color: '#666666' }, { text: '모든 서명은 이 문구에 동의한 뒤에만 기록됩니다 / every signature is recorded only with this consent given', fontSize: 7.5 }] },
        ],
      ]),
      ...(info.field_values?.length ? [sectionHeading('입력 값', 'Field values'), fieldValuesTable(info.field_values, at)] : []),
      sectionHeading('처리 이력', 'Timeline'),
      timelineTable(info.deliveries ? timelineWithDeliveries(info.timeline, info.deliveries.entries) : info.timeline, at),
      {
        text: [
          '해시(SHA-256)는 파일이 한 바이트라도 바뀌면 달라집니다.' + (info.final_sha256 ? ' 최종 문서 해시는 이 인증서를 붙이기 전 서명 완료 문서의 값입니다.' : '') + note.ko + '\n',
          {
            text: `A SHA-256 hash changes if a single byte of the file changes.${info.final_sha256 ? ' The final hash is that of the completed, signed document before this certificate was attached.' : ''}${note.en}\n`,
            color: '#666666',
          },
          ...(info.deliveries
            ? [
                '전달 기록은 이 인증서를 발급한 시점까지 기록된 메시지 발송이며(수신자는 가려서 표시), 그 이후의 발송은 나중에 발급하는 인증서에 나타납니다. 전달 기록 체인 헤드는 이 인증서의 서명에 함께 봉인됩니다.\n',
                {
                  text: 'Deliveries are the messages recorded up to the moment this certificate was generated (recipients masked); a message sent later appears in a certificate generated later. The delivery chain head is sealed in this certificate\'s signature.',
                  color: '#666666',
                },
              ]
            : []),
        ],
        fontSize: 7.5,
        margin: [0, 14, 0, 0],
      },
    ]) as Content,
    footer: pageNumberFooter,
    styles: { footer: { fontSize: 8.5, color: '#666666', alignment: 'center' } },
    defaultStyle: { font: KOREAN_FONT_FAMILY, fontSize: 9, lineHeight: 1.25 },
  };
}

/** The certificate that accompanies a contract (GET /documents/{id}/file?audit=true). */
export async function renderAuditCertificate(info: AuditCertificateInput): Promise<Buffer> {
  return renderDocDefinition(buildAuditCertificateDefinition(info));
}
