import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { deliveryStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { DeliveryEvidence } from '../history/delivery-evidence';
import { verifyDocumentEvidence } from './verify-document';

const DOC = '3f0b6a52-8d0e-4c55-9d5e-2f6f2b0f7a11';
const OTHER = '7c2d4e6f-8a0b-4c1d-9e2f-3a4b5c6d7e8f';

/** `cli verify`'s delivery check, over deliveries recorded by the notifier's own recorder. */
describe('verifyDocumentEvidence: the delivery chain', () => {
  let dir: string;
  let store: SqliteEventStore;
  let recorded: StoredEvent[];
  let foreign: StoredEvent[];

  const verify = (events: StoredEvent[]) =>
    verifyDocumentEvidence({ events: [], certificate: null, blob: async () => null, deliveries: { document_id: DOC, events } });
  const fact = (documentId: string, i: number) => ({
    message_id: `msg_${documentId.slice(0, 4)}${i}`,
    kind: i === 0 ? ('signing_request' as const) : ('pin' as const),
    organization_id: 'org_1',
    livemode: false,
    document_id: documentId,
    participant_id: 'p1',
    channel: i === 0 ? ('email' as const) : ('sms' as const),
    to: i === 0 ? 'kim.chulsoo@example.com' : '010-1234-5678',
    provider_message_id: 'outbox',
    delivered_at: `2026-03-02T09:0${i}:00.000Z`,
  });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-verify-deliveries-'));
    store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    const evidence = new DeliveryEvidence(store);
    for (let i = 0; i < 3; i++) await evidence.record(fact(DOC, i));
    for (let i = 0; i < 2; i++) await evidence.record(fact(OTHER, i));
    recorded = await store.readStream(deliveryStreamId(DOC));
    foreign = await store.readStream(deliveryStreamId(OTHER));
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('passes an intact delivery stream, and an empty one', async () => {
    const ok = await verify(recorded);
    expect(ok).toMatchObject({ intact: true, deliveries: 3 });
    expect(ok.checks.find((c) => c.check === 'delivery_chain')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^3 deliveries in delivery-.*every prev_hash and hash matches/) });
    expect((await verify([])).checks.find((c) => c.check === 'delivery_chain')).toMatchObject({ status: 'ok', detail: `no deliveries recorded in delivery-${DOC}` });
  });

  it('fails an edited, dropped, reordered or foreign delivery, naming the event', async () => {
    const edited = recorded.map((e, i) => (i === 1 ? { ...e, data: { ...e.data, provider_message_id: 'SMforged' } } : e));
    const cases: Array<[string, StoredEvent[], number, RegExp]> = [
      ['edited', edited, 1, /altered/],
      ['dropped', [recorded[0], recorded[2]], 1, /missing or reordered/],
      ['reordered', [recorded[1], recorded[0], recorded[2]], 0, /missing or reordered/],
      ["another document's", foreign, 0, new RegExp(`belongs to stream delivery-${OTHER}`)],
    ];
    for (const [name, events, revision, reason] of cases) {
      const out = await verify(events);
      const at = events.find((e) => e.stream_revision === revision) ?? events[revision];
      expect({ name, intact: out.intact, failure: out.failure }).toEqual({
        name,
        intact: false,
        failure: { check: 'delivery_chain', status: 'failed', detail: expect.stringMatching(reason), event: { revision: at.stream_revision, type: 'MessageDelivered', id: at.event_id } },
      });
      expect(out.failure?.detail).toMatch(new RegExp(`^delivery-${DOC} broken at revision ${revision}: `));
    }
  });

  it('leaves the check out when no delivery stream is given', async () => {
    const out = await verifyDocumentEvidence({ events: [], certificate: null, blob: async () => null });
    expect(out.checks.map((c) => c.check)).not.toContain('delivery_chain');
    expect(out).not.toHaveProperty('deliveries');
  });
});
