import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { evidenceKeyOf, loadOrCreateSigningIdentity, SigningIdentity } from '@dojang/evidence';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { ManualClock } from '../clock';
import { CommandEntry } from '../commands/command-entry';
import { EvidenceIncompleteError } from '../evidence-integrity.error';
import { CERTIFICATION_LEDGER, DocumentCertifier, readStoreCertificationLedger } from './document-certifier';

/**
 * Issue 31 item 7: a concluded document whose certification (DocumentCertified) was deleted from
 * the store is not certified again by the next evidence read (which would vouch for whatever the
 * log then says): the ledger, kept apart from the log, remembers that it was certified, and the
 * certifier refuses.
 */
describe('DocumentCertifier: a removed certification is refused, never made again', () => {
  const T0 = '2026-03-02T09:00:00.000Z';
  let dir: string;
  let identity: SigningIdentity;
  let events: SqliteEventStore;
  let reads: SqliteReadStore;
  let sealer: DocumentCertifier;

  async function concluded(id: string, terminal: { type: string; data: Record<string, unknown> }): Promise<void> {
    const list = [
      { type: 'DocumentCreated', data: { document_id: id, organization_id: 'org_1', livemode: false, title: '근로계약서', content_blob: null, content_format: 'text', file: null, author_name: '인사팀', metadata: {}, from_template: null, duplicated_from: null, created_at: T0 } },
      { type: 'DocumentSent', data: { sent_at: T0, expires_at: '2026-03-16T09:00:00.000Z', message: null, page_count: 1, original_pdf: { sha256: 'a'.repeat(64), byte_size: 10 }, links: [] } },
      terminal,
    ];
    await events.append(
      `document-${id}`,
      list.map((e, i) => ({ event_id: `00000000-0000-4000-8000-${id.slice(0, 8)}000${i}`, type: e.type, data: e.data, metadata: { occurred_at: T0, actor: 'key_9c22', schema_version: 2 } })),
      'no_stream',
    );
  }

  /** What someone who can edit the SQLite log does: the stream's last event deleted. */
  function deleteLastEvent(id: string): string {
    const db = new Database(path.join(dir, 'events.sqlite'));
    try {
      const last = db.prepare('SELECT global_position, type FROM events WHERE stream_id = ? ORDER BY stream_revision DESC LIMIT 1').get(`document-${id}`) as { global_position: number; type: string };
      db.prepare('DELETE FROM events WHERE global_position = ?').run(last.global_position);
      return last.type;
    } finally {
      db.close();
    }
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-sealer-'));
    identity = await loadOrCreateSigningIdentity({ dataDir: dir });
    events = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    reads = new SqliteReadStore(path.join(dir, 'reads.sqlite'));
    sealer = new DocumentCertifier(events, new CommandEntry(events), readStoreCertificationLedger(reads), async () => evidenceKeyOf(identity), new ManualClock(new Date(T0)), null);
  });
  afterAll(async () => {
    await events?.close?.();
    await reads?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['DocumentCompleted', { completed_at: T0 }, '1a6c2a1e-4d3f-4a5b-9c8d-7e6f5a4b3c2d'],
    ['DocumentDeclined', { declined_at: T0, participant_id: 'p1', reason: '조건이 다릅니다' }, '2b6c2a1e-4d3f-4a5b-9c8d-7e6f5a4b3c2d'],
    ['DocumentCanceled', { canceled_at: T0, reason: '조건 변경' }, '3c6c2a1e-4d3f-4a5b-9c8d-7e6f5a4b3c2d'],
    ['DocumentExpired', { expired_at: T0 }, '4d6c2a1e-4d3f-4a5b-9c8d-7e6f5a4b3c2d'],
  ])('a %s whose certification was deleted is refused by name, and nothing is appended', async (type, data, id) => {
    await concluded(id, { type, data });
    expect(await sealer.ensureCertified(id)).toBe(true);
    expect(await reads.get(CERTIFICATION_LEDGER, id)).toMatchObject({ id, terminal_type: type, terminal_revision: 2, seal_revision: 3, sealed_at: T0 });
    expect(deleteLastEvent(id)).toBe('DocumentCertified');

    const refused = sealer.ensureCertified(id);
    await expect(refused).rejects.toBeInstanceOf(EvidenceIncompleteError);
    await expect(refused).rejects.toThrow(new RegExp(`the ${type} at revision 2 of document ${id} is not followed by its certification, which was appended at revision 3 .*: the certification was removed from the log`));
    expect((await events.readStream(`document-${id}`)).map((e) => e.type)).toEqual(['DocumentCreated', 'DocumentSent', type]);
  });

  it('reads the whole stream once per certification (then the certification alone), and signs the head the decision saw', async () => {
    const id = '5f6e7d8c-9b0a-4c1d-8e2f-3a4b5c6d7e8f';
    await concluded(id, { type: 'DocumentCompleted', data: { completed_at: T0 } });
    const calls: Array<{ stream: string; from: number }> = [];
    const counted = new Proxy(events, {
      get(target, prop, receiver) {
        if (prop !== 'readStream') return Reflect.get(target, prop, receiver);
        return (stream: string, options?: { fromRevision?: number }) => {
          calls.push({ stream, from: options?.fromRevision ?? 0 });
          return target.readStream(stream, options);
        };
      },
    });
    const certifier = new DocumentCertifier(counted, new CommandEntry(counted), readStoreCertificationLedger(reads), async () => evidenceKeyOf(identity), new ManualClock(new Date(T0)), null);
    expect(await certifier.ensureCertified(id)).toBe(true);
    // The whole stream, what came after it (nothing), the certification: four whole reads before.
    expect(calls).toEqual([
      { stream: `document-${id}`, from: 0 },
      { stream: `document-${id}`, from: 3 },
      { stream: `document-${id}`, from: 3 },
    ]);
    const stored = await events.readStream(`document-${id}`);
    expect(stored.map((e) => e.type)).toEqual(['DocumentCreated', 'DocumentSent', 'DocumentCompleted', 'DocumentCertified']);
    expect((stored[3].data as { certification: { head: unknown } }).certification.head).toEqual({ revision: 2, hash: stored[2].metadata.hash, event_count: 3 });
  });

  it('an event appended between its read and its decision is inside what the certification signs', async () => {
    const id = '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d';
    await concluded(id, { type: 'DocumentCanceled', data: { canceled_at: T0, reason: '조건 변경' } });
    let raced = false;
    // Another writer appends right after the certifier's first read of the stream.
    const racing = new Proxy(events, {
      get(target, prop, receiver) {
        if (prop !== 'readStream') return Reflect.get(target, prop, receiver);
        return async (stream: string, options?: { fromRevision?: number }) => {
          const out = await target.readStream(stream, options);
          if (!raced) {
            raced = true;
            await target.append(stream, [{ event_id: '00000000-0000-4000-8000-6a7b8c9d0009', type: 'DocumentEditLockChanged', data: { locked: true }, metadata: { occurred_at: T0, actor: 'key_9c22', schema_version: 2 } }], 2);
          }
          return out;
        };
      },
    });
    const certifier = new DocumentCertifier(racing, new CommandEntry(events), readStoreCertificationLedger(reads), async () => evidenceKeyOf(identity), new ManualClock(new Date(T0)), null);
    expect(await certifier.ensureCertified(id)).toBe(true);
    const stored = await events.readStream(`document-${id}`);
    expect(stored.map((e) => e.type)).toEqual(['DocumentCreated', 'DocumentSent', 'DocumentCanceled', 'DocumentEditLockChanged', 'DocumentCertified']);
    expect((stored[4].data as { certification: { head: unknown } }).certification.head).toEqual({ revision: 3, hash: stored[3].metadata.hash, event_count: 4 });
    expect(await reads.get(CERTIFICATION_LEDGER, id)).toMatchObject({ terminal_revision: 2, seal_revision: 4 });
  });

  it('a certification made before the ledger existed is recorded at the next read, so its later removal is refused too', async () => {
    const id = '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';
    await concluded(id, { type: 'DocumentCanceled', data: { canceled_at: T0, reason: '중복 발송' } });
    // Certified by a certifier with no memory (what an installation before the ledger did).
    const forgetful = new DocumentCertifier(events, new CommandEntry(events), { find: async () => null, record: async () => undefined }, async () => evidenceKeyOf(identity), new ManualClock(new Date(T0)), null);
    expect(await forgetful.ensureCertified(id)).toBe(true);
    expect(await reads.get(CERTIFICATION_LEDGER, id)).toBeNull();
    expect(await sealer.ensureCertified(id)).toBe(false);
    expect(await reads.get(CERTIFICATION_LEDGER, id)).toMatchObject({ seal_revision: 3 });
    deleteLastEvent(id);
    await expect(sealer.ensureCertified(id)).rejects.toThrow(/DocumentCanceled at revision 2 .* the certification was removed from the log/);
  });
});
