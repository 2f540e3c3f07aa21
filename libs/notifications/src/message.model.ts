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
  /** The sending organization's name for the From header (the address stays the installation's). */
  fromName?: string;
  /** The organization's reply address. */
  replyTo?: string;
  /**
   * The notifier's id for the logical message (`msg_…`): the Message-ID header derives from it, so
   * a resend (a retry, or the second claim after a frozen or killed worker) carries the first
   * attempt's Message-ID and a recipient's mail system can de-duplicate it.
   */
  messageId?: string;
}

export interface OutgoingSms {
  /** As stored on the participant: digits only, Korean domestic form such as 01012345678. */
  to: string;
  body: string;
  /** `LMS` for a body over 90 EUC-KR bytes (sms-length.ts); providers without the distinction send the body as it is. */
  type?: 'SMS' | 'LMS';
  /** LMS subject. */
  subject?: string;
}

/**
 * A KakaoTalk 알림톡: a template Kakao approved beforehand, filled with variables. Kakao refuses a
 * text that does not match the template, so the variables carry the values; `text` is the
 * rendered message as we would send it by SMS, kept for the record.
 */
export interface OutgoingAlimtalk {
  to: string;
  /** The KakaoTalk channel's sender profile key. */
  pfId: string;
  templateId: string;
  variables: Record<string, string>;
  text: string;
  /** A web-link button to the signing page (templates for requests carry one). */
  buttonUrl?: string | null;
}

export interface AlimtalkSendResult {
  messageId: string;
  /** The provider's status code at acceptance (SOLAPI: `2000` accepted). */
  status: string;
}

export interface AlimtalkSender {
  send(message: OutgoingAlimtalk): Promise<AlimtalkSendResult>;
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
  /** Releases what the sender keeps open between messages (SMTP's pooled connections). */
  close?(): void;
}

export interface SmsSender {
  send(sms: OutgoingSms): Promise<SmsSendResult>;
}
