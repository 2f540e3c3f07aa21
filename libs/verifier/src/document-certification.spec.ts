import { execFileSync } from 'child_process';
import { sign } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CommandEntry, ManualClock } from '@dojang/application';
import { DocumentCertifier, CertificationLedger, CertificationRecord } from '@dojang/application/verification/document-certifier';
import { eventHash, GENESIS_HASH, StoredEvent, verifyChain } from '@dojang/event-store';
import { SqliteEventStore } from '@dojang/event-store/sqlite';
import { evidenceKeyOf, loadOrCreateSigningIdentity, SigningIdentity } from '@dojang/evidence';
import { verifyCertificateFacts, verifyPlausible, verifyCertification } from './cross-checks';
import { documentFacts, LEGACY_CERTIFICATION_EVENT } from './document-facts';
import { certificationStatementBytes } from './document-certification';
import { pemCertificates } from './pades';

/**
 * The certification the server appends after a conclusion (libs/application DocumentCertifier), checked with
 * the verifier's own code: signed over the head after the terminal event and the facts derived
 * from the events, dated by an RFC 3161 token when a timestamp authority is configured (here a
 * local `openssl ts` authority). Every edit names the fact it changed.
 */
describe('DocumentCertified: certified by the server, checked offline', () => {
  const DOC = '0b6c2a1e-4d3f-4a5b-9c8d-7e6f5a4b3c2d';
  const STREAM = `document-${DOC}`;
  let dir: string;
  let identity: SigningIdentity;
  let certificate: Buffer;
  let store: SqliteEventStore;

  const T0 = '2026-03-02T09:00:00.000Z';
  const clock = new ManualClock(new Date(T0));

  /** A local timestamp authority: `openssl ts -reply` over a query for the data's SHA-256. */
  function localTsa(data: Buffer): Buffer {
    const work = fs.mkdtempSync(path.join(dir, 'ts-'));
    fs.writeFileSync(path.join(work, 'data.bin'), data);
    execFileSync('openssl', ['ts', '-query', '-data', path.join(work, 'data.bin'), '-sha256', '-cert', '-out', path.join(work, 'q.tsq')], { stdio: 'pipe' });
    execFileSync('openssl', ['ts', '-reply', '-config', path.join(dir, 'tsa.cnf'), '-queryfile', path.join(work, 'q.tsq'), '-token_out', '-out', path.join(work, 'token.der')], { stdio: 'pipe' });
    return fs.readFileSync(path.join(work, 'token.der'));
  }

  async function concluded(id: string, extra: Array<{ type: string; data: Record<string, unknown> }>): Promise<void> {
    const events = [
      { type: 'DocumentCreated', data: { document_id: id, organization_id: 'org_1', livemode: false, title: '근로계약서', content_blob: null, content_format: 'text', file: null, author_name: '인사팀', metadata: {}, from_template: null, duplicated_from: null, created_at: T0 } },
      { type: 'DocumentSent', data: { sent_at: T0, expires_at: '2026-03-16T09:00:00.000Z', message: null, page_count: 1, original_pdf: { sha256: 'a'.repeat(64), byte_size: 10 }, links: [] } },
      ...extra,
    ];
    await store.append(
      `document-${id}`,
      events.map((e, i) => ({ event_id: `00000000-0000-4000-8000-${id.slice(0, 8)}000${i}`, type: e.type, data: e.data, metadata: { occurred_at: T0, actor: 'key_9c22', schema_version: 2 } })),
      'no_stream',
    );
  }

  const read = (id = DOC) => store.readStream(`document-${id}`) as Promise<StoredEvent[]>;
  const rehashed = (events: StoredEvent[]): StoredEvent[] => {
    let prev = GENESIS_HASH;
    return events.map((e) => {
      const hash = eventHash(e, prev);
      const out = { ...e, metadata: { ...e.metadata, prev_hash: prev, hash } };
      prev = hash;
      return out;
    });
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-seal-'));
    identity = await loadOrCreateSigningIdentity({ dataDir: dir });
    certificate = pemCertificates(identity.certificatePem)[0];
    store = new SqliteEventStore(path.join(dir, 'events.sqlite'));
    const tsa = (name: string) => path.join(dir, name);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', tsa('tsa.key'), '-out', tsa('tsa.crt'), '-subj', '/C=KR/O=Local TSA/CN=Local Test TSA', '-days', '2', '-addext', 'extendedKeyUsage=critical,timeStamping'], { stdio: 'pipe' });
    fs.writeFileSync(tsa('serial'), '01\n');
    fs.writeFileSync(
      tsa('tsa.cnf'),
      ['[ tsa ]', 'default_tsa = t', '[ t ]', `serial = ${tsa('serial')}`, 'crypto_device = builtin', `signer_cert = ${tsa('tsa.crt')}`, `certs = ${tsa('tsa.crt')}`, `signer_key = ${tsa('tsa.key')}`, 'signer_digest = sha256', 'default_policy = 1.2.3.4.1', 'digests = sha256', 'accuracy = secs:1', 'ordering = no', 'tsa_name = no', 'ess_cert_id_chain = no', 'ess_cert_id_alg = sha256', ''].join('\n'),
    );
    await concluded(DOC, [{ type: 'DocumentCanceled', data: { canceled_at: T0, reason: '조건 변경' } }]);
  });
  afterAll(async () => {
    await store?.close?.();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const records = new Map<string, CertificationRecord>();
  const ledger: CertificationLedger = { find: async (id) => records.get(id) ?? null, record: async (r) => void (records.has(r.id) || records.set(r.id, r)) };
  const sealer = (tsaUrl: string | null) =>
    new DocumentCertifier(store, new CommandEntry(store), ledger, async () => evidenceKeyOf(identity), clock, tsaUrl, async (_url, data) => localTsa(data));

  it('appends one DocumentCertified right after the terminal event, over the head that includes it; a second call adds nothing', async () => {
    expect(verifyCertification(DOC, await read(), certificate)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/DocumentCanceled at revision 2 is not followed by a DocumentCertified/) });
    expect(await sealer(null).ensureCertified(DOC)).toBe(true);
    expect(await sealer(null).ensureCertified(DOC)).toBe(false);
    const events = await read();
    expect(events.map((e) => e.type)).toEqual(['DocumentCreated', 'DocumentSent', 'DocumentCanceled', 'DocumentCertified']);
    const seal = (events[3].data as any).certification;
    expect(seal).toMatchObject({ head: { revision: 2, hash: events[2].metadata.hash, event_count: 3 }, sealed_at: T0, timestamp_token: null, timestamped_at: null });
    expect(seal.facts).toEqual(JSON.parse(JSON.stringify(documentFacts(DOC, events, 2))));
    expect(verifyCertification(DOC, events, certificate)).toMatchObject({ status: 'pass', detail: expect.stringMatching(/server clock 2026-03-02T09:00:00.000Z/) });
  });

  it('names the fact an edit changed, even with the chain re-hashed; a certification edited to match fails its signature', async () => {
    const events = await read();
    const edited = rehashed(events.map((e) => (e.type === 'DocumentCanceled' ? { ...e, data: { ...e.data, reason: '단순 변심' }, metadata: { ...e.metadata, actor: 'key_forged' } } : e)));
    const verdict = verifyCertification(DOC, edited, certificate);
    expect(verdict).toMatchObject({ status: 'fail', revision: 2 });
    expect(verdict.detail).toContain('canceled.reason: certified "조건 변경", events "단순 변심"');
    expect(verdict.detail).toContain('canceled.actor: certified "key_9c22", events "key_forged"');
    const matching = rehashed(edited.map((e) => (e.type === 'DocumentCertified' ? { ...e, data: { certification: { ...(e.data as any).certification, facts: documentFacts(DOC, edited, 2), head: { ...(e.data as any).certification.head, hash: edited[2].metadata.hash } } } } : e)));
    expect(verifyCertification(DOC, matching, certificate)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/does not verify: the signature does not match its head, facts or time/) });
    expect(verifyCertification(DOC, events.slice(0, 3), certificate).status).toBe('fail');
    expect(verifyCertification(DOC, rehashed(events.filter((e) => e.type !== 'DocumentCanceled').map((e, i) => ({ ...e, stream_revision: i }))), certificate)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/holds no completion, decline, cancel or expiry \(removed\)/) });
  });

  it('with a timestamp authority, the time is the token over the signature; a token over something else fails', async () => {
    const id = '1c7d3b2f-5e4a-4b6c-8d9e-0f1a2b3c4d5e';
    await concluded(id, [{ type: 'DocumentExpired', data: { expired_at: T0 } }]);
    expect(await sealer('http://tsa.invalid/').ensureCertified(id)).toBe(true);
    const events = await read(id);
    const seal = (events[3].data as any).certification;
    expect(seal.timestamp_token).toEqual(expect.any(String));
    expect(Date.parse(seal.timestamped_at)).not.toBeNaN();
    expect(verifyCertification(id, events, certificate)).toMatchObject({ status: 'pass', detail: expect.stringMatching(/timestamped .* by .*Local Test TSA/) });
    const foreignToken = localTsa(Buffer.from('another signature')).toString('base64');
    const swapped = rehashed(events.map((e) => (e.type === 'DocumentCertified' ? { ...e, data: { certification: { ...seal, timestamp_token: foreignToken } } } : e)));
    expect(verifyCertification(id, swapped, certificate)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/does not cover this certification/) });
  });

  it('flags a conclusion dated before the creation, and a certificate whose facts are not the events', async () => {
    const events = await read();
    const backdated = rehashed(events.map((e) => (e.type === 'DocumentCanceled' ? { ...e, data: { ...e.data, canceled_at: '2020-01-01T00:00:00.000Z' } } : e)));
    expect(verifyPlausible(DOC, backdated)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/DocumentCanceled at 2020-01-01T00:00:00.000Z precedes the document's creation/) });
    const entry = { document_id: DOC, event_count: 4, head_hash: events[3].metadata.hash as string, facts: documentFacts(DOC, events) };
    expect(verifyCertificateFacts(DOC, events, entry, true).status).toBe('pass');
    expect(verifyCertificateFacts(DOC, backdated, entry, true)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/canceled\.canceled_at: certificate "2026-03-02T09:00:00.000Z", events "2020-01-01T00:00:00.000Z"/) });
    expect(verifyCertificateFacts(DOC, events.slice(0, 2), entry, true)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/missing DocumentCanceled at revision 2, DocumentCertified at revision 3/) });
    // Only the conclusion deleted, the rest re-numbered and re-hashed: named as itself, not as the
    // event that now ends the log short (issue 31, item 8).
    const withoutCancel = rehashed(events.filter((e) => e.type !== 'DocumentCanceled').map((e, i) => ({ ...e, stream_revision: i })));
    expect(verifyCertificateFacts(DOC, withoutCancel, entry, true)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/the log has 3: missing DocumentCanceled at revision 2$/) });
  });

  it('a reason is certified masked by the one rule; a masked bundle and a certification made before the rule (raw reason) both still verify, an edit of what is visible fails (issue 31 item 6)', async () => {
    const id = '2d8e4c3a-6f5b-4c7d-9e0f-1a2b3c4d5e6f';
    await concluded(id, [{ type: 'DocumentCanceled', data: { canceled_at: T0, reason: '재발송 예정, 문의 010-5555-6666 / hr.kim@example.com' } }]);
    expect(await sealer(null).ensureCertified(id)).toBe(true);
    const events = await read(id);
    const seal = (events[3].data as any).certification;
    expect(seal.facts.canceled.reason).toBe('재발송 예정, 문의 010-****-6666 / h*****@example.com');
    expect(verifyCertification(id, events, certificate).status).toBe('pass');

    // An auditor's bundle: the cancel served masked (its stored hash taken), checked against the sealed facts.
    const masked = events.map((e) => (e.type === 'DocumentCanceled' ? { ...e, data: { ...e.data, reason: '재발송 예정, 문의 010-****-6666 / h*****@example.com' }, redacted: true } : e));
    expect(verifyCertification(id, masked, certificate).status).toBe('pass');
    const visibleEdit = masked.map((e) => (e.type === 'DocumentCanceled' ? { ...e, data: { ...e.data, reason: '재발송 예정, 문의 010-****-7777 / h*****@example.com' } } : e));
    expect(verifyCertification(id, visibleEdit, certificate)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/canceled\.reason: certified "[^"]*010-\*\*\*\*-6666[^"]*", events "[^"]*010-\*\*\*\*-7777/) });

    // A seal made before reasons were masked in the facts states the reason as recorded: still agrees.
    const rawFacts = JSON.parse(JSON.stringify(seal.facts));
    rawFacts.canceled.reason = '재발송 예정, 문의 010-5555-6666 / hr.kim@example.com';
    const statement = certificationStatementBytes({ document_id: id, head: seal.head, facts: rawFacts, sealed_at: seal.sealed_at });
    const oldSeal = { ...seal, facts: rawFacts, signature: sign('sha256', statement, evidenceKeyOf(identity).privateKey!).toString('base64') };
    const withOldSeal = rehashed(events.map((e) => (e.type === 'DocumentCertified' ? { ...e, data: { certification: oldSeal } } : e)));
    expect(verifyCertification(id, withOldSeal, certificate).status).toBe('pass');
    expect(verifyCertification(id, withOldSeal.map((e) => (e.type === 'DocumentCanceled' ? { ...masked[2] } : e)), certificate).status).toBe('pass');
  });

  // Issue 35: the certification was stored as `DocumentSealed` with `{ seal }` until it was renamed.
  // The stored type is inside every event's hash, so such streams are never rewritten: the chain,
  // the verifier and the certifier read them as they are.
  it('a stream certified before the rename (DocumentSealed, { seal }) keeps verifying, and is not certified again', async () => {
    const id = '3e9f5d4b-7a6c-4d8e-8f1a-2b3c4d5e6f7a';
    await concluded(id, [{ type: 'DocumentCompleted', data: { completed_at: T0, final_pdf: { sha256: 'b'.repeat(64), byte_size: 20 } } }]);
    // What an installation before the rename appended: the same proof under the old type and key.
    const proof = await sealer(null).certificationOf(id, await read(id));
    await store.append(`document-${id}`, [{ event_id: '00000000-0000-4000-8000-3e9f5d4b0003', type: LEGACY_CERTIFICATION_EVENT, data: { seal: proof }, metadata: { occurred_at: T0, actor: 'system', schema_version: 2 } }], 2);
    const stored = await read(id);
    expect(stored.map((e) => e.type)).toEqual(['DocumentCreated', 'DocumentSent', 'DocumentCompleted', 'DocumentSealed']);

    // The chain hashes the stored type: intact, and a rewrite to the new name would break it.
    expect(verifyChain(stored)).toMatchObject({ intact: true, events: 4 });
    const renamed = stored.map((e) => (e.type === 'DocumentSealed' ? { ...e, type: 'DocumentCertified', data: { certification: proof } } : e));
    expect(verifyChain(renamed)).toMatchObject({ intact: false, broken_at_revision: 3 });

    // The verifier reads the old name and key, and names the event by its stored type when it fails.
    expect(verifyCertification(id, stored, certificate)).toMatchObject({ status: 'pass', detail: expect.stringMatching(/DocumentCompleted at revision 2 and every event up to revision 2 are certified/) });
    const edited = rehashed(stored.map((e) => (e.type === 'DocumentSealed' ? { ...e, data: { seal: { ...proof, sealed_at: '2026-03-03T09:00:00.000Z' } } } : e)));
    expect(verifyCertification(id, edited, certificate)).toMatchObject({ status: 'fail', detail: expect.stringMatching(/certification at revision 3 does not verify/) });

    // The certifier sees it as certified: nothing appended, and the ledger records the old event.
    expect(await sealer(null).ensureCertified(id)).toBe(false);
    expect((await read(id)).length).toBe(4);
    expect(records.get(id)).toMatchObject({ terminal_type: 'DocumentCompleted', terminal_revision: 2, seal_revision: 3, sealed_at: T0 });
  });
});
