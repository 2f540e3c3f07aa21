import { deliveryStreamId, documentStreamId } from '@dojang/domain';
import { eventHash, GENESIS_HASH, HashableEvent } from '../../event-store/src/hash-chain';
import { deliveryStreamOf, documentStreamOf } from './bundle-format';
import { deliveryHeadProblem, verifyDeliveryChain } from './delivery-chain';

const DOC = '5b1c7e0a-3f2d-4c8b-9a61-0d2e4f6a8b10';
const OTHER = '9d8c7b6a-5f4e-4d3c-8b2a-190817263544';

function delivery(i: number, documentId = DOC): HashableEvent {
  return {
    event_id: `00000000-0000-4000-8000-00000000000${i}`,
    stream_id: deliveryStreamOf(documentId),
    stream_revision: i,
    type: 'MessageDelivered',
    data: {
      message_id: `msg_${i}`,
      document_id: documentId,
      participant_id: 'p1',
      kind: i === 0 ? 'signing_request' : 'pin',
      channel: i % 2 ? 'sms' : 'email',
      recipient_masked: i % 2 ? '010-****-5678' : 'k***@example.com',
      provider_message_id: 'outbox',
      delivered_at: `2026-03-02T09:0${i}:00.000Z`,
    },
    metadata: { occurred_at: `2026-03-02T09:0${i}:00.000Z`, actor: 'system' },
  };
}

/** Chains events as the store does (and as anyone without a key can, after an edit). */
function chained(events: HashableEvent[]): HashableEvent[] {
  let prev = GENESIS_HASH;
  return events.map((e) => {
    const hash = eventHash(e, prev);
    const out = { ...e, metadata: { ...e.metadata, prev_hash: prev, hash } };
    prev = hash;
    return out;
  });
}

const stream = () => chained([0, 1, 2, 3].map((i) => delivery(i)));
const head = (events: HashableEvent[]) => ({ document_id: DOC, stream_id: deliveryStreamOf(DOC), event_count: events.length, head_hash: events.length ? String(events[events.length - 1].metadata.hash) : null });
const withData = (e: HashableEvent, data: Record<string, unknown>): HashableEvent => ({ ...e, data: { ...(e.data as object), ...data } });

describe('verifyDeliveryChain', () => {
  it('accepts an intact stream (and an empty one) and gives its head', () => {
    const events = stream();
    expect(verifyDeliveryChain(DOC, events)).toEqual({ intact: true, events: 4, head_hash: events[3].metadata.hash });
    expect(verifyDeliveryChain(DOC, [])).toEqual({ intact: true, events: 0, head_hash: null });
  });

  it('refuses an edited, dropped or reordered delivery, naming the revision', () => {
    const events = stream();
    const edited = events.map((e, i) => (i === 1 ? withData(e, { recipient_masked: '010-****-0000' }) : e));
    expect(verifyDeliveryChain(DOC, edited)).toMatchObject({ intact: false, broken_at: 1, reason: expect.stringMatching(/altered/) });
    expect(verifyDeliveryChain(DOC, [events[0], events[2], events[3]])).toMatchObject({ intact: false, broken_at: 1, reason: expect.stringMatching(/missing or reordered/) });
    expect(verifyDeliveryChain(DOC, [events[0], events[2], events[1], events[3]])).toMatchObject({ intact: false, broken_at: 1 });
    const relinked = events.map((e, i) => (i === 2 ? { ...e, metadata: { ...e.metadata, prev_hash: events[0].metadata.hash } } : e));
    expect(verifyDeliveryChain(DOC, relinked)).toMatchObject({ intact: false, broken_at: 2, reason: expect.stringMatching(/prev_hash/) });
  });

  it("refuses another document's deliveries, even an intact chain of them, and any other event type", () => {
    const foreign = chained([0, 1].map((i) => delivery(i, OTHER)));
    expect(verifyDeliveryChain(DOC, foreign)).toMatchObject({ intact: false, broken_at: 0, reason: `the event belongs to stream delivery-${OTHER}, not delivery-${DOC}` });
    const mislabelled = chained([delivery(0), withData(delivery(1), { document_id: OTHER })]);
    expect(verifyDeliveryChain(DOC, mislabelled)).toMatchObject({ intact: false, broken_at: 1, reason: `the delivery is about document ${OTHER}, not ${DOC}` });
    const other = chained([delivery(0), { ...delivery(1), type: 'DocumentCanceled' }]);
    expect(verifyDeliveryChain(DOC, other)).toMatchObject({ intact: false, broken_at: 1, reason: 'a DocumentCanceled event in a delivery stream' });
  });

  it('names the same streams as the domain', () => {
    expect(deliveryStreamOf(DOC)).toBe(deliveryStreamId(DOC));
    expect(documentStreamOf(DOC)).toBe(documentStreamId(DOC));
  });
});

describe('deliveryHeadProblem', () => {
  it('matches the deliveries a head was sealed over', () => {
    const events = stream();
    expect(deliveryHeadProblem(head(events), DOC, events)).toBeNull();
    expect(deliveryHeadProblem(head([]), DOC, [])).toBeNull();
  });

  it('catches what the links alone cannot: a delivery edited and re-hashed, the last one dropped, one added', () => {
    const events = stream();
    const sealed = head(events);
    const rehashed = chained(events.map((e, i) => (i === 2 ? withData(e, { provider_message_id: 'SMforged' }) : e)));
    expect(verifyDeliveryChain(DOC, rehashed).intact).toBe(true);
    expect(deliveryHeadProblem(sealed, DOC, rehashed)).toMatch(/re-hashed/);
    expect(verifyDeliveryChain(DOC, events.slice(0, 3)).intact).toBe(true);
    expect(deliveryHeadProblem(sealed, DOC, events.slice(0, 3))).toBe('the sealed delivery head counts 4 deliveries, the log holds 3');
    const added = chained([...events, delivery(4)]);
    expect(deliveryHeadProblem(sealed, DOC, added)).toMatch(/counts 4 deliveries, the log holds 5/);
  });

  it("refuses a head sealed for another document's stream", () => {
    const events = stream();
    expect(deliveryHeadProblem({ ...head(events), document_id: OTHER, stream_id: deliveryStreamOf(OTHER) }, DOC, events)).toMatch(/is for delivery-/);
  });
});
