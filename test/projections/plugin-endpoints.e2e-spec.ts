import { ManualClock } from '@dojang/application';
import { Client, client, expectError, expectStatus } from '../support/api-helpers';
import { sentWith, signer } from '../support/lifecycle';
import { startTestApp, TestApp } from '../support/test-app';
import { percentile, record } from '../../examples/projections/signing-times';

/**
 * A plugin's declared read endpoint (examples/projections/signing-times.ts: `monthly`), served by
 * the one generic controller under /v1/extensions/{projection}/{endpoint}: no code in apps/ for
 * the plugin. Scoped like every answer (organization and key mode; another's row is 404), readable
 * with an auditor key. Every answer is checked against the served OpenAPI document (t.http).
 */
const MINUTE = 60_000;
const MONTHLY = '/extensions/signing_times/monthly';

describe('plugin read endpoints (/v1/extensions)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let owner: Client;
  let auditor: Client;
  let live: Client;
  let other: Client;
  let orgId: string;

  beforeAll(async () => {
    t = await startTestApp({ manualClock: true, env: { PROJECTIONS: 'examples/projections/signing-times.ts' }, config: { rateLimitPerMinute: 1_000_000 } });
    clock = t.clock!;
    const org = await t.createOrg();
    orgId = org.id;
    owner = client(t, org.test);
    live = client(t, org.live);
    auditor = client(t, (await t.admin.issueKey(org.id, 'test', 'auditor')).secret);
    other = client(t, (await t.createOrg('Other')).test);
    for (const [who, minutes] of [
      [owner, 10],
      [owner, 30],
      [other, 5],
    ] as const) {
      const d = await sentWith(who, [{ name: '김철수', auth: 'none' }]);
      clock.advance(minutes * MINUTE);
      expectStatus(await signer(t, d.p['김철수'].token).sign(), 200);
    }
    await t.infra.runner.catchUp();
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  const rowId = () => `${orgId}:test:2026-03`;
  const histogram = record(record({}, 600), 1800);

  it("lists the organization's rows for the key's mode, without the runner's stamps", async () => {
    const page = expectStatus(await owner.get(MONTHLY), 200).body;
    expect(page).toEqual({
      object: 'list',
      data: [
        {
          id: rowId(),
          organization_id: orgId,
          livemode: false,
          month: '2026-03',
          documents: 2,
          p50_seconds: percentile(histogram, 0.5),
          p95_seconds: percentile(histogram, 0.95),
          histogram,
        },
      ],
      has_more: false,
    });
    expect(expectStatus(await owner.get(`${MONTHLY}/${encodeURIComponent(rowId())}`), 200).body).toMatchObject({ id: rowId(), documents: 2 });
  });

  it('filters on the fields the endpoint declares, and refuses any other', async () => {
    expect(expectStatus(await owner.get(`${MONTHLY}?month=2026-03`), 200).body.data).toHaveLength(1);
    expect(expectStatus(await owner.get(`${MONTHLY}?month=2026-04`), 200).body.data).toEqual([]);
    const err = expectError(await owner.get(`${MONTHLY}?documents=2`), 400, 'invalid_parameter', 'documents');
    expect(err.message).toContain('its filters: month');
    expectError(await owner.get(`${MONTHLY}?month=a&month=b`), 400, 'invalid_parameter', 'month');
    expectError(await owner.get(`${MONTHLY}?limit=0`), 400, 'invalid_parameter', 'limit');
  });

  it('lets an auditor key read it (read-only keys read aggregates of the documents they may read)', async () => {
    expect(expectStatus(await auditor.get(MONTHLY), 200).body.data.map((r: { id: string }) => r.id)).toEqual([rowId()]);
    expect(expectStatus(await auditor.get(`${MONTHLY}/${encodeURIComponent(rowId())}`), 200).body.documents).toBe(2);
  });

  it("another organization sees only its own rows, and this one's row is 404 to it; so is the other mode's", async () => {
    const theirs = expectStatus(await other.get(MONTHLY), 200).body.data;
    expect(theirs.map((r: { documents: number; organization_id: string }) => [r.documents, r.organization_id === orgId])).toEqual([[1, false]]);
    expectError(await other.get(`${MONTHLY}/${encodeURIComponent(rowId())}`), 404, 'extension_row_not_found');
    expect(expectStatus(await live.get(MONTHLY), 200).body.data).toEqual([]);
    expectError(await live.get(`${MONTHLY}/${encodeURIComponent(rowId())}`), 404, 'extension_row_not_found');
    // A cursor from another organization is not a row of this list.
    expectError(await other.get(`${MONTHLY}?starting_after=${encodeURIComponent(rowId())}`), 400, 'invalid_parameter', 'starting_after');
  });

  it('answers 404 extension_not_found for a plugin not loaded, an undeclared endpoint, or a built-in projection', async () => {
    for (const path of ['/extensions/nope/monthly', '/extensions/signing_times/nope', '/extensions/documents/documents', `/extensions/api_keys/api_keys/x`]) {
      const err = expectError(await owner.get(path), 404, 'extension_not_found');
      expect(err.message).toContain('PROJECTIONS');
    }
  });

  it('needs a key, like every operation', async () => {
    expectError(await t.http.get(`/v1${MONTHLY}`), 401, 'missing_api_key');
  });
});
