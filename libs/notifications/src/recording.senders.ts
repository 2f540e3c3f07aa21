import type { EmailSendResult, EmailSender, OutgoingEmail, OutgoingSms, SmsSendResult, SmsSender } from './message.model';

/**
 * In-memory senders for tests of the code that decides what to send. They
 * are not the test-mode outbox: the outbox is a read model that records the
 * message together with its document, participant, link and PIN.
 */
export class RecordingEmailSender implements EmailSender {
  readonly sent: OutgoingEmail[] = [];
  /** Errors to throw on the next sends, in order, before succeeding again. */
  readonly failures: unknown[] = [];

  async send(email: OutgoingEmail): Promise<EmailSendResult> {
    if (this.failures.length > 0) throw this.failures.shift();
    this.sent.push(email);
    return { messageId: `<recorded-${this.sent.length}@dojang.local>` };
  }
}

export class RecordingSmsSender implements SmsSender {
  readonly sent: OutgoingSms[] = [];
  readonly failures: unknown[] = [];

  async send(sms: OutgoingSms): Promise<SmsSendResult> {
    if (this.failures.length > 0) throw this.failures.shift();
    this.sent.push(sms);
    return { messageId: `SMrecorded${this.sent.length}`, status: 'queued' };
  }
}
