import { createHash } from 'crypto';
import { maskEmail, maskPhone } from '@dojang/domain';
import { EmailAttachment, EmailSender, SmsSender, isTransientDeliveryError, withRetries } from '@dojang/notifications';
import { ReadDoc, ReadStore } from '@dojang/read-store';
import { Clock } from './clock';
import { DeliveryRecorder } from './history/delivery-evidence';
import { MessageOutcome } from './observability/metrics';

export const OUTBOX = 'outbox';
export const MESSAGE_LOG = 'message_log';

export type MessageKind = 'signing_request' | 'reminder' | 'pin' | 'completed' | 'canceled' | 'expired' | 'declined';

export interface NotificationRequest {
  /** Stable per logical message (e.g. causing event id + participant + channel): resends are skipped. */
  key: string;
  kind: MessageKind;
  organization_id: string;
  livemode: boolean;
  document_id: string;
  participant_id: string | null;
  channel: 'email' | 'sms';
  to: string;
  subject: string | null;
  body: string;
  html?: string;
  attachments?: EmailAttachment[];
  signing_url?: string | null;
  pin?: string | null;
  /** The event the message answers, carried into the delivery evidence. */
  causation_id?: string;
}

export interface OutboxRow extends ReadDoc {
  object: 'message';
  kind: MessageKind;
  organization_id: string;
  livemode: boolean;
  channel: 'email' | 'sms';
  to: string;
  subject: string | null;
  body: string;
  html: string | null;
  attachments: Array<{ filename: string; content_type: string; byte_size: number }>;
  signing_url: string | null;
  pin: string | null;
  document_id: string;
  participant_id: string | null;
  created_at: string;
  sort_key: string;
}

export interface MessageLogRow extends ReadDoc {
  kind: MessageKind;
  organization_id: string;
  document_id: string;
  participant_id: string | null;
  channel: 'email' | 'sms';
  to_masked: string;
  status: 'sending' | 'sent' | 'failed' | 'not_configured';
  /** While `sending`: until when the claim holds; after it, another pass may take over. */
  lease_until?: string | null;
  _version?: number;
  provider_id: string | null;
  error: string | null;
  attempts: number;
  at: string;
}

export const messageId = (key: string) => `msg_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;

/**
 * Sends a message on its channel. Test mode never reaches a real channel: the message lands in the
 * outbox (GET /v1/outbox). Live mode goes out by SMTP or Twilio, with transient failures retried,
 * and is logged masked. A message already sent under the same key is not sent again.
 */
export class Notifier {
  constructor(
    private readonly reads: ReadStore,
    private readonly clock: Clock,
    private readonly email: EmailSender | null,
    private readonly sms: SmsSender | null,
    private readonly retry: { attempts: number; baseDelayMs: number; sleep?: (ms: number) => Promise<void> } = { attempts: 4, baseDelayMs: 500 },
    /** Told each message's outcome (metrics). */
    private readonly observe: (channel: 'email' | 'sms', outcome: MessageOutcome) => void = () => undefined,
    /** Told each message that left (or reached the outbox): it becomes a hash-chained event. */
    private readonly deliveries: DeliveryRecorder | null = null,
  ) {}

  /**
   * Recording runs after the send, so a crash in between would lose it: every later pass over the
   * same message records again, and the store refuses the repeat (the event id derives from the
   * message id), so a message yields exactly one delivery event.
   */
  private async recordDelivery(req: NotificationRequest, id: string, providerMessageId: string, at: string): Promise<void> {
    await this.deliveries?.record({
      message_id: id,
      kind: req.kind,
      organization_id: req.organization_id,
      livemode: req.livemode,
      document_id: req.document_id,
      participant_id: req.participant_id,
      channel: req.channel,
      to: req.to,
      provider_message_id: providerMessageId,
      delivered_at: at,
      causation_id: req.causation_id,
    });
  }

  async init(): Promise<void> {
    await this.reads.ensureCollection({
      name: OUTBOX,
      indexes: [['organization_id', 'livemode', 'sort_key'], ['organization_id', 'livemode', 'document_id', 'sort_key']],
    });
    await this.reads.ensureCollection({ name: MESSAGE_LOG, indexes: [['document_id', 'at']] });
  }

  async send(req: NotificationRequest): Promise<void> {
    const id = messageId(req.key);
    const now = this.clock.now().toISOString();
    if (!req.livemode) {
      const row: OutboxRow = {
        id,
        object: 'message',
        kind: req.kind,
        organization_id: req.organization_id,
        livemode: false,
        channel: req.channel,
        to: req.to,
        subject: req.subject,
        body: req.body,
        html: req.html ?? null,
        attachments: (req.attachments ?? []).map((a) => ({ filename: a.filename, content_type: a.contentType, byte_size: a.content.length })),
        signing_url: req.signing_url ?? null,
        pin: req.pin ?? null,
        document_id: req.document_id,
        participant_id: req.participant_id,
        created_at: now,
        sort_key: `${now}|${id}`,
      };
      // Insert-if-absent: two passes over the same event write one outbox message.
      if (await this.reads.putIfVersion(OUTBOX, row, null)) {
        this.observe(req.channel, 'outbox');
        await this.recordDelivery(req, id, 'outbox', now);
      } else {
        const first = await this.reads.get<OutboxRow>(OUTBOX, id);
        await this.recordDelivery(req, id, 'outbox', first?.created_at ?? now);
      }
      return;
    }
    const logged = await this.reads.get<MessageLogRow>(MESSAGE_LOG, id);
    if (logged && logged.status === 'sent') {
      await this.recordDelivery(req, id, logged.provider_id ?? '', logged.at);
      return;
    }
    if (logged && logged.status === 'not_configured') return;
    if (logged && logged.status === 'sending' && logged.lease_until && Date.parse(logged.lease_until) > Date.parse(now)) return;
    const base = {
      id,
      kind: req.kind,
      organization_id: req.organization_id,
      document_id: req.document_id,
      participant_id: req.participant_id,
      channel: req.channel,
      to_masked: (req.channel === 'sms' ? maskPhone(req.to) : maskEmail(req.to)) ?? '',
    };
    const sender = req.channel === 'email' ? this.email : this.sms;
    // Claim the message before sending, atomically across passes and processes: whoever wins the
    // compare-and-swap sends; a claim whose lease ran out (a crash mid-send) can be taken over.
    const claim: MessageLogRow = {
      ...base,
      status: 'sending',
      provider_id: null,
      error: null,
      attempts: logged?.attempts ?? 0,
      at: now,
      lease_until: new Date(Date.parse(now) + 5 * 60 * 1000).toISOString(),
    };
    let version = logged ? (logged._version ?? 0) : null;
    if (!(await this.reads.putIfVersion(MESSAGE_LOG, claim, version))) return;
    version = (version ?? 0) + 1;
    const finish = async (row: MessageLogRow) => {
      await this.reads.putIfVersion(MESSAGE_LOG, { ...row, lease_until: null }, version);
    };
    if (!sender) {
      await finish({ ...base, status: 'not_configured', provider_id: null, error: `${req.channel} is not configured`, attempts: 0, at: now });
      this.observe(req.channel, 'not_configured');
      return;
    }
    let attempts = 0;
    let sent: { provider: string; at: string } | null = null;
    try {
      const result = await withRetries(
        async () => {
          attempts += 1;
          return req.channel === 'email'
            ? (sender as EmailSender).send({ to: req.to, subject: req.subject ?? '', text: req.body, html: req.html ?? req.body, attachments: req.attachments })
            : (sender as SmsSender).send({ to: req.to, body: req.body });
        },
        { attempts: this.retry.attempts, baseDelayMs: this.retry.baseDelayMs, ...(this.retry.sleep ? { sleep: this.retry.sleep } : {}) },
      );
      const sentAt = this.clock.now().toISOString();
      await finish({ ...base, status: 'sent', provider_id: result.messageId, error: null, attempts, at: sentAt });
      this.observe(req.channel, 'sent');
      sent = { provider: result.messageId, at: sentAt };
    } catch (err) {
      await finish({ ...base, status: 'failed', provider_id: null, error: String((err as Error)?.message ?? err), attempts, at: this.clock.now().toISOString() });
      this.observe(req.channel, 'failed');
      // Transient failures go back to the saga, which retries the whole event later.
      if (isTransientDeliveryError(err)) throw err;
    }
    // Outside the try: a failure to record is not a failed send (the message went out).
    if (sent) await this.recordDelivery(req, id, sent.provider, sent.at);
  }
}
