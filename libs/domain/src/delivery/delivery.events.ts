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
    channel: 'email' | 'sms';
    recipient_masked: string;
    /** The provider's id (SMTP Message-ID, Twilio SID), or `outbox` in test mode. */
    provider_message_id: string;
    delivered_at: string;
  }
>;

export type DeliveryEvent = MessageDelivered;
export const DELIVERY_EVENT_TYPES: readonly DeliveryEvent['type'][] = ['MessageDelivered'];

/**
 * Deliveries of a document live in their own append-only stream beside `document-<id>`: they have
 * no invariant to decide, and writing them into the document stream would make every send race the
 * signers' commands for the next revision.
 */
export const deliveryStreamId = (documentId: string) => `delivery-${documentId}`;
