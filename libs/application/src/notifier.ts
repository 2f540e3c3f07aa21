import { createHash } from 'crypto';
import { hostname } from 'os';
import { maskEmail, maskPhone } from '@dojang/domain';
import { AlimtalkSender, DeliveryError, EmailAttachment, EmailSender, SmsSender, alimtalkReaches, isTransientDeliveryError, smsTypeFor, withRetries } from '@dojang/notifications';
import { ReadDoc, ReadStore } from '@dojang/read-store';
import { Clock } from './clock';
import { DeliveryRecorder } from './history/delivery-evidence';
import { MessageOutcome } from './runtime/observability/metrics';
import { backoffDelay } from '@dojang/projections';
import { ParkedEvent, REACTOR_FAILURES } from './reactors/reactor-runner';
import { notAStoreError } from './runtime/store-unavailable';
import { MessageDropped, MessageSendAttempt, claimsThatSent, takeOverSends, withAttemptSettled, withAttemptStarted } from './message-claim.fence';

export type { MessageSendAttempt } from './message-claim.fence';

export const OUTBOX = 'outbox';
/**
 * GET /v1/outbox filters by organization and mode, and by document or participant: each list has
 * an index that ends in its order, so a page reads only its own rows. Without the participant's,
 * `?participant_id=` (how a test reads a PIN) walked every message of the organization to fill its
 * page: the lifecycle bench's most expensive query, growing with the outbox.
 */
export const OUTBOX_COLLECTION = {
  name: OUTBOX,
  indexes: [
    ['organization_id', 'livemode', 'sort_key'],
    ['organization_id', 'livemode', 'document_id', 'sort_key'],
    ['organization_id', 'livemode', 'participant_id', 'sort_key'],
  ],
};
export const MESSAGE_LOG = 'message_log';

export type MessageKind = 'signing_request' | 'reminder' | 'pin' | 'completed' | 'canceled' | 'expired' | 'declined';
export type MessageChannel = 'email' | 'sms' | 'kakao';

/** What a KakaoTalk 알림톡 needs beside the text: the organization's channel and approved template. */
export interface KakaoMessage {
  pf_id: string;
  template_id: string;
  /** `#{name}` → value, filled into the approved template by the provider. */
  variables: Record<string, string>;
  button_url?: string | null;
}

export interface NotificationRequest {
  /** Stable per logical message (e.g. causing event id + participant + channel): resends are skipped. */
  key: string;
  kind: MessageKind;
  organization_id: string;
  livemode: boolean;
  document_id: string;
  participant_id: string | null;
  channel: MessageChannel;
  to: string;
  /** E-mail subject; for SMS the LMS subject (used when the body is over 90 EUC-KR bytes). */
  subject: string | null;
  /** The text; for `kakao` the rendered 알림톡, which is also the SMS/LMS sent when KakaoTalk fails. */
  body: string;
  html?: string;
  attachments?: EmailAttachment[];
  signing_url?: string | null;
  pin?: string | null;
  /** Required for `kakao`. */
  kakao?: KakaoMessage;
  /** E-mail: the organization's name on the From header and its Reply-To. */
  from_name?: string | null;
  reply_to?: string | null;
  /** Set on the SMS that replaces a failed KakaoTalk message: that message's id. */
  fallback_of?: string;
  /** The event the message answers, carried into the delivery evidence. */
  causation_id?: string;
  /**
   * The reactor and event that asked for the message: a claim left `sending` by a worker that died
   * mid-send is handed back to that reactor for that event once its lease ran out (sweepStale).
   * Messages without one (the API's PIN SMS: the signer asks again) are not revisited.
   */
  origin?: MessageOrigin;
  /**
   * Asked before every attempt (the first and each retry, under any claim): false drops the
   * message (status `dropped`, logged). A request or reminder passes one that reads the document
   * again, so a worker that wakes after the document concluded sends nothing. A store error
   * thrown here fails the send closed (the reactor retries later).
   */
  stillWanted?: () => Promise<boolean>;
}

export interface MessageOrigin {
  reactor: string;
  stream_id: string;
  event_id: string;
}

export interface NotifierOptions {
  /** Send attempts per pass (transient failures) and the wait between them. */
  attempts: number;
  baseDelayMs: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * How long a `sending` claim holds (default 2 minutes): past it, the message counts as cut off
   * mid-send and is sent again (at most once more: a claim is taken at most twice).
   */
  claimMs?: number;
  /** How long a message that left keeps trying to record its delivery while the store is away (default 10 minutes). */
  recordForMs?: number;
  /** This worker's name in the message log's attempts (default `host:pid`). */
  owner?: string;
  /** Told each message this worker stopped sending: its claim was taken over, or the document no longer asks for it (logged by the worker). */
  onDropped?: (dropped: DroppedMessage) => void;
}

export interface DroppedMessage {
  message_id: string;
  document_id: string;
  kind: MessageKind;
  channel: MessageChannel;
  /** The claim (fencing token) this worker held. */
  claim: number;
  reason: MessageDropped['reason'];
  detail: string;
}

/** A message is sent at most twice: its first claim, and one more after that claim ran out (claims that sent nothing do not count). */
export const MAX_MESSAGE_CLAIMS = 2;
export const DEFAULT_MESSAGE_CLAIM_MS = 2 * 60_000;

export interface OutboxRow extends ReadDoc {
  object: 'message';
  kind: MessageKind;
  organization_id: string;
  livemode: boolean;
  /** Which channel carried it: `kakao` is KakaoTalk 알림톡. */
  channel: MessageChannel;
  to: string;
  subject: string | null;
  body: string;
  html: string | null;
  /** SMS only: SMS or LMS by its EUC-KR length. */
  sms_type?: 'SMS' | 'LMS' | null;
  /** KakaoTalk only: the template code it used. */
  template_id?: string | null;
  from_name?: string | null;
  reply_to?: string | null;
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
  channel: MessageChannel;
  to_masked: string;
  /**
   * `fell_back`: a KakaoTalk message that was not delivered; its SMS went under `<key>:fallback`.
   * `dropped`: not sent (any more) because the document no longer asks for it (concluded, or the
   * participant acted) by the time of an attempt.
   */
  status: 'sending' | 'sent' | 'failed' | 'not_configured' | 'fell_back' | 'dropped';
  /** While `sending`: until when the claim holds; after it, another pass may take over. */
  lease_until?: string | null;
  /** Claims taken so far: the last one's number is the fencing token its attempts are written under. */
  claims?: number;
  /**
   * Every attempt, written before it is made (claim, try, worker, time) and then its outcome: each
   * copy that can have reached the recipient is here. Absent on rows from before issue 33.
   */
  sends?: MessageSendAttempt[];
  /** Who asked for it, so a stale claim can be handed back (see NotificationRequest.origin). */
  origin?: MessageOrigin | null;
  _version?: number;
  provider_id: string | null;
  error: string | null;
  attempts: number;
  at: string;
}

export const messageId = (key: string) => `msg_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;

/**
 * The channel a message goes by, decided here for both modes so that the test-mode outbox shows
 * what live mode does: KakaoTalk 알림톡 reaches Korean (+82) numbers only (`alimtalkReaches`), so a
 * message meant for KakaoTalk to any other number is an SMS/LMS from the start, under its own key
 * (it never was a KakaoTalk attempt, so nothing is recorded as one that failed). Its text is the
 * rendered 알림톡, which is also what the SMS that replaces an undelivered one carries.
 */
function onReachableChannel(req: NotificationRequest): NotificationRequest {
  if (req.channel !== 'kakao' || alimtalkReaches(req.to)) return req;
  const { kakao: _kakao, ...rest } = req;
  return { ...rest, channel: 'sms' };
}

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
    private readonly retry: NotifierOptions = { attempts: 4, baseDelayMs: 500 },
    /** Told each message's outcome (metrics). */
    private readonly observe: (channel: MessageChannel, outcome: MessageOutcome) => void = () => undefined,
    /** Told each message that left (or reached the outbox): it becomes a hash-chained event. */
    private readonly deliveries: DeliveryRecorder | null = null,
    /** KakaoTalk 알림톡 (SOLAPI); without it, `kakao` messages go by SMS straight away. */
    private readonly alimtalk: AlimtalkSender | null = null,
  ) {}

  /** This worker, as its attempts name it in the message log. */
  private get owner(): string {
    return this.retry.owner ?? `${hostname()}:${process.pid}`;
  }

  /**
   * Recording runs after the send, so a crash in between would lose it: every later pass over the
   * same message records again, and the store refuses the repeat (the event id derives from the
   * message id), so a message yields exactly one delivery event.
   */
  private async recordDelivery(req: NotificationRequest, id: string, providerMessageId: string, at: string, providerStatus?: string, sends?: MessageSendAttempt[]): Promise<void> {
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
      ...(req.channel === 'sms' ? { sms_type: smsTypeFor(req.body) } : {}),
      ...(providerStatus ? { provider_status: providerStatus } : {}),
      ...(req.fallback_of ? { fallback_of: req.fallback_of } : {}),
      ...(sends && sends.length > 0 ? { sends } : {}),
    });
  }

  /** The SMS/LMS that replaces a KakaoTalk message: its own key, so it is sent (and recorded) once however often the fallback is reached. */
  private fallbackOf(req: NotificationRequest, id: string): NotificationRequest {
    const { kakao: _k, ...rest } = req;
    return { ...rest, key: `${req.key}:fallback`, channel: 'sms', fallback_of: id };
  }

  private async recordKakaoFailure(req: NotificationRequest, id: string, failure: { provider_message_id: string | null; provider_status: string | null; reason: string; at: string }) {
    await this.deliveries?.recordFailure?.({
      message_id: id,
      kind: req.kind,
      organization_id: req.organization_id,
      livemode: req.livemode,
      document_id: req.document_id,
      participant_id: req.participant_id,
      channel: 'kakao',
      to: req.to,
      provider_message_id: failure.provider_message_id,
      provider_status: failure.provider_status,
      reason: failure.reason,
      failed_at: failure.at,
      causation_id: req.causation_id,
    });
  }

  /** Ends what the senders keep open (pooled SMTP connections); called by whoever made this notifier. */
  close(): void {
    this.email?.close?.();
  }

  async init(): Promise<void> {
    await this.reads.ensureCollection(OUTBOX_COLLECTION);
    await this.reads.ensureCollection({ name: MESSAGE_LOG, indexes: [['document_id', 'at']] });
  }

  async send(request: NotificationRequest): Promise<void> {
    const req = onReachableChannel(request);
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
        sms_type: req.channel === 'sms' ? smsTypeFor(req.body) : null,
        template_id: req.kakao?.template_id ?? null,
        from_name: req.from_name ?? null,
        reply_to: req.reply_to ?? null,
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
      await this.recordDelivery(req, id, logged.provider_id ?? '', logged.at, undefined, logged.sends);
      return;
    }
    if (logged && (logged.status === 'not_configured' || logged.status === 'dropped')) return;
    // A KakaoTalk message that was not delivered: its failure and its SMS are (re)done idempotently.
    if (logged && logged.status === 'fell_back') {
      await this.recordKakaoFailure(req, id, { provider_message_id: logged.provider_id, provider_status: null, reason: logged.error ?? 'not delivered', at: logged.at });
      return this.send(this.fallbackOf(req, id));
    }
    // A claim in flight is its claimant's. If it never finishes (the worker died mid-send),
    // sweepStale hands the message back to its reactor once the lease ran out.
    if (logged && logged.status === 'sending' && logged.lease_until && Date.parse(logged.lease_until) > Date.parse(now)) return;
    const base = {
      id,
      kind: req.kind,
      organization_id: req.organization_id,
      document_id: req.document_id,
      participant_id: req.participant_id,
      channel: req.channel,
      to_masked: (req.channel === 'email' ? maskEmail(req.to) : maskPhone(req.to)) ?? '',
      origin: req.origin ?? null,
    };
    let version = logged ? (logged._version ?? 0) : null;
    // A stale claim means a send may have left without its answer: one more is allowed, no more.
    const claims = logged?.status === 'sending' ? (logged.claims ?? 1) : (logged?.claims ?? 0);
    const sent = claimsThatSent(logged);
    if (logged?.status === 'sending' && sent >= MAX_MESSAGE_CLAIMS) {
      const givenUp: MessageLogRow = {
        ...base,
        status: 'failed',
        provider_id: null,
        error: `sent ${sent} times without an answer; not sent again`,
        attempts: logged.attempts ?? 0,
        at: now,
        claims,
        lease_until: null,
        sends: takeOverSends(logged.sends, now),
      };
      if (await this.reads.putIfVersion(MESSAGE_LOG, givenUp, version)) this.observe(req.channel, 'failed');
      return;
    }
    const sender = req.channel === 'email' ? this.email : req.channel === 'kakao' ? this.alimtalk : this.sms;
    // No KakaoTalk provider (or no template): the phone still gets the message, by SMS.
    if (req.channel === 'kakao' && (!sender || !req.kakao)) return this.send(this.fallbackOf(req, id));
    // Claim the message before sending, atomically across passes and processes: whoever wins the
    // compare-and-swap sends; a claim whose lease ran out (a crash mid-send) can be taken over.
    // Its number (one more than the last) is the fencing token every attempt is written under.
    const claimNo = sender ? claims + 1 : claims;
    let current: MessageLogRow = {
      ...base,
      status: 'sending',
      provider_id: null,
      error: null,
      attempts: logged?.attempts ?? 0,
      at: now,
      claims: claimNo,
      lease_until: new Date(Date.parse(now) + this.claimMs).toISOString(),
      sends: takeOverSends(logged?.sends, now),
    };
    if (!(await this.reads.putIfVersion(MESSAGE_LOG, current, version))) return;
    version = (version ?? 0) + 1;
    /** The final word of this claim, written only while the claim is still this worker's. */
    const finish = async (row: MessageLogRow): Promise<boolean> => {
      const ok = await this.reads.putIfVersion(MESSAGE_LOG, { ...row, claims: claimNo, lease_until: null, sends: current.sends }, version);
      if (ok) version = (version ?? 0) + 1;
      return ok;
    };
    if (!sender) {
      await finish({ ...base, status: 'not_configured', provider_id: null, error: `${req.channel} is not configured`, attempts: 0, at: now });
      this.observe(req.channel, 'not_configured');
      return;
    }
    let attempts = 0;
    let lastError: string | null = null;
    let providerError: unknown = undefined;
    let result: { messageId: string; status?: string };
    try {
      result = await withRetries(
        async (attempt) => {
          // The fence, before the first try and before every retry: a request the document no
          // longer asks for (it concluded, or the participant acted) is not sent, and the attempt
          // is written under this claim's version first, so a worker whose claim was taken over
          // (frozen past its lease) cannot send another copy.
          if (req.stillWanted && !(await req.stillWanted())) throw new MessageDropped('no_longer_wanted', 'the document no longer asks for this message');
          const startedAt = this.clock.now().toISOString();
          const next = withAttemptStarted(current, {
            claim: claimNo,
            attempt,
            worker: this.owner,
            at: startedAt,
            leaseUntil: new Date(Date.parse(startedAt) + this.claimMs).toISOString(),
            previousError: lastError,
          });
          if (!(await this.reads.putIfVersion(MESSAGE_LOG, next, version))) {
            throw new MessageDropped('claim_taken_over', `claim ${claimNo} was taken over by another worker`);
          }
          version = (version ?? 0) + 1;
          current = next;
          attempts = attempt;
          try {
            return await this.deliver(sender, req, id);
          } catch (err) {
            lastError = this.masked(err, req, base.to_masked);
            providerError = err;
            throw err;
          }
        },
        { attempts: this.retry.attempts, baseDelayMs: this.retry.baseDelayMs, ...(this.retry.sleep ? { sleep: this.retry.sleep } : {}) },
      );
    } catch (err) {
      if (err instanceof MessageDropped) {
        if (attempts > 0 && lastError !== null) {
          current = { ...current, sends: withAttemptSettled(current.sends, { claim: claimNo, attempt: attempts }, { outcome: 'failed', at: this.clock.now().toISOString(), error: lastError }) ?? current.sends };
        }
        return this.dropped(req, id, claimNo, attempts, lastError, err, finish, base);
      }
      // The fence could not be checked (the store is away): not an answer from the provider. The
      // claim stays until its lease ends; having sent nothing more, it costs no copy.
      if (err !== providerError) throw err;
      const reason = this.masked(err, req, base.to_masked);
      const failedAt = this.clock.now().toISOString();
      current = { ...current, sends: withAttemptSettled(current.sends, { claim: claimNo, attempt: attempts }, { outcome: 'failed', at: failedAt, error: reason }) ?? current.sends };
      if (req.channel === 'kakao') {
        // Not delivered by KakaoTalk (refused, or the provider stayed unreachable through the
        // retries): the failure joins the evidence and the same text goes by SMS/LMS.
        const providerId = err instanceof DeliveryError ? (err.providerMessageId ?? null) : null;
        const status = err instanceof DeliveryError && err.providerCode !== undefined ? String(err.providerCode) : null;
        if (!(await finish({ ...base, status: 'fell_back', provider_id: providerId, error: reason, attempts, at: failedAt }))) {
          return this.answeredLate(req, id, claimNo, attempts, { outcome: 'failed', at: failedAt, error: reason });
        }
        this.observe('kakao', 'failed');
        await this.recordKakaoFailure(req, id, { provider_message_id: providerId, provider_status: status, reason, at: failedAt });
        return this.send(this.fallbackOf(req, id));
      }
      if (!(await finish({ ...base, status: 'failed', provider_id: null, error: reason, attempts, at: failedAt }))) {
        return this.answeredLate(req, id, claimNo, attempts, { outcome: 'failed', at: failedAt, error: reason });
      }
      this.observe(req.channel, 'failed');
      // Transient failures go back to the saga, which retries the whole event later (and parks
      // it if the provider stays down): a provider's ECONNREFUSED is not the database's.
      if (isTransientDeliveryError(err)) throw notAStoreError(err);
      return;
    }
    this.observe(req.channel, 'sent');
    // The message left: its record (the log row, then the delivery event) must follow even if the
    // store is away right now. Retried here with back-off rather than left to a later pass, which
    // would find the claim still held and skip it; if this process dies first, the claim runs out
    // and the message is sent once more, and that send records it.
    const sentAt = this.clock.now().toISOString();
    const answer = { outcome: 'sent' as const, at: sentAt, provider_id: result.messageId };
    current = { ...current, sends: withAttemptSettled(current.sends, { claim: claimNo, attempt: attempts }, answer) ?? current.sends };
    await this.untilRecorded(async () => {
      // Taken over while this copy was in flight: the other claim's record stands; this copy's
      // answer joins the log beside it, and the delivery (it did leave) is recorded once.
      if (!(await finish({ ...base, status: 'sent', provider_id: result.messageId, error: null, attempts, at: sentAt }))) {
        await this.answeredLate(req, id, claimNo, attempts, answer);
      }
      const row = await this.reads.get<MessageLogRow>(MESSAGE_LOG, id);
      await this.recordDelivery(req, id, result.messageId, sentAt, result.status, row?.sends ?? current.sends);
    });
  }

  /**
   * A provider's error as the log keeps it: transports name the recipient ("e-mail to kim@… failed"),
   * and the message log stores addresses masked only.
   */
  private masked(err: unknown, req: NotificationRequest, toMasked: string): string {
    const text = String((err as Error)?.message ?? err);
    return req.to ? text.split(req.to).join(toMasked) : text;
  }

  private get claimMs(): number {
    return this.retry.claimMs ?? DEFAULT_MESSAGE_CLAIM_MS;
  }

  /** One try on the message's channel. */
  private deliver(sender: EmailSender | SmsSender | AlimtalkSender, req: NotificationRequest, id: string): Promise<{ messageId: string; status?: string }> {
    if (req.channel === 'email') {
      return (sender as EmailSender).send({
        to: req.to,
        subject: req.subject ?? '',
        text: req.body,
        html: req.html ?? req.body,
        attachments: req.attachments,
        messageId: id,
        ...(req.from_name ? { fromName: req.from_name } : {}),
        ...(req.reply_to ? { replyTo: req.reply_to } : {}),
      });
    }
    if (req.channel === 'kakao') {
      const k = req.kakao as KakaoMessage;
      return (sender as AlimtalkSender).send({ to: req.to, pfId: k.pf_id, templateId: k.template_id, variables: k.variables, text: req.body, buttonUrl: k.button_url ?? null });
    }
    return (sender as SmsSender).send({ to: req.to, body: req.body, type: smsTypeFor(req.body), ...(req.subject ? { subject: req.subject } : {}) });
  }

  /**
   * The fence stopped this worker: its claim was taken over (nothing is written but the late
   * answer of its last attempt, if it had one), or the document no longer asks for the message
   * (the claim is still this worker's: it ends as `dropped`). Either way, said in the log.
   */
  private async dropped(
    req: NotificationRequest,
    id: string,
    claim: number,
    attempts: number,
    lastError: string | null,
    err: MessageDropped,
    finish: (row: MessageLogRow) => Promise<boolean>,
    base: Pick<MessageLogRow, 'id' | 'kind' | 'organization_id' | 'document_id' | 'participant_id' | 'channel' | 'to_masked' | 'origin'>,
  ): Promise<void> {
    const at = this.clock.now().toISOString();
    this.retry.onDropped?.({ message_id: id, document_id: req.document_id, kind: req.kind, channel: req.channel, claim, reason: err.reason, detail: err.message });
    if (err.reason === 'claim_taken_over') {
      // Its last attempt failed (that is why it was retrying): that answer goes into the log.
      if (attempts > 0) await this.answeredLate(req, id, claim, attempts, { outcome: 'failed', at, error: lastError ?? 'failed' });
      return;
    }
    await finish({ ...base, status: 'dropped', provider_id: null, error: err.message, attempts, at });
    this.observe(req.channel, 'dropped');
  }

  /**
   * An answer that came after this worker's claim was taken over, written into its own attempt
   * only (compare-and-swap on whatever the row is now, a few times): the log then says what became
   * of every copy, without touching the claim that holds now.
   */
  private async answeredLate(req: NotificationRequest, id: string, claim: number, attempt: number, answer: Parameters<typeof withAttemptSettled>[2]): Promise<void> {
    for (let tries = 0; tries < 5; tries++) {
      const row = await this.reads.get<MessageLogRow>(MESSAGE_LOG, id);
      const sends = row && withAttemptSettled(row.sends, { claim, attempt }, answer);
      if (!row || !sends) return;
      if (await this.reads.putIfVersion(MESSAGE_LOG, { ...row, sends }, row._version ?? 0)) return;
    }
    this.retry.onDropped?.({ message_id: id, document_id: req.document_id, kind: req.kind, channel: req.channel, claim, reason: 'claim_taken_over', detail: `the late answer of attempt ${attempt} (${answer.outcome}) could not be logged` });
  }

  private async untilRecorded(record: () => Promise<void>): Promise<void> {
    const sleep = this.retry.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const giveUpAt = Date.now() + (this.retry.recordForMs ?? 10 * 60_000);
    for (let failures = 1; ; failures++) {
      try {
        return await record();
      } catch (err) {
        if (Date.now() >= giveUpAt) throw err;
        await sleep(backoffDelay(failures, { baseMs: 200, maxMs: 5000 }));
      }
    }
  }

  /**
   * Claims left `sending` past their lease (a worker killed or frozen mid-send, or a store that
   * was away when the send finished) are handed back to the reactor that asked for them, as a
   * parked event due now: the next retry of parked events runs that reactor for that event again,
   * and the message is claimed anew and sent (its second and last time) while the others of the
   * same event are found sent and skipped. Returns how many were handed back.
   */
  async sweepStale(limit = 50): Promise<number> {
    const now = this.clock.now();
    const stale = await this.reads.find<MessageLogRow>(MESSAGE_LOG, {
      where: { status: 'sending', lease_until: { $lte: now.toISOString() } },
      limit,
    });
    let handedBack = 0;
    for (const row of stale) {
      if (!row.origin) continue;
      const parked: ParkedEvent = {
        id: `${row.origin.reactor}:${row.origin.event_id}`,
        reactor: row.origin.reactor,
        event_id: row.origin.event_id,
        stream_id: row.origin.stream_id,
        stream_revision: -1,
        type: 'message_claim_expired',
        error: `message ${row.id} was left sending (claim expired at ${row.lease_until})`,
        status: 'parked',
        retries: 0,
        parked_at: now.toISOString(),
        next_attempt_at: now.toISOString(),
      };
      // Insert-if-absent: an event already parked (or handed back by another worker) is retried as it is.
      if (await this.reads.putIfVersion(REACTOR_FAILURES, parked, null)) handedBack++;
    }
    return handedBack;
  }
}
