import {
  DocumentEvent,
  DocumentState,
  ParticipantState,
  documentDecider,
  planSigningNotifications,
} from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import {
  canceledEmail,
  completionEmail,
  expiredEmail,
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
import { NotificationRequest, Notifier } from './notifier';
import { Secrets } from './secrets';

const HANDLED = ['DocumentSent', 'ParticipantSigned', 'ReminderSent', 'DocumentCompleted', 'DocumentCanceled', 'DocumentExpired', 'DocumentDeclined'];

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
    if (event.type === 'DocumentCompleted' && after.final_pdf) attachment = await this.blobs.get(after.final_pdf.sha256);

    for (const item of plan) {
      const p = after.participants.find((x) => x.id === item.participant_id) as ParticipantState;
      const signingUrl = `${this.origin}/sign/${this.secrets.signingToken(after.id, p.id)}`;
      for (const channel of item.channels) {
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
        const req = this.compose(item.kind, channel, after, p, sender, signingUrl, message ?? null, attachment);
        if (req) await this.notifier.send({ ...base, ...req });
      }
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
  ): Pick<NotificationRequest, 'to' | 'subject' | 'body' | 'html' | 'attachments' | 'signing_url'> | null {
    const to = channel === 'email' ? (p.email as string) : (p.phone as string);
    if (channel === 'sms') {
      const sms = kind === 'reminder' ? reminderSms : kind === 'signing_request' ? signingRequestSms : null;
      if (!sms) return null;
      return { to, subject: null, body: sms({ documentTitle: doc.title, senderName: sender, signingUrl }).body, signing_url: signingUrl };
    }
    const common = { documentTitle: doc.title, participantName: p.name, senderName: sender };
    switch (kind) {
      case 'signing_request':
      case 'reminder': {
        const mail = (kind === 'reminder' ? reminderEmail : signingRequestEmail)({ ...common, signingUrl, message, expiresAt: doc.expires_at });
        return { to, subject: mail.subject, body: mail.text, html: mail.html, signing_url: signingUrl };
      }
      case 'completed': {
        const mail = completionEmail({ documentTitle: doc.title, participantName: p.name, completedAt: doc.completed_at ?? new Date().toISOString() });
        const filename = `${doc.title.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').slice(0, 100) || 'document'}.pdf`;
        return {
          to,
          subject: mail.subject,
          body: mail.text,
          html: mail.html,
          attachments: attachment ? [{ filename, content: attachment, contentType: 'application/pdf' }] : [],
          signing_url: null,
        };
      }
      case 'canceled':
      case 'declined': {
        const mail = canceledEmail({ ...common, reason: kind === 'declined' ? 'A participant declined to sign. / 참여자가 서명을 거절했습니다.' : null });
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
