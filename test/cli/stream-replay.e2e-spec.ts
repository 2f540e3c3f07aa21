import * as fs from 'fs';
import { apiClient, ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';

/**
 * The auditor's side of the CLI: read-only keys, and `stream show` replaying a stream with its
 * aggregate's own evolve (`--as-of`, `--diff`), next to a running server on the same DATA_DIR.
 */

const BUILD_TIMEOUT = 5 * 60_000;

async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean, tries = 15, pauseMs = 200): Promise<T> {
  let value = await attempt();
  for (let i = 1; i < tries && !done(value); i++) {
    await new Promise((r) => setTimeout(r, pauseMs));
    value = await attempt();
  }
  return value;
}

beforeAll(() => ensureBuilt(), BUILD_TIMEOUT);

describe('auditor keys and stream replay from the CLI', () => {
  let server: ServerProcess;
  let orgId: string;
  let api: ReturnType<typeof apiClient>;
  let docId: string;
  let stored: Array<{ stream_revision: number; type: string; metadata: { occurred_at: string; hash: string } }>;

  beforeAll(async () => {
    server = await startServer({ dataDir: tempDataDir('dojang-cli-audit-') });
    const created = (await runCli(['org', 'create', '--name', 'Audit Co'], { dataDir: server.dataDir })).json();
    orgId = created.organization.id;
    api = apiClient(server.url, created.keys.test);
    await eventually(() => api('GET', '/v1/documents'), (r) => r.status === 200);
    const doc = await api('POST', '/v1/documents', { title: '근로계약서', content: '<p>본문</p>' });
    docId = doc.body.id;
    const p = await api('POST', `/v1/documents/${docId}/participants`, { name: '홍길동', email: 'gd@example.com', auth: 'none' });
    await api('PUT', `/v1/documents/${docId}/fields`, { fields: [{ participant_id: p.body.id, type: 'signature', page: 1, x: 10, y: 70, width: 20, height: 8 }] });
    expect((await api('PATCH', `/v1/documents/${docId}`, { title: '근로계약서 (수정)' })).status).toBe(200);
    expect((await api('POST', `/v1/documents/${docId}/send`, {})).status).toBe(200);
    stored = (await runCli(['stream', 'show', `document-${docId}`, '--json'], { dataDir: server.dataDir })).json();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('key issue --role auditor prints a key the running server lets read but not write', async () => {
    const out = await runCli(['key', 'issue', '--org', orgId, '--mode', 'test', '--role', 'auditor'], { dataDir: server.dataDir });
    expect(out.code).toBe(0);
    const key = out.json();
    expect(key).toMatchObject({ object: 'api_key', mode: 'test', role: 'auditor' });
    const auditor = apiClient(server.url, key.secret);
    const read = await eventually(() => auditor('GET', `/v1/documents/${docId}/history`), (r) => r.status === 200);
    expect(read.status).toBe(200);
    expect(read.body.chain.verified).toBe(true);
    const write = await auditor('POST', '/v1/documents', { title: 'nope', content: '<p>x</p>' });
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_permissions' });
  });

  it('key issue refuses an unknown role with usage', async () => {
    const out = await runCli(['key', 'issue', '--org', orgId, '--mode', 'test', '--role', 'root'], { dataDir: server.dataDir });
    expect(out.code).toBe(64);
    expect(out.stderr).toContain('--role must be one of full, auditor');
  });

  it('--as-of shows only the events up to that instant and the state folded from them', async () => {
    const at = stored[1].metadata.occurred_at;
    const upTo = stored.filter((e) => Date.parse(e.metadata.occurred_at) <= Date.parse(at));
    const out = await runCli(['stream', 'show', `document-${docId}`, '--as-of', at], { dataDir: server.dataDir });
    expect(out.code).toBe(0);
    const shown = out.stdout.split('\n').filter((l) => /^#\d+ /.test(l)).map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(shown).toEqual(upTo.map((e) => `#${e.stream_revision} ${e.type}`));
    expect(out.stdout).toContain(`state as of ${at} (${upTo.length} of ${stored.length} events)`);
    expect(out.stdout).toContain(`chain verified: ${stored.length} events`);

    const json = (await runCli(['stream', 'show', `document-${docId}`, '--as-of', at, '--json'], { dataDir: server.dataDir })).json();
    expect(json.as_of).toBe(at);
    expect(json.chain).toEqual({ head_hash: stored[stored.length - 1].metadata.hash, event_count: stored.length, verified: true });
    expect(json.events).toHaveLength(upTo.length);
    expect(json.state).toMatchObject({ id: docId, status: 'draft', title: '근로계약서' });
    expect(json.state.participants.map((p: { name: string }) => p.name)).toEqual(['홍길동']);
  });

  it('--diff shows what each event changed in the folded state', async () => {
    const out = await runCli(['stream', 'show', `document-${docId}`, '--diff'], { dataDir: server.dataDir });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('title: "근로계약서" → "근로계약서 (수정)"');
    expect(out.stdout).toContain('status: "draft" → "sent"');
    const json = (await runCli(['stream', 'show', `document-${docId}`, '--diff', '--json'], { dataDir: server.dataDir })).json();
    expect(json.events.map((e: { type: string }) => e.type)).toEqual(stored.map((e) => e.type));
    const updated = json.events.find((e: { type: string }) => e.type === 'DocumentUpdated');
    expect(updated.changes).toEqual([{ path: 'title', from: '근로계약서', to: '근로계약서 (수정)' }]);
    const sent = json.events.find((e: { type: string }) => e.type === 'DocumentSent');
    expect(sent.changes.map((c: { path: string }) => c.path)).toEqual(expect.arrayContaining(['status', 'sent_at']));
  });

  it('the delivery stream replays too: the signing request sent at send is evidence in the chain', async () => {
    const out = await eventually(
      () => runCli(['stream', 'show', `delivery-${docId}`, '--diff', '--json'], { dataDir: server.dataDir }),
      (r) => r.code === 0 && r.json().events.length > 0,
    );
    const json = out.json();
    expect(json.events.map((e: { type: string }) => e.type)).toEqual(['MessageDelivered']);
    expect(json.events[0].data).toMatchObject({ kind: 'signing_request', channel: 'email', recipient_masked: 'g**@example.com', provider_message_id: 'outbox' });
    const verified = (await runCli(['stream', 'show', `delivery-${docId}`], { dataDir: server.dataDir })).stdout;
    expect(verified).toMatch(/#0 MessageDelivered/);
  });

  it('refuses an --as-of that is not an ISO 8601 instant, and a stream kind with no fold', async () => {
    const bad = await runCli(['stream', 'show', `document-${docId}`, '--as-of', 'yesterday'], { dataDir: server.dataDir });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--as-of must be an ISO 8601');
    const unknown = await runCli(['stream', 'show', 'mystery-1', '--diff'], { dataDir: server.dataDir });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('need a stream kind with a fold');
  });

  it('before the stream began there is nothing to show', async () => {
    const out = await runCli(['stream', 'show', `document-${docId}`, '--as-of', '2000-01-01'], { dataDir: server.dataDir });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('has no event by 2000-01-01T00:00:00.000Z');
  });
});
