import {
  DocumentEvent,
  DocumentState,
  KakaoMessageKind,
  MessageLanguage,
  ParticipantState,
  brandOf,
  documentDecider,
  downloadAvailableUntil,
  formatZonedDateTime,
  logoOf,
  planSigningNotifications,
  timeZoneOf,
  dateFormatOf,
  type DateFormat,
  type OrganizationState,
} from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import {
  canceledEmail,
  completedSms,
  completionEmail,
  endedSms,
  expiredEmail,
  MessageOptions,
  reminderEmail,
  reminderSms,
  signingRequestEmail,
  signingRequestSms,
} from '@dojang/notifications';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { ReadStore } from '@dojang/read-store';
import { BlobStore } from '@dojang/blob-store';
import { EventStore } from '@dojang/event-store';
import { upcast } from '@dojang/projections';
import { Reactor } from './reactor-runner';
import { KakaoMessage, MessageChannel, NotificationRequest, Notifier } from '../notifier';
import { Secrets } from '../runtime/secrets';
import { logoUrl } from '../organization-logo';

const HANDLED = [
  'DocumentSent',
  'ParticipantSigned',
  'ReminderSent',
  'DocumentCompleted',
  'DocumentCanceled',
  'DocumentExpired',
  'DocumentDeclined',
  'ParticipantCorrected',
  'SigningRequestResent',
  'ParticipantDelegated',
  'SigningGroupSatisfied',
];
/** Attachment files the completion e-mail carries at most, in bytes, besides the signed PDF. */
export const MAX_MAILED_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Messages that ask the participant to act through their link (checked against the current state before sending). */
const ASKS_TO_ACT = new Set(['signing_request', 'reminder']);

/** A message the reactor planned and then did not send, because the document moved on. */
export interface SkippedMessage {
  event_id: string;
  document_id: string;
  participant_id: string;
  kind: string;
  channel: 'email' | 'sms';
}

/**
 * The participant's language: as set, else Korean for a Korean number (or none, or only an
 * e-mail address) and English for a foreign number (stored with its `+` country code).
 */
export function languageOf(p: Pick<ParticipantState, 'language' | 'phone'>): MessageLanguage {
  if (p.language) return p.language;
  if (p.phone && p.phone.startsWith('+') && !p.phone.startsWith('+82')) return 'en';
  return 'ko';
}

/** How one organization's messages look: brand, zone-aware times, the participant's language. */
export function messageOptions(org: OrganizationRow | null, lang: MessageLanguage, origin?: string): MessageOptions & { timeZone: string; dateFormat: DateFormat } {
  const brand = brandOf(org);
  const timeZone = timeZoneOf(org);
  const dateFormat = dateFormatOf(org as unknown as OrganizationState | null);
  const logo = logoOf(org);
  return {
    lang,
    brandName: brand.display_name ?? org?.name ?? null,
    brandColor: brand.color,
    replyTo: Boolean(brand.reply_to),
    // By URL rather than as an inline (CID) attachment: a bulk send of thousands of e-mails would
    // otherwise carry the image in every one, and the alt text names the sender where images are off.
    logo: logo && org && origin ? { url: logoUrl(origin, org.id, logo), width: logo.width, height: logo.height } : null,
    formatTime: (value, l) => formatZonedDateTime(value instanceof Date ? value : typeof value === 'number' ? value : String(value), timeZone, l, dateFormat),
    timeZone,
    dateFormat,
  };
}

/**
 * Turns document events into e-mails and SMS: signing requests in signing order, reminders,
 * completion (with the final PDF), cancelation, expiry. Message keys derive from the event id, so
 * a replay after a crash does not send twice.
 */
export class SigningNotificationsReactor implements Reactor {
  readonly name = 'signing_notifications';
  readonly handles = new Set(HANDLED);

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly blobs: BlobStore,
    private readonly notifier: Notifier,
    private readonly secrets: Secrets,
    private readonly origin: string,
    /** Told each planned message that was not sent (logged by the worker). */
    private readonly onSkipped?: (skipped: SkippedMessage) => void,
  ) {}

  async react(event: StoredEvent): Promise<void> {
    const history = (await this.events.readStream(event.stream_id)).map(upcast);
    let before = documentDecider.initialState();
    for (const e of history) {
      if (e.stream_revision >= event.stream_revision) break;
      before = documentDecider.evolve(before, e as unknown as DocumentEvent);
    }
    const after = documentDecider.evolve(before, event as unknown as DocumentEvent);
    const plan = planSigningNotifications(event as unknown as DocumentEvent, before, after);
    if (plan.length === 0) return;
    const org = await this.reads.get<OrganizationRow>(ORGANIZATIONS, after.organization_id);
    const sender = after.author_name || org?.name || 'Dojang';
    const message = history.find((e) => e.type === 'DocumentSent')?.data.message as string | null | undefined;
    let attachment: Buffer | null = null;
    let files: Array<{ filename: string; content: Buffer; contentType: string }> = [];
    if (event.type === 'DocumentCompleted' && after.final_pdf) {
      attachment = await this.blobs.get(after.final_pdf.sha256);
      files = await this.attachedFiles(after);
    }

    for (const item of plan) {
      const p = after.participants.find((x) => x.id === item.participant_id) as ParticipantState;
      const signingUrl = `${this.origin}/sign/${this.secrets.signingToken(after.id, p.id, p.link_version ?? 0)}`;
      for (const channel of item.channels) {
        // A request or reminder asks someone to act through a link: by the time it is sent the
        // document may have been canceled (or the link replaced), and the message would then ask
        // for something that cannot be done. The stream is read again just before each one.
        if (ASKS_TO_ACT.has(item.kind) && !(await this.stillWanted(event, p))) {
          this.onSkipped?.({ event_id: event.event_id, document_id: after.id, participant_id: p.id, kind: item.kind, channel });
          continue;
        }
        const base = {
          key: `${event.event_id}:${p.id}:${channel}`,
          kind: item.kind,
          organization_id: after.organization_id,
          livemode: after.livemode,
          document_id: after.id,
          participant_id: p.id,
          channel,
          causation_id: event.event_id,
          origin: { reactor: this.name, stream_id: event.stream_id, event_id: event.event_id },
        } as const;
        const options = messageOptions(org ?? null, languageOf(p), this.origin);
        const req = this.compose(item.kind, channel, after, p, sender, signingUrl, message ?? null, attachment, options, files);
        if (!req) continue;
        const brand = brandOf(org);
        const branded = channel === 'email' ? { from_name: options.brandName ?? null, reply_to: brand.reply_to } : {};
        const kakao = channel === 'sms' ? this.kakaoFor(org ?? null, p, item.kind, after, sender, signingUrl, options) : null;
        // The key keeps the phone's slot (`:sms`) whichever channel carries it, so a change of
        // settings between a crash and its replay cannot send the same message twice.
        const carried: MessageChannel = kakao ? 'kakao' : channel;
        // Asked again before every attempt of the notifier (retries and a second claim included):
        // a worker that wakes after the document concluded drops the request instead of sending it.
        const stillWanted = ASKS_TO_ACT.has(item.kind) ? { stillWanted: () => this.stillWanted(event, p) } : {};
        await this.notifier.send({ ...base, ...req, ...branded, channel: carried, ...(kakao ? { kakao } : {}), ...stillWanted });
      }
    }
  }

  /**
   * The files signatures recorded for attachment fields, for the completion e-mail: in field order,
   * named "<attachment_id>-<filename>" as in the evidence bundle, while they add up to at most
   * MAX_MAILED_ATTACHMENT_BYTES (mail servers refuse large messages; the rest stay downloadable
   * by the sender and in the evidence bundle).
   */
  private async attachedFiles(doc: DocumentState): Promise<Array<{ filename: string; content: Buffer; contentType: string }>> {
    const out: Array<{ filename: string; content: Buffer; contentType: string }> = [];
    let total = 0;
    const seen = new Set<string>();
    for (const p of doc.participants) {
      for (const v of p.values ?? []) {
        const a = v.attachment;
        if (!a || seen.has(a.attachment_id) || total + a.byte_size > MAX_MAILED_ATTACHMENT_BYTES) continue;
        const content = await this.blobs.get(a.sha256);
        // A file the blob store no longer has stays listed, with its hash, in the PDF and the evidence.
        if (!content) continue;
        seen.add(a.attachment_id);
        total += a.byte_size;
        out.push({ filename: `${a.attachment_id}-${a.filename}`, content, contentType: a.content_type });
      }
    }
    return out;
  }

  /**
   * A phone message goes by KakaoTalk when the organization set up 알림톡 with a template for the
   * kind and the participant did not ask for SMS. The variables are what Dojang's templates use
   * (docs/OPERATIONS.md lists them); the approved template decides which appear.
   */
  private kakaoFor(org: OrganizationRow | null, p: ParticipantState, kind: string, doc: DocumentState, sender: string, signingUrl: string, options: MessageOptions & { timeZone: string; dateFormat: DateFormat }): KakaoMessage | null {
    if (p.channel === 'sms' || !org?.kakao) return null;
    const template = org.kakao.templates[kind as KakaoMessageKind];
    if (!template) return null;
    const acts = ASKS_TO_ACT.has(kind) || kind === 'completed';
    return {
      pf_id: org.kakao.pf_id,
      template_id: template,
      variables: {
        '#{회사명}': options.brandName ?? 'Dojang',
        '#{요청자}': sender,
        '#{이름}': p.name,
        '#{문서명}': doc.title,
        '#{기한}': doc.expires_at ? formatZonedDateTime(doc.expires_at, options.timeZone, options.lang ?? 'ko', options.dateFormat) : '',
        '#{링크}': acts ? signingUrl : '',
      },
      button_url: acts ? signingUrl : null,
    };
  }

  /**
   * Whether a request or reminder for `p` still makes sense on the document as it is now: still
   * out for signature, the participant not done, and the link the message carries still theirs.
   */
  private async stillWanted(event: StoredEvent, p: ParticipantState): Promise<boolean> {
    const now = (await this.events.readStream(event.stream_id))
      .map(upcast)
      .reduce((state, e) => documentDecider.evolve(state, e as unknown as DocumentEvent), documentDecider.initialState());
    const current = now.participants.find((x) => x.id === p.id);
    if (now.status !== 'sent' || now.trashed || !current) return false;
    if (current.status === 'signed' || current.status === 'declined' || current.group_signed_by) return false;
    return (current.link_version ?? 0) === (p.link_version ?? 0);
  }

  /** Requests and reminders by SMS to everyone with a phone; notices only to those without e-mail (see noticeChannels). */
  private composeSms(
    kind: string,
    to: string,
    doc: DocumentState,
    sender: string,
    signingUrl: string,
    o: MessageOptions,
  ): Pick<NotificationRequest, 'to' | 'subject' | 'body' | 'signing_url'> | null {
    switch (kind) {
      case 'signing_request':
      case 'reminder': {
        const sms = (kind === 'reminder' ? reminderSms : signingRequestSms)({ ...o, documentTitle: doc.title, senderName: sender, signingUrl });
        return { to, subject: sms.subject, body: sms.body, signing_url: signingUrl };
      }
      case 'completed': {
        const until = downloadAvailableUntil(doc);
        if (!until) return null;
        const sms = completedSms({ ...o, documentTitle: doc.title, downloadUrl: signingUrl, availableUntil: until });
        return { to, subject: sms.subject, body: sms.body, signing_url: signingUrl };
      }
      case 'canceled':
      case 'expired':
      case 'declined': {
        const sms = endedSms({ ...o, documentTitle: doc.title, senderName: sender, kind, reason: kind === 'canceled' ? doc.canceled_reason : null });
        return { to, subject: sms.subject, body: sms.body, signing_url: null };
      }
      default:
        return null;
    }
  }

  private compose(
    kind: string,
    channel: 'email' | 'sms',
    doc: DocumentState,
    p: ParticipantState,
    sender: string,
    signingUrl: string,
    message: string | null,
    attachment: Buffer | null,
    o: MessageOptions,
    files: Array<{ filename: string; content: Buffer; contentType: string }> = [],
  ): Pick<NotificationRequest, 'to' | 'subject' | 'body' | 'html' | 'attachments' | 'signing_url'> | null {
    const to = channel === 'email' ? (p.email as string) : (p.phone as string);
    if (channel === 'sms') return this.composeSms(kind, to, doc, sender, signingUrl, o);
    const common = { ...o, documentTitle: doc.title, participantName: p.name, senderName: sender };
    switch (kind) {
      case 'signing_request':
      case 'reminder': {
        const mail = (kind === 'reminder' ? reminderEmail : signingRequestEmail)({ ...common, signingUrl, message, expiresAt: doc.expires_at });
        return { to, subject: mail.subject, body: mail.text, html: mail.html, signing_url: signingUrl };
      }
      case 'completed': {
        const mail = completionEmail({ ...o, documentTitle: doc.title, participantName: p.name, completedAt: doc.completed_at ?? new Date().toISOString() });
        const filename = `${doc.title.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').slice(0, 100) || 'document'}.pdf`;
        return {
          to,
          subject: mail.subject,
          body: mail.text,
          html: mail.html,
          // The signed PDF, then the files signers attached for attachment fields (the completed package).
          attachments: attachment ? [{ filename, content: attachment, contentType: 'application/pdf' }, ...files] : [],
          signing_url: null,
        };
      }
      case 'canceled':
      case 'declined': {
        const declined = o.lang === 'en' ? 'A participant declined to sign.' : '참여자가 서명을 거절했습니다.';
        const mail = canceledEmail({ ...common, reason: kind === 'declined' ? declined : (doc.canceled_reason ?? null) });
        return { to, subject: mail.subject, body: mail.text, html: mail.html, signing_url: null };
      }
      case 'expired': {
        const mail = expiredEmail({ ...common, expiredAt: doc.expires_at ?? new Date().toISOString() } as never);
        return { to, subject: mail.subject, body: mail.text, html: mail.html, signing_url: null };
      }
      default:
        return null;
    }
  }
}
