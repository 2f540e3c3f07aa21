import { createHash } from 'crypto';
import { DeliveredMessageKind, MessageDelivered, deliveryStreamId, maskEmail, maskPhone } from '@dojang/domain';
import { DuplicateEventError, EventStore } from '@dojang/event-store';
import { SCHEMA_VERSION } from '../command-handler';

export interface DeliveryFact {
  message_id: string;
  kind: DeliveredMessageKind;
  organization_id: string;
  livemode: boolean;
  document_id: string;
  participant_id: string | null;
  channel: 'email' | 'sms';
  /** Unmasked; masked before it is stored. */
  to: string;
  provider_message_id: string;
  delivered_at: string;
  causation_id?: string;
}

/** Where the notifier reports a message that left (or landed in the outbox). */
export interface DeliveryRecorder {
  record(fact: DeliveryFact): Promise<void>;
}

/**
 * The event id of a delivery derives from its message id, so recording the same message twice (a
 * reactor replay, two workers, a retry after a crash between send and record) is refused by the
 * store as a duplicate instead of chaining a second event.
 */
export function deliveryEventId(messageId: string): string {
  const h = createHash('sha256').update(`delivery:${messageId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Appends each delivery as a `MessageDelivered` event to the document's `delivery-<id>` stream. */
export class DeliveryEvidence implements DeliveryRecorder {
  constructor(private readonly events: EventStore) {}

  async record(fact: DeliveryFact): Promise<void> {
    const streamId = deliveryStreamId(fact.document_id);
    const eventId = deliveryEventId(fact.message_id);
    // The stores refuse a repeated event id, but EventStoreDB only within a stream's latest events
    // on an 'any' append; a delivery stream is short, so look first and let the store catch races.
    if ((await this.events.readStream(streamId)).some((e) => e.event_id === eventId)) return;
    const event: MessageDelivered = {
      type: 'MessageDelivered',
      data: {
        message_id: fact.message_id,
        document_id: fact.document_id,
        participant_id: fact.participant_id,
        kind: fact.kind,
        channel: fact.channel,
        recipient_masked: (fact.channel === 'sms' ? maskPhone(fact.to) : maskEmail(fact.to)) ?? '',
        provider_message_id: fact.provider_message_id,
        delivered_at: fact.delivered_at,
      },
    };
    try {
      // 'any': the stream is append-only with no invariant; the store still chains each event to
      // the stream's head at append.
      await this.events.append(
        streamId,
        [
          {
            event_id: eventId,
            type: event.type,
            data: event.data,
            metadata: {
              occurred_at: fact.delivered_at,
              actor: 'system',
              organization_id: fact.organization_id,
              livemode: fact.livemode,
              causation_id: fact.causation_id,
              schema_version: SCHEMA_VERSION,
            },
          },
        ],
        'any',
      );
    } catch (err) {
      if (err instanceof DuplicateEventError) return; // recorded already
      throw err;
    }
  }
}
