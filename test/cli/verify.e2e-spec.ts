import Database from 'better-sqlite3';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { eventHash, GENESIS_HASH } from '@dojang/event-store';
import { verifyBundle } from '@dojang/verifier';
import { solidPng } from '../support/png';
import { apiClient, ApiCall, ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import { eventually } from '../support/worker-process';

/**
 * `cli verify` against an attacker who can rewrite the SQLite event log but holds neither the
 * server secret nor the document-signing key: cutting the log short and editing an event then
 * re-hashing the chain with plain SHA-256 must both fail, naming the check and the event.
 */

const BUILD_TIMEOUT = 5 * 60_000;

// Completing a document and each CLI run (a process opening the stores) take seconds on a busy machine.
jest.setTimeout(120_000);

beforeAll(() => ensureBuilt(), BUILD_TIMEOUT);

let server: ServerProcess;
let api: ApiCall;
let apiKey: string;

/** The worker certifies a concluded document moments after: wait for its DocumentCertified. */
/**
 * Until the certification is appended and its ledger row written (the certifier writes the row
 * right after the append): a test that removes the event before the row exists would see it made
 * again, as a certification that never happened (a loaded full run did).
 */
const sealed = (id: string) =>
  eventually(async () => {
    const rows = withEvents((db) => streamRows(db, id));
    return rows[rows.length - 1]?.type === 'DocumentCertified' && inCertificationLedger(id) ? rows : undefined;
  }, `${id} sealed`);

function inCertificationLedger(id: string): boolean {
  const db = new Database(path.join(server.dataDir, 'read.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'rm_document_seals'`).get();
    return table !== undefined && db.prepare('SELECT 1 FROM rm_document_seals WHERE id = ?').get(id) !== undefined;
  } finally {
    db.close();
  }
}

async function completedDocument(title: string): Promise<{ id: string; finalSha: string }> {
  const created = await api('POST', '/v1/documents', { title, content: `<p>${title} 본문</p>` });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const participant = await api('POST', `/v1/documents/${id}/participants`, { name: '홍길동', email: 'gd@example.com', auth: 'none' });
  expect(participant.status).toBe(201);
  const field = { participant_id: participant.body.id, type: 'signature', page: 1, x: 10, y: 70, width: 30, height: 8 };
  expect((await api('PUT', `/v1/documents/${id}/fields`, { fields: [field] })).status).toBe(200);
  const sent = await api('POST', `/v1/documents/${id}/send`, {});
  expect(sent.body).toMatchObject({ status: 'sent' });
  const token = String(sent.body.participants[0].signing_url).split('/sign/')[1];
  const signer = apiClient(server.url, 'unused');
  expect((await signer('GET', `/v1/signing/${token}`)).status).toBe(200);
  expect((await signer('POST', `/v1/signing/${token}/sign`, { consent: true, signature: solidPng() })).status).toBe(200);
  const done = await api('GET', `/v1/documents/${id}`);
  expect(done.body.status).toBe('completed');
  await sealed(id);
  return { id, finalSha: done.body.final_pdf_sha256 };
}

interface Row {
  global_position: number;
  stream_id: string;
  stream_revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
}

function withEvents<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(path.join(server.dataDir, 'events.sqlite'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const streamRows = (db: Database.Database, id: string, kind: 'document' | 'delivery' = 'document') =>
  db.prepare('SELECT * FROM events WHERE stream_id = ? ORDER BY stream_revision').all(`${kind}-${id}`) as Row[];

/** The server's own worker sends the signing request and the completion notice, then records them. */
const deliveriesOf = (id: string, atLeast: number) =>
  eventually(async () => {
    const rows = withEvents((db) => streamRows(db, id, 'delivery'));
    return rows.length >= atLeast ? rows : undefined;
  }, `${atLeast} deliveries recorded for ${id}`);

beforeAll(async () => {
  server = await startServer({ dataDir: tempDataDir('dojang-verify-') });
  const org = await runCli(['org', 'create', '--name', 'Evidence Co'], { dataDir: server.dataDir });
  apiKey = org.json().keys.test;
  api = apiClient(server.url, apiKey);
}, 180_000);
afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

it('an untouched completed document verifies: chain, signed head, event count, original and final PDF', async () => {
  const { id } = await completedDocument('근로계약서');
  const out = await runCli(['verify', id], { dataDir: server.dataDir });
  expect(out.code).toBe(0);
  const body = out.json();
  expect(body.intact).toBe(true);
  expect(Object.fromEntries(body.checks.map((c: { check: string; status: string }) => [c.check, c.status]))).toEqual({
    hash_chain: 'ok',
    completion_present: 'ok',
    head_signature: 'ok',
    head_hash: 'ok',
    event_count: 'ok',
    seal: 'ok',
    plausible: 'ok',
    original_pdf: 'ok',
    final_pdf: 'ok',
    // The final PDF's own signature, judged as POST /v1/verify judges it (issue 31 item 2).
    final_pdf_signature: 'ok',
    delivery_chain: 'ok',
    deliveries_agree: 'ok',
  });
  expect(body.verdict).toMatch(
    new RegExp(`^intact: \\d+ events, hash chain unbroken, signed chain head matches, conclusion certified, final PDF matches its recorded SHA-256, \\d+ deliveries chained in delivery-${id}$`),
  );
});

it('--trust judges the final PDF\'s signer chain against the auditor\'s anchors; without one "untrusted issuer" is said plainly (issue 31 item 2)', async () => {
  const { id } = await completedDocument('근로계약서 신뢰');
  const signatureCheck = (out: { json(): any }) => out.json().checks.find((c: { check: string }) => c.check === 'final_pdf_signature');
  const plain = await runCli(['verify', id], { dataDir: server.dataDir });
  expect(plain.code).toBe(0);
  expect(signatureCheck(plain)).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^signed by .*\(SHA-256 [0-9a-f]{64}\).*; untrusted issuer: no trust anchor given/) });

  // The installation's own certificate, as GET /v1/organization/signing_certificate shows it.
  const platform = (await api('GET', '/v1/organization/signing_certificate')).body;
  const anchor = path.join(server.dataDir, 'anchor.pem');
  fs.writeFileSync(anchor, platform.chain_pem[platform.chain_pem.length - 1]);
  const trusted = await runCli(['verify', id, '--trust', anchor], { dataDir: server.dataDir });
  expect(trusted.code).toBe(0);
  expect(signatureCheck(trusted).detail).toContain('trusted: the chain reaches the anchor');

  // A look-alike's anchor: a certificate the chain does not reach fails the signature.
  const other = path.join(server.dataDir, 'other.pem');
  const ca = execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(server.dataDir, 'other.key'), '-days', '2', '-subj', '/C=KR/O=Dojang/CN=Dojang Document Signing'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  fs.writeFileSync(other, ca);
  const untrusted = await runCli(['verify', id, `--trust=${other}`], { dataDir: server.dataDir });
  expect(untrusted.code).toBe(1);
  expect(signatureCheck(untrusted)).toMatchObject({ status: 'failed', detail: expect.stringContaining('untrusted issuer: the chain does not reach any trust anchor given') });

  // Without --trust, the installation's list (VERIFY_TRUST_ANCHORS, what POST /v1/verify judges
  // with): the CLI and the API of one installation say the same; --trust, when given, wins.
  const configured = await runCli(['verify', id], { dataDir: server.dataDir, env: { VERIFY_TRUST_ANCHORS: anchor } });
  expect(configured.code).toBe(0);
  expect(signatureCheck(configured).detail).toContain('trusted: the chain reaches the anchor');
  const lookAlikeList = await runCli(['verify', id], { dataDir: server.dataDir, env: { VERIFY_TRUST_ANCHORS: other } });
  expect(lookAlikeList.code).toBe(1);
  expect(signatureCheck(lookAlikeList)).toMatchObject({ status: 'failed', detail: expect.stringContaining('untrusted issuer: the chain does not reach any trust anchor given') });
  const overridden = await runCli(['verify', id, '--trust', anchor], { dataDir: server.dataDir, env: { VERIFY_TRUST_ANCHORS: other } });
  expect(overridden.code).toBe(0);
});

it('a missing or unreadable --pdf or --trust file is one line and exit 2, never a stack trace (issue 31 item 8)', async () => {
  const { id } = await completedDocument('근로계약서 입력');
  const notPem = path.join(server.dataDir, 'not-a-certificate.pem');
  fs.writeFileSync(notPem, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  for (const [args, message] of [
    [['--pdf'], /^error: --pdf needs a file$/],
    [['--pdf', path.join(server.dataDir, 'missing.pdf')], /^error: cannot read --pdf .*missing\.pdf: ENOENT/],
    [['--pdf', server.dataDir], /^error: cannot read --pdf .*: EISDIR/],
    [['--trust'], /^error: --trust needs a file$/],
    [['--trust', path.join(server.dataDir, 'missing.pem')], /^error: cannot read --trust .*missing\.pem: ENOENT/],
    [['--trust', notPem], /^error: cannot read trust anchors --trust .*not-a-certificate\.pem: /],
  ] as const) {
    const out = await runCli(['verify', id, ...args], { dataDir: server.dataDir });
    expect({ args, code: out.code, stdout: out.stdout }).toEqual({ args, code: 2, stdout: '' });
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr.trim()).toMatch(message);
  }
});

it('editing a recorded delivery fails verify, naming the delivery chain and the event', async () => {
  const { id } = await completedDocument('출장비 정산서');
  const [, second] = await deliveriesOf(id, 2);
  withEvents((db) => {
    const data = { ...JSON.parse(second.data), provider_message_id: 'SMforged0000' };
    db.prepare('UPDATE events SET data = ? WHERE global_position = ?').run(JSON.stringify(data), second.global_position);
  });
  const out = await runCli(['verify', id], { dataDir: server.dataDir });
  expect(out.code).toBe(1);
  const body = out.json();
  expect(body.checks.find((c: { check: string }) => c.check === 'hash_chain').status).toBe('ok');
  expect(body.failure).toMatchObject({ check: 'delivery_chain', event: { revision: 1, type: 'MessageDelivered', id: second.event_id } });
  expect(body.verdict).toBe(`BROKEN (delivery_chain) at revision 1 MessageDelivered ${second.event_id}: delivery-${id} broken at revision 1: hash does not match the event content (event altered)`);
});

it('the completion records the original fixed at send', async () => {
  const { id } = await completedDocument('임대차계약서');
  const rows = withEvents((db) => streamRows(db, id));
  const sent = JSON.parse(rows.find((r) => r.type === 'DocumentSent')!.data);
  const completed = JSON.parse(rows.find((r) => r.type === 'DocumentCompleted')!.data);
  expect(sent.original_pdf.sha256).toMatch(/^[0-9a-f]{64}$/);
  expect(completed.original_sha256).toBe(sent.original_pdf.sha256);
});

it('deleting the completion (and its seal) fails verify, naming the signature left without its completion', async () => {
  const { id } = await completedDocument('NDA');
  const signed = withEvents((db) => {
    const rows = streamRows(db, id);
    const last = rows.slice(-2);
    expect(last.map((r) => r.type)).toEqual(['DocumentCompleted', 'DocumentCertified']);
    for (const row of last) expect(db.prepare('DELETE FROM events WHERE global_position = ?').run(row.global_position).changes).toBe(1);
    return rows[rows.length - 3];
  });
  const out = await runCli(['verify', id], { dataDir: server.dataDir });
  expect(out.code).toBe(1);
  const body = out.json();
  expect(body.intact).toBe(false);
  expect(body.failure).toMatchObject({ check: 'completion_present', event: { revision: signed.stream_revision, type: 'ParticipantSigned', id: signed.event_id } });
  expect(body.verdict).toBe(
    `BROKEN (completion_present) at revision ${signed.stream_revision} ParticipantSigned ${signed.event_id}: ${body.failure.detail}`,
  );
  expect(body.verdict).toContain('the log was cut short');
});

it('editing an event and re-hashing the chain with plain SHA-256 fails verify against the signed head', async () => {
  const { id } = await completedDocument('용역계약서');
  withEvents((db) => {
    const rows = streamRows(db, id);
    const created = rows[0];
    const data = JSON.parse(created.data);
    data.title = '위조된 계약서';
    created.data = JSON.stringify(data);
    // What an attacker without the key can do: recompute every hash from the edited content.
    rehash(db, rows);
  });
  const out = await runCli(['verify', id], { dataDir: server.dataDir });
  expect(out.code).toBe(1);
  const body = out.json();
  const status = Object.fromEntries(body.checks.map((c: { check: string; status: string }) => [c.check, c.status]));
  // The links alone are fine again: only the signed head can tell.
  expect(status.hash_chain).toBe('ok');
  expect(status.head_hash).toBe('failed');
  expect(body.failure.check).toBe('head_hash');
  expect(body.verdict).toMatch(/^BROKEN \(head_hash\) at revision \d+ \w+ [0-9a-f-]{36}: the events up to revision \d+ .* changed or removed and the chain re-hashed$/);
});

/** Recomputes every hash of the stream from its (edited) content, as an attacker without the key can. */
function rehash(db: Database.Database, rows: Row[]) {
  let prev = GENESIS_HASH;
  const update = db.prepare('UPDATE events SET data = ?, metadata = ? WHERE global_position = ?');
  for (const row of rows) {
    const metadata = JSON.parse(row.metadata);
    const hash = eventHash({ ...row, data: JSON.parse(row.data), metadata }, prev);
    update.run(row.data, JSON.stringify({ ...metadata, prev_hash: prev, hash }), row.global_position);
    prev = hash;
  }
}

it('editing the completing signature (its IP) and re-hashing fails the signed head, naming the completion', async () => {
  const { id } = await completedDocument('비밀유지서약서');
  const completion = withEvents((db) => {
    const rows = streamRows(db, id);
    const signed = rows[rows.length - 3];
    expect(signed.type).toBe('ParticipantSigned');
    signed.data = JSON.stringify({ ...JSON.parse(signed.data), ip: '198.51.100.23' });
    rehash(db, rows);
    return rows[rows.length - 2];
  });
  const out = await runCli(['verify', id], { dataDir: server.dataDir });
  expect(out.code).toBe(1);
  const body = out.json();
  expect(body.checks.find((c: { check: string }) => c.check === 'hash_chain').status).toBe('ok');
  expect(body.failure).toMatchObject({ check: 'head_signature', event: { revision: completion.stream_revision, type: 'DocumentCompleted', id: completion.event_id } });
  expect(body.verdict).toMatch(/^BROKEN \(head_signature\) at revision \d+ DocumentCompleted /);
});

it('a final PDF held by the auditor is compared with the log (--pdf)', async () => {
  const { id, finalSha } = await completedDocument('위임장');
  const blob = path.join(server.dataDir, 'blobs', finalSha.slice(0, 2), finalSha);
  const pdfPath = path.join(server.dataDir, 'held-final.pdf');
  fs.copyFileSync(blob, pdfPath);
  const ok = await runCli(['verify', id, '--pdf', pdfPath], { dataDir: server.dataDir });
  expect(ok.code).toBe(0);
  expect(ok.json().checks.find((c: { check: string }) => c.check === 'witness_pdf').status).toBe('ok');

  // Cut both the last signature and the completion: the log now reads as a document still out
  // for signature, consistent in itself; the PDF the signers were mailed says otherwise.
  withEvents((db) => {
    const rows = streamRows(db, id);
    for (const row of rows.slice(-3)) db.prepare('DELETE FROM events WHERE global_position = ?').run(row.global_position);
  });
  const cut = await runCli(['verify', id, '--pdf', pdfPath], { dataDir: server.dataDir });
  expect(cut.code).toBe(1);
  expect(cut.json().failure.check).toBe('witness_pdf');
});

/** Edits stored events of the document in SQLite and re-hashes the whole stream, as an attacker without the key can. */
function editStored(id: string, edit: (rows: Row[]) => Row[]): void {
  withEvents((db) => {
    const before = streamRows(db, id);
    const after = edit(before.map((r) => ({ ...r })));
    const kept = new Set(after.map((r) => r.global_position));
    for (const row of before) if (!kept.has(row.global_position)) db.prepare('DELETE FROM events WHERE global_position = ?').run(row.global_position);
    rehash(db, after);
  });
}

const editData = (row: Row, change: (d: any) => void) => {
  const d = JSON.parse(row.data);
  change(d);
  row.data = JSON.stringify(d);
};

async function servedBundleVerdict(id: string) {
  const res = await fetch(`${server.url}/v1/documents/${id}/evidence`, { headers: { Authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(60_000) });
  expect(res.status).toBe(200);
  return verifyBundle(Buffer.from(await res.arrayBuffer()));
}

describe('the conclusion edited in the store and re-hashed: cli verify, and a bundle served afterwards, name the fact', () => {
  it("the last signer's signed_at and auth_method", async () => {
    const { id } = await completedDocument('근로계약서 (서명 시각)');
    editStored(id, (rows) => {
      editData(rows.filter((r) => r.type === 'ParticipantSigned').pop()!, (d) => {
        d.signed_at = '2026-01-01T00:00:00.000Z';
        d.auth_method = 'sms_pin';
        d.auth_phone_masked = '010-****-0000';
      });
      return rows;
    });
    const out = await runCli(['verify', id], { dataDir: server.dataDir });
    expect(out.code).toBe(1);
    const body = out.json();
    expect(body.checks.find((c: { check: string }) => c.check === 'hash_chain').status).toBe('ok');
    const seal = body.checks.find((c: { check: string }) => c.check === 'seal');
    expect(seal.status).toBe('failed');
    expect(seal.detail).toMatch(/signatures\[0\]\.auth_method: certified "none", events "sms_pin"/);
    expect(seal.detail).toMatch(/signatures\[0\]\.signed_at: certified "[^"]+", events "2026-01-01T00:00:00.000Z"/);
    const served = await servedBundleVerdict(id);
    expect(served.ok).toBe(false);
    expect(served.checks.find((c) => c.id === 'seal')).toMatchObject({ status: 'fail', en: expect.stringMatching(/signatures\[0\]\.auth_method: certified "none", events "sms_pin"/) });
  });

  it('completed_at backdated before the creation', async () => {
    const { id } = await completedDocument('근로계약서 (완료 시각)');
    editStored(id, (rows) => {
      editData(rows.find((r) => r.type === 'DocumentCompleted')!, (d) => (d.completed_at = '2020-01-01T00:00:00.000Z'));
      return rows;
    });
    const body = (await runCli(['verify', id], { dataDir: server.dataDir })).json();
    const status = (name: string) => body.checks.find((c: { check: string }) => c.check === name);
    expect(status('seal')).toMatchObject({ status: 'failed', detail: expect.stringMatching(/completed_at: certified "[^"]+", events "2020-01-01T00:00:00.000Z"/) });
    expect(status('plausible')).toMatchObject({ status: 'failed', detail: expect.stringMatching(/DocumentCompleted at 2020-01-01T00:00:00.000Z precedes the document's creation/) });
    const served = await servedBundleVerdict(id);
    expect(served.checks.find((c) => c.id === 'seal')).toMatchObject({ status: 'fail', en: expect.stringMatching(/completed_at: certified/) });
    expect(served.checks.find((c) => c.id === 'consistency')).toMatchObject({ status: 'fail', en: expect.stringMatching(/precedes the document's creation/) });
  });

  it('a completed document truncated back to "sent" (its last three events deleted)', async () => {
    const { id } = await completedDocument('근로계약서 (잘림)');
    await eventually(async () => {
      const rows = withEvents((db) => streamRows(db, id, 'delivery'));
      return rows.some((r) => JSON.parse(r.data).kind === 'completed') ? rows : undefined;
    }, 'completion notice recorded');
    editStored(id, (rows) => rows.slice(0, -3));
    const out = await runCli(['verify', id], { dataDir: server.dataDir });
    expect(out.code).toBe(1);
    const body = out.json();
    expect(body.failure).toMatchObject({ check: 'deliveries_agree', detail: expect.stringMatching(/a completed notice sent at .* but the events hold no DocumentCompleted \(status sent\)/) });
    const served = await servedBundleVerdict(id);
    expect(served.checks.find((c) => c.id === 'consistency')).toMatchObject({ status: 'fail', en: expect.stringMatching(/hold no DocumentCompleted/) });
  });

  it("a decline's reason edited", async () => {
    const created = await api('POST', '/v1/documents', { title: '거절 문서', content: '<p>본문</p>' });
    const id = created.body.id as string;
    const participant = await api('POST', `/v1/documents/${id}/participants`, { name: '임꺽정', email: 'kj@example.com', auth: 'none' });
    expect(participant.status).toBe(201);
    const field = { participant_id: participant.body.id, type: 'signature', page: 1, x: 10, y: 70, width: 30, height: 8 };
    expect((await api('PUT', `/v1/documents/${id}/fields`, { fields: [field] })).status).toBe(200);
    const sent = await api('POST', `/v1/documents/${id}/send`, {});
    const token = String(sent.body.participants[0].signing_url).split('/sign/')[1];
    const signer = apiClient(server.url, 'unused');
    expect((await signer('GET', `/v1/signing/${token}`)).status).toBe(200);
    expect((await signer('POST', `/v1/signing/${token}/decline`, { reason: '급여 조건이 다릅니다' })).status).toBe(200);
    await sealed(id);
    expect((await runCli(['verify', id], { dataDir: server.dataDir })).code).toBe(0);
    editStored(id, (rows) => {
      editData(rows.find((r) => r.type === 'ParticipantDeclined')!, (d) => (d.reason = '단순 변심'));
      return rows;
    });
    const body = (await runCli(['verify', id], { dataDir: server.dataDir })).json();
    expect(body.failure).toMatchObject({ check: 'seal', detail: expect.stringMatching(/declined\.reason: certified "급여 조건이 다릅니다", events "단순 변심"/) });
  });
});

describe('a concluded document that lost its seal or its final PDF is refused, never re-made (issue 31 item 7)', () => {
  const get = (p: string) => fetch(`${server.url}${p}`, { headers: { Authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(60_000) });

  it('the DocumentCertified deleted in the store: the bundle and the audit version answer evidence_incomplete naming it, cli verify fails the certification', async () => {
    const { id } = await completedDocument('근로계약서 (봉인 삭제)');
    const completion = withEvents((db) => {
      const rows = streamRows(db, id);
      const [completed, seal] = rows.slice(-2);
      expect([completed.type, seal.type]).toEqual(['DocumentCompleted', 'DocumentCertified']);
      expect(db.prepare('DELETE FROM events WHERE global_position = ?').run(seal.global_position).changes).toBe(1);
      return completed;
    });
    for (const p of [`/v1/documents/${id}/evidence`, `/v1/documents/${id}/file?audit=true`]) {
      const res = await get(p);
      expect(res.status).toBe(500);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('evidence_incomplete');
      expect(body.error.message).toContain(`the DocumentCompleted at revision ${completion.stream_revision} of document ${id} is not followed by its certification`);
      expect(body.error.message).toContain('the certification was removed from the log');
    }
    // Nothing was sealed again behind the refusal.
    expect(withEvents((db) => streamRows(db, id)).pop()!.type).toBe('DocumentCompleted');
    const out = await runCli(['verify', id], { dataDir: server.dataDir });
    expect(out.code).toBe(1);
    expect(out.json().checks.find((c: { check: string }) => c.check === 'seal')).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/the DocumentCompleted at revision \d+ is not followed by a DocumentCertified/),
    });
  });

  it("the final PDF deleted from the blob store: the bundle answers evidence_incomplete naming the file, not a bare 500", async () => {
    const { id, finalSha } = await completedDocument('근로계약서 (최종본 삭제)');
    fs.rmSync(path.join(server.dataDir, 'blobs', finalSha.slice(0, 2), finalSha));
    const res = await get(`/v1/documents/${id}/evidence`);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'evidence_incomplete', message: expect.stringContaining(`the stored file ${finalSha} is missing from the blob store`) });
  });
});
