import { DomainEvent } from '../shared/decider';

export type DeliveredMessageKind = 'signing_request' | 'reminder' | 'pin' | 'completed' | 'canceled' | 'expired' | 'declined';

/**
 * A message about a document left Dojang: handed to the e-mail or SMS provider (live), or put in
 * the outbox (test mode, `provider_message_id: "outbox"`). Evidence that a participant was told,
 * so it is hash-chained like the document's own events. The recipient is stored masked: the
 * unmasked address is in the document stream already, and evidence should not copy it around.
 */
export type MessageDelivered = DomainEvent<
  'MessageDelivered',
  {
    /** `msg_…`: the notifier's id for the logical message (one per causing event, participant and channel). */
    message_id: string;
    document_id: string;
    participant_id: string | null;
    kind: DeliveredMessageKind;
    channel: DeliveryChannel;
    recipient_masked: string;
    /** The provider's id (SMTP Message-ID, Twilio SID, SOLAPI messageId), or `outbox` in test mode. */
    provider_message_id: string;
    delivered_at: string;
    /** SMS only: `SMS` (up to 90 EUC-KR bytes) or `LMS` (longer, with a subject). Absent before the split existed. */
    sms_type?: 'SMS' | 'LMS';
    /** The provider's status at acceptance (SOLAPI statusCode, e.g. `2000`), when it gives one. */
    provider_status?: string;
    /** This message replaces a KakaoTalk message that was not delivered (its `message_id`). */
    fallback_of?: string;
    /**
     * Live messages: every send attempt known when the delivery was recorded, so a message sent
     * twice (a worker cut off mid-send, its claim taken over) shows both copies. Absent in test
     * mode and on events from before issue 33.
     */
    sends?: DeliverySend[];
  }
>;

/**
 * One attempt to send a message: the claim it was made under (the fencing token: 1, then 2 after
 * a takeover), its try within that claim, and how it ended. `unanswered`: the claim was taken
 * over before the provider's answer came, so the copy may have arrived.
 */
export interface DeliverySend {
  claim: number;
  attempt: number;
  started_at: string;
  finished_at: string | null;
  outcome: 'sending' | 'sent' | 'failed' | 'unanswered';
}

/** Channels a message can leave by. `kakao` is KakaoTalk 알림톡. */
export type DeliveryChannel = 'email' | 'sms' | 'kakao';

/**
 * A KakaoTalk 알림톡 the provider did not deliver (refused at acceptance, or failed after its
 * retries): recorded in the same chain, so the evidence shows both the failed attempt and the
 * SMS/LMS that replaced it (whose MessageDelivered names this `message_id` in `fallback_of`).
 */
export type MessageDeliveryFailed = DomainEvent<
  'MessageDeliveryFailed',
  {
    message_id: string;
    document_id: string;
    participant_id: string | null;
    kind: DeliveredMessageKind;
    channel: DeliveryChannel;
    recipient_masked: string;
    /** The provider's id for the attempt when it gave one (SOLAPI assigns one even to a refused message), else null. */
    provider_message_id: string | null;
    /** The provider's result code and text (SOLAPI statusCode / statusMessage), or the transport error. */
    provider_status: string | null;
    reason: string;
    failed_at: string;
  }
>;

export type DeliveryEvent = MessageDelivered | MessageDeliveryFailed;
export const DELIVERY_EVENT_TYPES: readonly DeliveryEvent['type'][] = ['MessageDelivered', 'MessageDeliveryFailed'];

/**
 * Deliveries of a document live in their own append-only stream beside `document-<id>`: they have
 * no invariant to decide, and writing them into the document stream would make every send race the
 * signers' commands for the next revision.
 */
export const deliveryStreamId = (documentId: string) => `delivery-${documentId}`;
