/** What the notification side of the worker asks a channel to send. */

export interface EmailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: EmailAttachment[];
}

export interface OutgoingSms {
  /** As stored on the participant: digits only, Korean domestic form such as 01012345678. */
  to: string;
  body: string;
}

export interface EmailSendResult {
  /** The Message-ID the transport reported, for the delivery log and bounce matching. */
  messageId: string;
}

export interface SmsSendResult {
  /** The provider's id for the message (a Twilio Message SID). */
  messageId: string;
  /** The provider's status at acceptance, e.g. `queued`. */
  status: string;
}

export interface EmailSender {
  send(email: OutgoingEmail): Promise<EmailSendResult>;
}

export interface SmsSender {
  send(sms: OutgoingSms): Promise<SmsSendResult>;
}
