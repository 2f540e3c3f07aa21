import { randomUUID } from 'crypto';
import * as os from 'os';
import { AlimtalkSender, EmailSender, SmsSender, SmtpEmailSender, SolapiSender, TwilioSmsSender } from '@dojang/notifications';
import { Clock, systemClock } from '../clock';
import { Infrastructure } from './infrastructure';
import { Notifier } from '../notifier';
import { DeliveryEvidence } from '../history/delivery-evidence';
import { ParkedRetryStats, Reactor, ReactorRunner } from '../reactors/reactor-runner';
import { SigningNotificationsReactor } from '../reactors/signing-notifications.reactor';
import { SigningDraftStore, SigningDraftsReactor } from '../signing-drafts/signing-drafts';
import { PageImagesReactor } from '../reactors/page-images.reactor';
import { DocumentCertifier, DocumentCertificationReactor, readStoreCertificationLedger } from '../verification/document-certifier';
import { ArchiveTimersReactor, ArchiveTimestamper } from '../archive/archive-timestamper';
import { UsageReactor } from '../usage/usage.reactor';
import { BulkSendReactor, BulkSendReactorOptions } from '../bulk-send/bulk-send.reactor';
import { OrphanedReservationSweeper, ReservationSweepStats } from '../bulk-send/orphaned-reservation.sweeper';
import { EditSessionStore } from '../edit-sessions/edit-session.store';
import { DocumentPdfService } from '../document-pdf.service';
import { withOrganizationKeys } from '../organization-signing-keys';
import { TemplateSender } from '../templates/template-send.service';
import { DEFAULT_TICK_INTERVAL_MS, DeliveryLoop, DeliveryLoopOptions, WebhookDispatcher } from '../webhooks';
import { TickStats } from '../timers';
import { recordEventSpans } from './observability';

export interface WorkerOptions extends DeliveryLoopOptions {
  clock?: Clock;
  email?: EmailSender | null;
  sms?: SmsSender | null;
  alimtalk?: AlimtalkSender | null;
  /** Extra reactors contributed by other slices (webhooks, timers…). */
  reactors?: (ctx: WorkerContext) => Reactor[];
  retrySleep?: (ms: number) => Promise<void>;
  /** Pacing of bulk sends (BulkSendReactor). */
  bulkSend?: BulkSendReactorOptions;
}

export interface WorkerContext {
  infra: Infrastructure;
  clock: Clock;
  notifier: Notifier;
  origin: string;
}

export interface Worker extends WorkerContext {
  runner: ReactorRunner;
  /** Fires due timers (document expiry, automatic reminders) now; the background loop does it every tickIntervalMs. */
  tick(): Promise<TickStats>;
  /** Webhook deliveries: `dispatchDue()` sends what is due now. */
  webhooks: WebhookDispatcher;
  /** Retries the parked events that are due (the background loop does it every 15 s). */
  retryParked(): Promise<ParkedRetryStats>;
  /** Hands messages left `sending` past their claim back to their reactor (the background loop does it before each retry round). */
  sweepMessages(): Promise<number>;
  /** Releases credit reservations no bulk send was started under, past their grace period (the background loop does it every minute). */
  sweepReservations(): Promise<ReservationSweepStats>;
  /** Deletes edit-session URLs and sessions a day past their expiry (the background loop does it every minute); answers how many. */
  sweepEditSessions(): Promise<number>;
  stop(): Promise<void>;
}

const PARKED_RETRY_INTERVAL_MS = 15_000;
/**
 * Orphaned credit reservations are released only ORPHANED_RESERVATION_GRACE_MS (10 minutes) after
 * they were made: looking once a minute adds at most a tenth to that wait, for one indexed read.
 */
const RESERVATION_SWEEP_INTERVAL_MS = 60_000;

export const publicOrigin = (infra: Infrastructure) => infra.config.publicOrigin ?? `http://localhost:${infra.config.port}`;

export function emailSenderFromConfig(infra: Infrastructure): EmailSender | null {
  return infra.config.smtpUrl ? new SmtpEmailSender({ url: infra.config.smtpUrl, from: infra.config.mailFrom }) : null;
}

function solapiFromConfig(infra: Infrastructure): SolapiSender | null {
  const s = infra.config.solapi;
  return s ? new SolapiSender({ apiKey: s.apiKey, apiSecret: s.apiSecret, from: s.from, ...(s.apiBaseUrl ? { apiBaseUrl: s.apiBaseUrl } : {}) }) : null;
}

/** SMS by SOLAPI (SMS/LMS to Korean numbers) when configured, unless SMS_PROVIDER=twilio; else Twilio. */
export function smsSenderFromConfig(infra: Infrastructure): SmsSender | null {
  const t = infra.config.twilio;
  const twilio = t ? new TwilioSmsSender({ accountSid: t.accountSid, authToken: t.authToken, from: t.from, ...(t.apiBaseUrl ? { apiBaseUrl: t.apiBaseUrl } : {}) }) : null;
  if (twilio && (infra.config.smsProvider === 'twilio' || !infra.config.solapi)) return twilio;
  return solapiFromConfig(infra) ?? twilio;
}

/** KakaoTalk 알림톡 by SOLAPI, when configured. */
export function alimtalkSenderFromConfig(infra: Infrastructure): AlimtalkSender | null {
  return solapiFromConfig(infra);
}

/** The notifier the API uses for messages it sends itself (PINs). */
export async function createNotifier(infra: Infrastructure, options: WorkerOptions = {}): Promise<Notifier> {
  const notifier = new Notifier(
    infra.reads,
    options.clock ?? systemClock,
    options.email !== undefined ? options.email : emailSenderFromConfig(infra),
    options.sms !== undefined ? options.sms : smsSenderFromConfig(infra),
    {
      attempts: 4,
      baseDelayMs: 500,
      claimMs: infra.config.messageClaimMs,
      ...(options.retrySleep ? { sleep: options.retrySleep } : {}),
      onDropped: (dropped) =>
        infra.logger.warn(
          dropped,
          dropped.reason === 'claim_taken_over' ? 'message not sent again: its claim was taken over by another worker' : 'message dropped: the document no longer asks for it',
        ),
    },
    (channel, outcome) => infra.metrics.messages.inc({ channel, outcome }),
    new DeliveryEvidence(infra.events),
    options.alimtalk !== undefined ? options.alimtalk : alimtalkSenderFromConfig(infra),
  );
  await notifier.init();
  return notifier;
}

/** The worker: process managers on the durable subscription (in-process in embedded mode). */
export async function startWorker(infra: Infrastructure, options: WorkerOptions = {}): Promise<Worker> {
  const clock = options.clock ?? systemClock;
  const notifier = await createNotifier(infra, options);
  const origin = publicOrigin(infra);
  const ctx: WorkerContext = { infra, clock, notifier, origin };
  // Bulk sends render each row's contract, the archive job re-timestamps final PDFs (in the shared PDF pool).
  const pdf = withOrganizationKeys(new DocumentPdfService(infra.blobs, infra.config, infra.reads), infra);
  const archiver = new ArchiveTimestamper(infra, pdf, clock, { tsaUrl: infra.config.tsaUrl, marginDays: infra.config.archiveTimestampMarginDays });
  const delivery = new DeliveryLoop(infra, clock, { ...options, timers: { archive: (timer) => archiver.fire(timer), ...(options.timers ?? {}) } });
  await delivery.init();
  const reactors: Reactor[] = [
    new SigningNotificationsReactor(infra.events, infra.reads, infra.blobs, notifier, infra.secrets, origin, (skipped) =>
      infra.logger.info(skipped, 'message not sent: the document no longer asks this participant to act'),
    ),
    new UsageReactor(infra.events, infra.commands),
    new SigningDraftsReactor(new SigningDraftStore(infra.reads)),
    // Off, a link's first open renders them (the test harness turns it off: its sends are many).
    ...(infra.config.pageImagesAtSend ? [new PageImagesReactor(pdf)] : []),
    new BulkSendReactor(infra, new TemplateSender(infra, pdf, clock), clock, options.bulkSend ?? { paceMs: infra.config.bulkSendPaceMs, window: infra.config.bulkSendWindow }),
    new DocumentCertificationReactor(new DocumentCertifier(infra.events, infra.commands, readStoreCertificationLedger(infra.reads), () => pdf.evidenceKey(), clock, infra.config.tsaUrl)),
    // Only B-LTA files carry a document timestamp to renew.
    new ArchiveTimersReactor(infra, clock, archiver, !!infra.config.tsaUrl && infra.config.padesLevel === 'B-LTA'),
    ...delivery.reactors,
    ...(options.reactors?.(ctx) ?? []),
  ];
  const runner = new ReactorRunner(infra.events, infra.reads, reactors, {
    clock,
    // Several workers share the reactors, one runner per reactor at a time (see ARCHITECTURE.md).
    leaseMs: infra.config.reactorLeaseMs,
    owner: `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    onError: (reactor, event, err, attempt, retryInMs) =>
      infra.logger.warn({ reactor, event_type: event.type, event_id: event.event_id, attempt, err, ...(retryInMs != null ? { retry_in_ms: retryInMs } : {}) }, 'reactor failed'),
    onReacted: (reactor, event, startedAt, err) => recordEventSpans(`react ${reactor}`, [event], startedAt, { 'dojang.reactor': reactor }, err),
  });
  await runner.start();
  delivery.start();
  // Parked events wait minutes to hours between retries: a slow loop is enough. Off with the
  // delivery loop (tickIntervalMs 0), where tests call sweepMessages() and retryParked() themselves.
  // Each round first hands messages left `sending` past their claim back to their reactor (a
  // worker died mid-send), then retries what is due; a failure (the store is away) is logged and
  // the next round tries again.
  let retrying: Promise<unknown> | null = null;
  const retryLoop =
    (options.tickIntervalMs ?? DEFAULT_TICK_INTERVAL_MS) > 0
      ? setInterval(
          () => {
            retrying ??= (async () => {
              if ((await notifier.sweepStale()) > 0) infra.logger.warn({}, 'messages left sending past their claim were handed back to their reactor');
              await runner.retryParked();
            })()
              .catch((err) => {
                infra.logger.error({ err }, 'parked retries failed');
              })
              .finally(() => (retrying = null));
          },
          Math.min(PARKED_RETRY_INTERVAL_MS, Math.max(1000, Math.floor(infra.config.messageClaimMs / 2))),
        )
      : null;
  retryLoop?.unref();
  // Every worker sweeps (at least once: the organization's stream decides, so a reservation is
  // released once however many sweep it). A failed sweep is logged; the next one tries again.
  // The same round deletes expired edit-session rows (the API writes them and never reads them
  // back once expired; two workers deleting the same row delete it once).
  const reservations = new OrphanedReservationSweeper(infra, clock);
  const editSessions = new EditSessionStore(infra.reads);
  let sweeping: Promise<unknown> | null = null;
  const reservationLoop =
    (options.tickIntervalMs ?? DEFAULT_TICK_INTERVAL_MS) > 0
      ? setInterval(() => {
          sweeping ??= (async () => {
            await reservations.sweep().catch((err) => infra.logger.error({ err }, 'credit reservation sweep failed'));
            await editSessions.sweep(clock.now()).catch((err) => infra.logger.error({ err }, 'edit session sweep failed'));
          })().finally(() => (sweeping = null));
        }, RESERVATION_SWEEP_INTERVAL_MS)
      : null;
  reservationLoop?.unref();
  return {
    ...ctx,
    runner,
    tick: () => delivery.tick(),
    webhooks: delivery.webhooks,
    retryParked: () => runner.retryParked(),
    sweepMessages: () => notifier.sweepStale(),
    sweepReservations: () => reservations.sweep(),
    sweepEditSessions: () => editSessions.sweep(clock.now()),
    stop: async () => {
      if (retryLoop) clearInterval(retryLoop);
      if (reservationLoop) clearInterval(reservationLoop);
      await retrying;
      await sweeping;
      await delivery.stop();
      await runner.stop();
      await pdf.close();
      notifier.close();
    },
  };
}
