import { useTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, client, expectError, expectStatus } from '../support/api-helpers';

describe('GET /v1/organization and GET /v1/members', () => {
  const t = useTestApp({ ...API_TEST_OPTIONS, manualClock: true });

  describe('GET /v1/organization', () => {
    it('returns the organization of the calling key: id, object, name, workspace_kind, plan', async () => {
      const org = await t.createOrg('주식회사 도장');
      const res = expectStatus(await client(t, org.test).get('/organization'), 200);
      expect(res.body).toMatchObject({ id: org.id, object: 'organization', name: '주식회사 도장', workspace_kind: 'personal', plan: 'business', livemode: false });
      expect(res.body.id).toMatch(/^org_/);
      const live = expectStatus(await client(t, org.live).get('/organization'), 200);
      expect(live.body).toMatchObject({ id: org.id, name: '주식회사 도장', livemode: true });
    });

    it('a team workspace says so and has no monthly free signatures', async () => {
      const org = await t.createOrg('팀 워크스페이스', 'team');
      const res = expectStatus(await client(t, org.test).get('/organization'), 200);
      expect(res.body).toMatchObject({ id: org.id, workspace_kind: 'team', plan: 'business' });
      expect(res.body.usage.free_signatures_per_month).toBe(0);
      expect(res.body.usage.free_signatures_remaining).toBe(0);
    });

    it('the usage period follows the service clock', async () => {
      const org = await t.createOrg();
      t.clock!.set('2026-03-15T12:00:00.000Z');
      expect(expectStatus(await client(t, org.test).get('/organization'), 200).body.usage.period).toBe('2026-03');
      t.clock!.set('2026-04-01T00:00:00.000Z');
      expect(expectStatus(await client(t, org.test).get('/organization'), 200).body.usage.period).toBe('2026-04');
    });

    it('shows credits granted by an administrator', async () => {
      const org = await t.createOrg();
      await t.admin.grantCredits(org.id, 2.5, 'test');
      expect(expectStatus(await client(t, org.test).get('/organization'), 200).body.usage.credit_balance).toBe(2.5);
    });

    it('reveals no keys, key hashes, members or other secrets', async () => {
      const org = await t.createOrg();
      await t.admin.addMember(org.id, { name: '관리자', email: 'admin@example.com', role: 'admin' });
      const res = expectStatus(await client(t, org.test).get('/organization'), 200);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(org.test);
      expect(text).not.toContain(org.live);
      expect(text).not.toMatch(/key_hash|keys|secret|token|members|admin@example\.com/);
    });

    it('under the legacy root too', async () => {
      const org = await t.createOrg('레거시');
      expect(expectStatus(await client(t, org.test, '/api/v1').get('/organization'), 200).body).toMatchObject({ id: org.id, name: '레거시' });
    });

    it('requires a key', async () => {
      expectError(await t.http.get('/v1/organization'), 401, 'missing_api_key');
    });
  });

  describe('GET /v1/members', () => {
    it('lists the members added by the administrator, in order', async () => {
      const org = await t.createOrg();
      const c = client(t, org.test);
      expect(expectStatus(await c.get('/members'), 200).body).toEqual({ object: 'list', data: [], has_more: false });
      const owner = await t.admin.addMember(org.id, { name: '김대표', email: 'ceo@example.com', role: 'owner' });
      const admin = await t.admin.addMember(org.id, { name: '이관리', email: 'admin@example.com', role: 'admin' });
      const member = await t.admin.addMember(org.id, { name: '박사원', email: 'staff@example.com', role: 'member' });
      const viewer = await t.admin.addMember(org.id, { name: '최열람', email: 'view@example.com', role: 'viewer' });
      const res = expectStatus(await c.get('/members'), 200);
      expect(res.body.object).toBe('list');
      expect(res.body.has_more).toBe(false);
      expect(res.body.data).toEqual([
        { object: 'member', user_id: owner.user_id, name: '김대표', email: 'ceo@example.com', role: 'owner' },
        { object: 'member', user_id: admin.user_id, name: '이관리', email: 'admin@example.com', role: 'admin' },
        { object: 'member', user_id: member.user_id, name: '박사원', email: 'staff@example.com', role: 'member' },
        { object: 'member', user_id: viewer.user_id, name: '최열람', email: 'view@example.com', role: 'viewer' },
      ]);
      for (const m of res.body.data) expect(m.user_id).toMatch(/^usr_/);
      // Read-your-writes for an administrative write as well, and the same list for the live key.
      expect(expectStatus(await client(t, org.live).get('/members'), 200).body.data).toEqual(res.body.data);
    });

    it("never shows another organization's members", async () => {
      const a = await t.createOrg('A');
      const b = await t.createOrg('B');
      await t.admin.addMember(a.id, { name: 'A 직원', email: 'a@example.com', role: 'member' });
      await t.admin.addMember(b.id, { name: 'B 직원', email: 'b@example.com', role: 'member' });
      const aList = expectStatus(await client(t, a.test).get('/members'), 200).body.data;
      const bList = expectStatus(await client(t, b.live).get('/members'), 200).body.data;
      expect(aList.map((m: any) => m.email)).toEqual(['a@example.com']);
      expect(bList.map((m: any) => m.email)).toEqual(['b@example.com']);
    });

    it('under the legacy root too, and requires a key', async () => {
      const org = await t.createOrg();
      await t.admin.addMember(org.id, { name: '레거시', email: 'l@example.com', role: 'member' });
      expect(expectStatus(await client(t, org.test, '/api/v1').get('/members'), 200).body.data.map((m: any) => m.name)).toEqual(['레거시']);
      expectError(await t.http.get('/v1/members'), 401, 'missing_api_key');
      expectError(await t.http.get('/api/v1/members'), 401, 'missing_api_key');
    });
  });
});
