import { createHash } from 'crypto';
import { DeliveredMessageKind, DeliveryChannel, DeliverySend, MessageDelivered, MessageDeliveryFailed, deliveryStreamId, maskEmail, maskPhone } from '@dojang/domain';
import { DuplicateEventError, EventStore } from '@dojang/event-store';
import { SCHEMA_VERSION } from '../commands/command-context';

export interface DeliveryFact {
  message_id: string;
  kind: DeliveredMessageKind;
  organization_id: string;
  livemode: boolean;
  document_id: string;
  participant_id: string | null;
  channel: DeliveryChannel;
  /** Unmasked; masked before it is stored. */
  to: string;
  provider_message_id: string;
  delivered_at: string;
  causation_id?: string;
  sms_type?: 'SMS' | 'LMS';
  provider_status?: string;
  fallback_of?: string;
  /** The message log's attempts (the worker's name is left out of the evidence). */
  sends?: Array<DeliverySend & { worker?: string }>;
}

/** A KakaoTalk attempt that was not delivered (see MessageDeliveryFailed). */
export interface DeliveryFailureFact extends Omit<DeliveryFact, 'provider_message_id' | 'delivered_at' | 'sms_type' | 'fallback_of' | 'provider_status' | 'sends'> {
  provider_message_id: string | null;
  provider_status: string | null;
  reason: string;
  failed_at: string;
}

/** Where the notifier reports a message that left (or landed in the outbox), or a KakaoTalk attempt that did not. */
export interface DeliveryRecorder {
  record(fact: DeliveryFact): Promise<void>;
  recordFailure?(fact: DeliveryFailureFact): Promise<void>;
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

/** What a delivery and a failed attempt both record of the message: who, what, by which channel, masked. */
function attemptOf(fact: DeliveryFact | DeliveryFailureFact) {
  return {
    message_id: fact.message_id,
    document_id: fact.document_id,
    participant_id: fact.participant_id,
    kind: fact.kind,
    channel: fact.channel,
    recipient_masked: maskRecipient(fact.channel, fact.to),
  };
}

/** Appends each delivery as a `MessageDelivered` event to the document's `delivery-<id>` stream. */
export class DeliveryEvidence implements DeliveryRecorder {
  constructor(private readonly events: EventStore) {}

  async record(fact: DeliveryFact): Promise<void> {
    const event: MessageDelivered = {
      type: 'MessageDelivered',
      data: {
        ...attemptOf(fact),
        provider_message_id: fact.provider_message_id,
        delivered_at: fact.delivered_at,
        ...(fact.sms_type ? { sms_type: fact.sms_type } : {}),
        ...(fact.provider_status ? { provider_status: fact.provider_status } : {}),
        ...(fact.fallback_of ? { fallback_of: fact.fallback_of } : {}),
        ...(fact.sends?.length
          ? { sends: fact.sends.map((s) => ({ claim: s.claim, attempt: s.attempt, started_at: s.started_at, finished_at: s.finished_at, outcome: s.outcome })) }
          : {}),
      },
    };
    await this.append(fact, deliveryEventId(fact.message_id), event, fact.delivered_at);
  }

  /** Its event id derives from the message id under another prefix: one failure per attempt, beside at most one delivery. */
  async recordFailure(fact: DeliveryFailureFact): Promise<void> {
    const event: MessageDeliveryFailed = {
      type: 'MessageDeliveryFailed',
      data: {
        ...attemptOf(fact),
        provider_message_id: fact.provider_message_id,
        provider_status: fact.provider_status,
        reason: fact.reason.slice(0, 500),
        failed_at: fact.failed_at,
      },
    };
    await this.append(fact, deliveryEventId(`failed:${fact.message_id}`), event, fact.failed_at);
  }

  private async append(
    fact: Pick<DeliveryFact, 'document_id' | 'organization_id' | 'livemode' | 'causation_id'>,
    eventId: string,
    event: MessageDelivered | MessageDeliveryFailed,
    occurredAt: string,
  ): Promise<void> {
    const streamId = deliveryStreamId(fact.document_id);
    // The stores refuse a repeated event id, but EventStoreDB only within a stream's latest events
    // on an 'any' append; a delivery stream is short, so look first and let the store catch races.
    if ((await this.events.readStream(streamId)).some((e) => e.event_id === eventId)) return;
    try {
      // 'any': the stream is append-only with no invariant; the store still chains each event to
      // the stream's head at append. The one documented write outside the command entry.
      // eslint-disable-next-line no-restricted-syntax -- a delivery stream has no decider to go through
      await this.events.append(
        streamId,
        [
          {
            event_id: eventId,
            type: event.type,
            data: event.data,
            metadata: {
              occurred_at: occurredAt,
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

function maskRecipient(channel: DeliveryChannel, to: string): string {
  return (channel === 'email' ? maskEmail(to) : maskPhone(to)) ?? '';
}
