import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as path from 'path';
import { apiClient, ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';

/**
 * The admin and auditor CLI as an operator runs it: `node scripts/cli.js …` in its own process,
 * printing JSON, on the same DATA_DIR as a running server.
 */

const BUILD_TIMEOUT = 5 * 60_000;

/** Retries `attempt` until it returns true, a bounded number of times; returns the last value. */
async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean, tries = 15, pauseMs = 200): Promise<T> {
  let value = await attempt();
  for (let i = 1; i < tries && !done(value); i++) {
    await new Promise((r) => setTimeout(r, pauseMs));
    value = await attempt();
  }
  return value;
}

beforeAll(() => ensureBuilt(), BUILD_TIMEOUT);

describe('admin commands', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = tempDataDir('dojang-cli-');
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('org create prints the organization and one test and one live key', async () => {
    const out = await runCli(['org', 'create', '--name', '도장 주식회사', '--kind', 'team'], { dataDir });
    expect(out.code).toBe(0);
    const body = out.json();
    expect(Object.keys(body).sort()).toEqual(['keys', 'organization']);
    expect(body.organization).toMatchObject({ object: 'organization', name: '도장 주식회사', workspace_kind: 'team' });
    expect(body.organization.id).toMatch(/^org_/);
    expect(body.keys.test).toMatch(/^sk_test_[A-Za-z0-9_-]{20,}$/);
    expect(body.keys.live).toMatch(/^sk_live_[A-Za-z0-9_-]{20,}$/);
  });

  it('org create defaults to a personal workspace', async () => {
    const body = (await runCli(['org', 'create', '--name', 'Solo'], { dataDir })).json();
    expect(body.organization.workspace_kind).toBe('personal');
  });

  it('key issue --mode live prints a new live key', async () => {
    const org = (await runCli(['org', 'create', '--name', 'Keys'], { dataDir })).json();
    const out = await runCli(['key', 'issue', '--org', org.organization.id, '--mode', 'live'], { dataDir });
    expect(out.code).toBe(0);
    const key = out.json();
    expect(key).toMatchObject({ object: 'api_key', mode: 'live' });
    expect(key.id).toMatch(/^key_/);
    expect(key.secret).toMatch(/^sk_live_/);
    expect(key.secret).not.toBe(org.keys.live);
  });

  it('member add prints the member', async () => {
    const org = (await runCli(['org', 'create', '--name', 'Team', '--kind', 'team'], { dataDir })).json();
    const out = await runCli(['member', 'add', '--org', org.organization.id, '--name', '김철수', '--email', 'cs@example.com', '--role', 'admin'], {
      dataDir,
    });
    expect(out.code).toBe(0);
    const member = out.json();
    expect(member).toMatchObject({ object: 'member', name: '김철수', email: 'cs@example.com', role: 'admin' });
    expect(member.user_id).toMatch(/^usr_/);
  });

  it('a missing required flag prints usage and exits non-zero', async () => {
    const out = await runCli(['org', 'create'], { dataDir });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('--name is required');
    expect(out.stderr).toContain('org create --name NAME');
    expect(out.stdout).toBe('');
  });

  it('an invalid flag value prints usage and exits non-zero', async () => {
    const org = (await runCli(['org', 'create', '--name', 'Modes'], { dataDir })).json();
    const out = await runCli(['key', 'issue', '--org', org.organization.id, '--mode', 'staging'], { dataDir });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('--mode must be one of test, live');
    expect(out.stderr).toContain('key issue --org ORG_ID --mode test|live');
  });

  it('an unknown command prints usage and exits non-zero', async () => {
    const out = await runCli(['frobnicate', 'now'], { dataDir });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('unknown command: frobnicate now');
    expect(out.stderr).toContain('Dojang admin and auditor CLI');
  });

  it('no command at all prints usage and exits non-zero', async () => {
    const out = await runCli([], { dataDir });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('Dojang admin and auditor CLI');
  });

  it('an operation on an unknown organization fails with a message and a non-zero exit', async () => {
    const out = await runCli(['member', 'add', '--org', 'org_doesnotexist', '--name', 'X', '--email', 'x@example.com'], { dataDir });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/^error: /);
  });
});

describe('next to a running server on the same DATA_DIR', () => {
  let server: ServerProcess;
  let orgId: string;
  let testKey: string;
  const documentIds: string[] = [];
  let edited: string;

  beforeAll(async () => {
    server = await startServer({ dataDir: tempDataDir('dojang-cli-live-') });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('an organization created by the CLI can use the API at once', async () => {
    const out = await runCli(['org', 'create', '--name', 'Live Co', '--kind', 'team'], { dataDir: server.dataDir });
    expect(out.code).toBe(0);
    const created = out.json();
    orgId = created.organization.id;
    testKey = created.keys.test;
    const api = apiClient(server.url, testKey);
    // The CLI has already projected the key; at most one poll of the server's is allowed for.
    const res = await eventually(() => api('GET', '/v1/documents'), (r) => r.status === 200);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'list', data: [], has_more: false });
  });

  it('a live key issued while the server runs works at once and sees only live objects', async () => {
    const key = (await runCli(['key', 'issue', '--org', orgId, '--mode', 'live'], { dataDir: server.dataDir })).json();
    const api = apiClient(server.url, key.secret);
    const created = await eventually(() => api('POST', '/v1/documents', { title: 'Live doc', content: '<p>live</p>' }), (r) => r.status === 201);
    expect(created.status).toBe(201);
    expect(created.body.livemode).toBe(true);
    const testList = await apiClient(server.url, testKey)('GET', '/v1/documents');
    expect(testList.body.data.map((d: { id: string }) => d.id)).not.toContain(created.body.id);
  });

  it('documents created over HTTP show up in `stream show` readably', async () => {
    const api = apiClient(server.url, testKey);
    for (const title of ['근로계약서', 'NDA', '임대차계약서']) {
      const res = await api('POST', '/v1/documents', { title, content: `<p>${title} 본문</p>` });
      expect(res.status).toBe(201);
      documentIds.push(res.body.id);
    }
    edited = documentIds[0];
    const participant = await api('POST', `/v1/documents/${edited}/participants`, { name: '홍길동', email: 'gd@example.com', auth: 'none' });
    expect(participant.status).toBe(201);
    const patched = await api('PATCH', `/v1/documents/${edited}`, { title: '근로계약서 (수정)' });
    expect(patched.status).toBe(200);

    const shown = await runCli(['stream', 'show', `document-${edited}`], { dataDir: server.dataDir });
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines.filter((l) => /^#\d+ /.test(l)).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      '#0 DocumentCreated',
      '#1 ParticipantAdded',
      '#2 DocumentUpdated',
    ]);
    // The body is in the blob store; the event names it by hash and size (docs/EVENTS.md).
    expect(shown.stdout).toMatch(/"content_blob":\{"sha256":"[0-9a-f]{64}","byte_size":\d+\}/);
    expect(shown.stdout).not.toContain('근로계약서 본문');
    expect(shown.stdout).toContain('홍길동');
    expect(shown.stdout).toMatch(/hash: [0-9a-f]{64} {2}prev: 0{64}/);

    const asJson = (await runCli(['stream', 'show', `document-${edited}`, '--json'], { dataDir: server.dataDir })).json();
    expect(asJson.map((e: { type: string }) => e.type)).toEqual(['DocumentCreated', 'ParticipantAdded', 'DocumentUpdated']);
    expect(asJson[0].metadata.organization_id).toBe(orgId);
  });

  it('stream show of an unknown stream says so', async () => {
    const out = await runCli(['stream', 'show', 'document-00000000-0000-4000-8000-000000000000'], { dataDir: server.dataDir });
    expect(out.stdout).toContain('is empty or does not exist');
  });

  it('verify says intact for an untouched document', async () => {
    const out = await runCli(['verify', edited], { dataDir: server.dataDir });
    expect(out.code).toBe(0);
    const body = out.json();
    expect(body).toMatchObject({ intact: true, events: 3 });
    expect(body.verdict).toMatch(/^intact: 3 events, hash chain unbroken/);
  });

  it('verify of an unknown document exits non-zero', async () => {
    const out = await runCli(['verify', '00000000-0000-4000-8000-000000000000'], { dataDir: server.dataDir });
    expect(out.code).not.toBe(0);
    expect(out.json().found).toBe(false);
  });

  it('document lock from the CLI is enforced by the running server', async () => {
    const locked = await runCli(['document', 'lock', documentIds[2]], { dataDir: server.dataDir });
    expect(locked.code).toBe(0);
    expect(locked.json()).toMatchObject({ id: documentIds[2], edit_locked: true });
    const api = apiClient(server.url, testKey);
    const res = await eventually(() => api('PATCH', `/v1/documents/${documentIds[2]}`, { title: 'changed' }), (r) => r.status === 409);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('document_edit_locked');
    const unlocked = await runCli(['document', 'unlock', documentIds[2]], { dataDir: server.dataDir });
    expect(unlocked.json()).toMatchObject({ edit_locked: false });
  });

  it('verify reports BROKEN at the altered revision, with exit code 1, after a stored event is edited', async () => {
    const db = new Database(path.join(server.dataDir, 'events.sqlite'));
    try {
      const changed = db
        .prepare(`UPDATE events SET data = json_set(data, '$.participant.name', '김가짜') WHERE stream_id = ? AND stream_revision = 1`)
        .run(`document-${edited}`);
      expect(changed.changes).toBe(1);
    } finally {
      db.close();
    }
    const out = await runCli(['verify', edited], { dataDir: server.dataDir });
    expect(out.code).toBe(1);
    const body = out.json();
    expect(body).toMatchObject({ intact: false, failure: { check: 'hash_chain', event: { revision: 1, type: 'ParticipantAdded' } } });
    expect(body.verdict).toMatch(/^BROKEN \(hash_chain\) at revision 1 ParticipantAdded [0-9a-f-]{36}: broken at revision 1: hash does not match the event content/);

    // The other documents' chains are untouched.
    const other = await runCli(['verify', documentIds[1]], { dataDir: server.dataDir });
    expect(other.code).toBe(0);
    expect(other.json().intact).toBe(true);
  });

  it('projections rebuild replays the log and the API still lists the same documents', async () => {
    const api = apiClient(server.url, testKey);
    const before = await api('GET', '/v1/documents?limit=100');
    expect(before.status).toBe(200);
    const idsBefore = before.body.data.map((d: { id: string }) => d.id);
    expect([...idsBefore].sort()).toEqual([...documentIds].sort());

    const out = await runCli(['projections', 'rebuild'], { dataDir: server.dataDir });
    expect(out.code).toBe(0);
    expect(out.json().rebuilt).toEqual(expect.arrayContaining(['documents', 'organizations', 'api_keys']));

    const after = await eventually(
      () => api('GET', '/v1/documents?limit=100'),
      (r) => r.status === 200 && r.body.data.length === idsBefore.length,
    );
    expect(after.status).toBe(200);
    expect(after.body.data.map((d: { id: string }) => d.id)).toEqual(idsBefore);
    const one = await api('GET', `/v1/documents/${documentIds[1]}`);
    expect(one.status).toBe(200);
    expect(one.body.title).toBe('NDA');
    // And the server keeps writing and reading on the rebuilt read models.
    const created = await api('POST', '/v1/documents', { title: 'After rebuild', content: '<p>x</p>' });
    expect(created.status).toBe(201);
    const list = await api('GET', '/v1/documents?limit=100');
    expect(list.body.data[0].id).toBe(created.body.id);
  });

  it('projections rebuild of an unknown projection fails with a message', async () => {
    const out = await runCli(['projections', 'rebuild', 'nonsense'], { dataDir: server.dataDir });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('unknown projection(s): nonsense');
  });
});

describe('projections rebuild next to a server that keeps writing', () => {
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    // Rate limit off: the test makes a few thousand requests in seconds.
    server = await startServer({ dataDir: tempDataDir('dojang-cli-rebuild-'), env: { RATE_LIMIT_PER_MINUTE: '0' } });
    key = (await runCli(['org', 'create', '--name', 'Rebuild Co'], { dataDir: server.dataDir })).json().keys.test;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('projections rebuild while the server keeps editing documents loses no acknowledged edit', async () => {
    const api = apiClient(server.url, key);
    const ids: string[] = [];
    // Enough history that the replay takes a while; the documents edited are the newest, which
    // the replay reaches last.
    for (let i = 0; i < 50; i++) {
      const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => api('POST', '/v1/documents', { title: `문서 ${i * 20 + j}`, content: '<p>x</p>' })));
      for (const res of batch) {
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
    }
    const edited = ids.slice(-200);
    // Edits keep landing while the CLI empties and replays the documents read model.
    const lastTitle = new Map<string, string>();
    let rebuilding = true;
    let edits = 0;
    const editor = (async () => {
      for (let round = 0; rebuilding || round < 2; round++) {
        for (let k = 0; k < edited.length; k += 10) {
          await Promise.all(
            edited.slice(k, k + 10).map(async (id) => {
              const title = `round ${round} ${id.slice(0, 8)}`;
              const res = await api('PATCH', `/v1/documents/${id}`, { title });
              expect(res.status).toBe(200);
              lastTitle.set(id, title);
              edits++;
            }),
          );
        }
      }
    })();
    const out = await runCli(['projections', 'rebuild', 'documents'], { dataDir: server.dataDir });
    rebuilding = false;
    await editor;
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    expect(edits).toBeGreaterThan(edited.length);

    for (const id of ids) {
      const res = await api('GET', `/v1/documents/${id}`);
      expect({ id, status: res.status, title: res.body.title }).toEqual({ id, status: 200, title: lastTitle.get(id) ?? `문서 ${ids.indexOf(id)}` });
    }
    const listed = new Set<string>();
    for (let cursor: string | undefined; ; ) {
      const page = await api('GET', `/v1/documents?limit=100${cursor ? `&starting_after=${cursor}` : ''}`);
      for (const d of page.body.data) listed.add(d.id);
      if (!page.body.has_more) break;
      cursor = page.body.data[page.body.data.length - 1].id;
    }
    for (const id of ids) expect(listed.has(id)).toBe(true);
  });
});
