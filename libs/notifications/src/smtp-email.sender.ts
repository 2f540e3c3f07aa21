import type { Transporter } from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import { DeliveryError, isTransientDeliveryError } from './delivery.errors';
import type { EmailSendResult, EmailSender, OutgoingEmail } from './message.model';

export const DEFAULT_MAIL_FROM = 'Dojang <no-reply@dojang.local>';

export interface SmtpEmailSenderOptions {
  /** e.g. `smtp://user:pass@mail.example.com:587` or `smtps://…:465`; nodemailer's URL syntax. */
  url: string;
  /** Defaults to `MAIL_FROM`'s default, `Dojang <no-reply@dojang.local>`. */
  from?: string;
  /**
   * Bounds for one attempt. nodemailer's defaults (up to 10 minutes of socket
   * inactivity) would hold a worker slot far longer than a retry would take.
   */
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** Connections kept open to the server at once (default 2). */
  maxConnections?: number;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1) || 'dojang.local';

export class SmtpEmailSender implements EmailSender {
  private readonly transport: Transporter;
  readonly from: string;
  /** The bare address of `from`: a branded message keeps it (SPF/DKIM are the installation's) under the sender's name. */
  private readonly fromAddress: string;

  constructor(options: SmtpEmailSenderOptions) {
    if (!options.url) throw new Error('SMTP_URL is required for SmtpEmailSender');
    this.from = options.from || DEFAULT_MAIL_FROM;
    const parsed = addressparser(this.from, { flatten: true })[0] as { address?: string } | undefined;
    this.fromAddress = parsed?.address || 'no-reply@dojang.local';
    // Loaded when a mail sender is made, not with this library: an API process never sends mail
    // itself, and nodemailer is about 0.7 MB of JavaScript every process would otherwise load.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createTransport } = require('nodemailer') as typeof import('nodemailer');
    // Pooled: one SMTP conversation's opening (connect, greeting, EHLO, and TLS when the server
    // offers it) is paid once for many messages, not once per message. Relays commonly hold their
    // greeting back (smtp-server waits 100 ms for early talkers, postscreen several seconds), which
    // capped a worker at about 9 e-mails a second when every message opened its own connection.
    // A pooled connection the server dropped while idle is replaced on the next send.
    this.transport = createTransport({
      url: options.url,
      pool: true,
      maxConnections: options.maxConnections ?? 2,
      maxMessages: 100,
      connectionTimeout: options.connectionTimeoutMs ?? 15_000,
      greetingTimeout: options.greetingTimeoutMs ?? 15_000,
      socketTimeout: options.socketTimeoutMs ?? 30_000,
    });
  }

  /** Reads `SMTP_URL` and `MAIL_FROM`. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): SmtpEmailSender {
    const url = env.SMTP_URL;
    if (!url) throw new Error('SMTP_URL is not set');
    return new SmtpEmailSender({ url, from: env.MAIL_FROM });
  }

  async send(email: OutgoingEmail): Promise<EmailSendResult> {
    try {
      const info = await this.transport.sendMail({
        // nodemailer quotes and encodes the display name (RFC 2047 for Hangul), so a brand name
        // cannot break the header.
        from: email.fromName ? { name: email.fromName, address: this.fromAddress } : this.from,
        ...(email.replyTo ? { replyTo: email.replyTo } : {}),
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        attachments: email.attachments?.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
        // RFC 3834: stops vacation auto-replies from answering a machine.
        headers: { 'Auto-Submitted': 'auto-generated' },
        // The same for every send of one logical message (RFC 5322 §3.6.4: a resend of the same
        // message keeps its Message-ID), on the installation's own domain.
        ...(email.messageId ? { messageId: `<${email.messageId}@${domainOf(this.fromAddress)}>` } : {}),
      });
      // A server may accept some recipients and defer the rest; with one recipient that is a failure.
      const rejected = (info.rejected ?? []) as unknown[];
      if (rejected.length > 0) {
        throw new DeliveryError(`SMTP server rejected recipient ${email.to}`, { transient: false, channel: 'email' });
      }
      return { messageId: String(info.messageId ?? '') };
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      const e = err as { message?: string; responseCode?: number; code?: string };
      throw new DeliveryError(`e-mail to ${email.to} failed: ${e.message ?? String(err)}`, {
        transient: isTransientDeliveryError(err),
        channel: 'email',
        providerCode: e.responseCode ?? e.code,
        cause: err,
      });
    }
  }

  /** Checks the connection and credentials, for a readiness probe. */
  async verify(): Promise<void> {
    await this.transport.verify();
  }

  /** Ends the pooled connections: a stopping process has no socket left open. */
  close(): void {
    this.transport.close();
  }
}
