import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { fold } from '../shared/decider';
import {
  DEFAULT_EXPIRY_DAYS,
  ORPHANED_RESERVATION_GRACE_MS,
  OrganizationCommand,
  PERSONAL_FREE_SIGNATURES_PER_MONTH,
  canAffordSignature,
  organizationDecider,
} from './organization.decider';
import { KeyRole, MemberRole, OrganizationEvent, WorkspaceKind } from './organization.events';

const spec = DeciderSpecification.for(organizationDecider);

const ORG = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const OWNER = 'c0000001-0000-4000-8000-000000000001';
const ADMIN = 'c0000002-0000-4000-8000-000000000002';
const MEMBER = 'c0000003-0000-4000-8000-000000000003';
const KEY_LIVE = 'k0000001-0000-4000-8000-000000000001';
const KEY_TEST = 'k0000002-0000-4000-8000-000000000002';
const DOC = (n: number) => `d0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const T0 = '2024-01-10T09:00:00.000Z';
const T1 = '2024-01-20T09:00:00.000Z';
const JAN = '2024-01-25T09:00:00.000Z';
const FEB = '2024-02-02T09:00:00.000Z';

const orgCreated = (workspace_kind: WorkspaceKind = 'personal'): OrganizationEvent => ({
  type: 'OrganizationCreated',
  data: { organization_id: ORG, name: 'Acme Corp', workspace_kind, plan: 'business', created_at: T0 },
});
const memberAdded = (user_id: string, email: string, role: MemberRole, name = 'Kim Owner'): OrganizationEvent => ({
  type: 'MemberAdded',
  data: { user_id, name, email, role, added_at: T0 },
});
const KEY_HASH: Record<string, string> = { [KEY_LIVE]: 'a'.repeat(64), [KEY_TEST]: 'b'.repeat(64) };
const keyIssued = (key_id = KEY_LIVE, role: KeyRole = 'full'): OrganizationEvent => ({
  type: 'ApiKeyIssued',
  data: { key_id, mode: key_id === KEY_LIVE ? 'live' : 'test', key_hash: KEY_HASH[key_id], key_hint: 'x9Qz', role, issued_at: T0 },
});
/** As stored before keys had roles. */
const legacyKeyIssued = (key_id = KEY_LIVE): OrganizationEvent => {
  const { role: _role, ...data } = (keyIssued(key_id) as Extract<OrganizationEvent, { type: 'ApiKeyIssued' }>).data;
  return { type: 'ApiKeyIssued', data };
};
/** The revocation names the key's hash, so the key lookup can drop it without reading the stream. */
const keyRevoked = (key_id = KEY_LIVE): OrganizationEvent => ({ type: 'ApiKeyRevoked', data: { key_id, key_hash: KEY_HASH[key_id], revoked_at: T1 } });
const granted = (amount: number): OrganizationEvent => ({ type: 'CreditsGranted', data: { amount, reason: 'purchase', granted_at: T0 } });
const used = (document_id: string, source: 'free' | 'credit', now = JAN): OrganizationEvent => ({
  type: 'SignatureUsageRecorded',
  data: { document_id, source, period: now.slice(0, 7), credits: source === 'free' ? 0 : 1, recorded_at: now },
});

const usage = (document_id: string, now = JAN, livemode = true): OrganizationCommand => ({ type: 'RecordSignatureUsage', document_id, livemode, now });
const addMember = (o: Partial<Extract<OrganizationCommand, { type: 'AddMember' }>> = {}): OrganizationCommand => ({
  type: 'AddMember',
  user_id: MEMBER,
  name: 'Lee Member',
  email: 'lee@acme.example',
  role: 'member',
  now: T1,
  ...o,
});
const settings = (o: { default_expiry_days?: number; reminder_interval_days?: number | null; embed_origins?: string[] }): OrganizationCommand => ({ type: 'ChangeSettings', now: T1, ...o });
const grant = (amount: number): OrganizationCommand => ({ type: 'GrantCredits', amount, reason: 'purchase', now: T0 });

describe('organizationDecider', () => {
  describe('CreateOrganization', () => {
    const create = (name: string): OrganizationCommand => ({ type: 'CreateOrganization', organization_id: ORG, name, workspace_kind: 'personal', plan: 'business', now: T0 });

    it('creates the organization, trimming its name', () => {
      const state = spec.given([]).when(create('  Acme Corp ')).then([orgCreated()]);
      expect(state).toMatchObject({ exists: true, id: ORG, name: 'Acme Corp', workspace_kind: 'personal', default_expiry_days: DEFAULT_EXPIRY_DAYS, credit_balance: 0 });
    });

    it.each(['', '   '])('refuses an empty name (%j)', (name) => {
      spec.given([]).when(create(name)).thenThrows('missing_parameter', { kind: 'invalid', param: 'name' });
    });

    it('refuses an organization that exists: organization_exists', () => {
      spec.given([orgCreated()]).when(create('Again')).thenThrows('organization_exists', 'conflict');
    });
  });

  it('refuses any other command on a missing organization: organization_not_found', () => {
    spec.given([]).when(addMember()).thenThrows('organization_not_found', 'not_found');
    spec.given([]).when(grant(1)).thenThrows('organization_not_found', 'not_found');
    spec.given([]).when(usage(DOC(1))).thenThrows('organization_not_found', 'not_found');
  });

  describe('AddMember', () => {
    const withOwner = () => [orgCreated(), memberAdded(OWNER, 'Owner@Acme.example', 'owner')];

    it('adds a member, trimming the name', () => {
      const state = spec
        .given(withOwner())
        .when(addMember({ name: ' Lee Member ' }))
        .then([{ type: 'MemberAdded', data: { user_id: MEMBER, name: 'Lee Member', email: 'lee@acme.example', role: 'member', added_at: T1 } }]);
      expect(state.members.map((m) => [m.user_id, m.role])).toEqual([
        [OWNER, 'owner'],
        [MEMBER, 'member'],
      ]);
    });

    it('refuses an empty name', () => {
      spec.given(withOwner()).when(addMember({ name: ' ' })).thenThrows('missing_parameter', { kind: 'invalid', param: 'name' });
    });

    it.each(['lee', 'lee@', '@acme.example', 'lee@acme', 'lee @acme.example', ''])('refuses e-mail %j', (email) => {
      spec.given(withOwner()).when(addMember({ email })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'email' });
    });

    it('refuses an e-mail already used, whatever its case: member_exists', () => {
      spec.given(withOwner()).when(addMember({ email: 'owner@ACME.example' })).thenThrows('member_exists', 'conflict');
    });

    // AddMember checks e-mails only, and MemberAdded replaces a member with the same user_id:
    // re-adding the owner's user_id under a new e-mail silently demotes the only owner.
    it('refuses a user who is already a member, under any e-mail: member_exists', () => {
      spec
        .given(withOwner())
        .when(addMember({ user_id: OWNER, email: 'kim.other@acme.example', role: 'member' }))
        .thenThrows('member_exists', 'conflict');
    });

    it('refuses a second owner: owner_exists', () => {
      spec.given(withOwner()).when(addMember({ role: 'owner' })).thenThrows('owner_exists', 'conflict');
    });

    it('accepts the first owner, and admins beside an owner', () => {
      spec.given([orgCreated()]).when(addMember({ user_id: OWNER, role: 'owner' })).thenEvents((events) => expect(events[0].type).toBe('MemberAdded'));
      spec.given(withOwner()).when(addMember({ user_id: ADMIN, role: 'admin' })).thenEvents((events) => expect(events).toHaveLength(1));
    });
  });

  describe('API keys', () => {
    it('issues a key', () => {
      const state = spec
        .given([orgCreated()])
        .when({ type: 'IssueApiKey', key_id: KEY_LIVE, mode: 'live', key_hash: 'a'.repeat(64), key_hint: 'x9Qz', now: T0 })
        .then([keyIssued()]);
      expect(state.keys).toEqual([{ key_id: KEY_LIVE, mode: 'live', role: 'full', key_hash: 'a'.repeat(64), key_hint: 'x9Qz', revoked: false }]);
    });

    it('issues an auditor key: the role is recorded in the event', () => {
      const state = spec
        .given([orgCreated()])
        .when({ type: 'IssueApiKey', key_id: KEY_TEST, mode: 'test', role: 'auditor', key_hash: 'b'.repeat(64), key_hint: 'x9Qz', now: T0 })
        .then([keyIssued(KEY_TEST, 'auditor')]);
      expect(state.keys).toEqual([expect.objectContaining({ key_id: KEY_TEST, mode: 'test', role: 'auditor', revoked: false })]);
    });

    it('refuses an unknown role: invalid_parameter on role', () => {
      spec
        .given([orgCreated()])
        .when({ type: 'IssueApiKey', key_id: KEY_TEST, mode: 'test', role: 'superuser' as KeyRole, key_hash: 'b'.repeat(64), key_hint: 'x9Qz', now: T0 })
        .thenThrows('invalid_parameter', { kind: 'invalid', param: 'role' });
    });

    it('a key issued before roles existed folds as full access', () => {
      const state = spec.given([orgCreated(), legacyKeyIssued(KEY_LIVE)]).when({ type: 'RevokeApiKey', key_id: KEY_LIVE, now: T1 }).then([keyRevoked()]);
      expect(state.keys).toEqual([expect.objectContaining({ key_id: KEY_LIVE, role: 'full', revoked: true })]);
    });

    it('revoking an auditor key revokes it like any other', () => {
      spec.given([orgCreated(), keyIssued(KEY_TEST, 'auditor')]).when({ type: 'RevokeApiKey', key_id: KEY_TEST, now: T1 }).then([keyRevoked(KEY_TEST)]);
    });

    it('revokes a key, and only that key', () => {
      const state = spec
        .given([orgCreated(), keyIssued(KEY_LIVE), keyIssued(KEY_TEST)])
        .when({ type: 'RevokeApiKey', key_id: KEY_TEST, now: T1 })
        .then([keyRevoked(KEY_TEST)]);
      expect(state.keys.map((k) => [k.key_id, k.revoked])).toEqual([
        [KEY_LIVE, false],
        [KEY_TEST, true],
      ]);
    });

    it('refuses an unknown key: api_key_not_found', () => {
      spec.given([orgCreated(), keyIssued(KEY_LIVE)]).when({ type: 'RevokeApiKey', key_id: KEY_TEST, now: T1 }).thenThrows('api_key_not_found', 'not_found');
    });

    it('revoking a revoked key is nothing', () => {
      spec
        .given([orgCreated(), keyIssued(), keyRevoked()])
        .when({ type: 'RevokeApiKey', key_id: KEY_LIVE, now: T1 })
        .thenNothing();
    });
  });

  describe('ChangeSettings', () => {
    it.each([1, 30, 365])('accepts default_expiry_days %p', (default_expiry_days) => {
      const state = spec
        .given([orgCreated()])
        .when(settings({ default_expiry_days }))
        .then([{ type: 'OrganizationSettingsChanged', data: { default_expiry_days, reminder_interval_days: undefined, changed_at: T1 } }]);
      expect(state.default_expiry_days).toBe(default_expiry_days);
      expect(state.reminder_interval_days).toBeNull();
    });

    it.each([0, 366, 7.5, -1, Number.NaN])('refuses default_expiry_days %p', (default_expiry_days) => {
      spec.given([orgCreated()]).when(settings({ default_expiry_days })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'default_expiry_days' });
    });

    it('sets and clears the reminder interval, keeping the expiry default', () => {
      const state = spec
        .given([orgCreated()])
        .when(settings({ reminder_interval_days: 3 }))
        .then([{ type: 'OrganizationSettingsChanged', data: { reminder_interval_days: 3, changed_at: T1 } }]);
      expect(state).toMatchObject({ reminder_interval_days: 3, default_expiry_days: DEFAULT_EXPIRY_DAYS });
      const cleared = spec
        .given([orgCreated(), { type: 'OrganizationSettingsChanged', data: { reminder_interval_days: 3, changed_at: T0 } }])
        .when(settings({ reminder_interval_days: null }))
        .then([{ type: 'OrganizationSettingsChanged', data: { reminder_interval_days: null, changed_at: T1 } }]);
      expect(cleared.reminder_interval_days).toBeNull();
    });

    it.each([0, -2, 1.5])('refuses reminder_interval_days %p', (reminder_interval_days) => {
      spec.given([orgCreated()]).when(settings({ reminder_interval_days })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'reminder_interval_days' });
    });

    it('sets the origins allowed to frame the signing page, normalized and deduplicated, and clears them', () => {
      const state = spec
        .given([orgCreated()])
        .when(settings({ embed_origins: ['https://App.Example.com', 'https://app.example.com:443/', 'http://localhost:3000', 'http://127.0.0.1:8080'] }))
        .then([
          {
            type: 'OrganizationSettingsChanged',
            data: { default_expiry_days: undefined, reminder_interval_days: undefined, embed_origins: ['https://app.example.com', 'http://localhost:3000', 'http://127.0.0.1:8080'], changed_at: T1 },
          },
        ]);
      expect(state.embed_origins).toEqual(['https://app.example.com', 'http://localhost:3000', 'http://127.0.0.1:8080']);
      expect(state.default_expiry_days).toBe(DEFAULT_EXPIRY_DAYS);
      const cleared = spec
        .given([orgCreated(), { type: 'OrganizationSettingsChanged', data: { embed_origins: ['https://a.example'], changed_at: T0 } }])
        .when(settings({ embed_origins: [] }))
        .then([{ type: 'OrganizationSettingsChanged', data: { default_expiry_days: undefined, reminder_interval_days: undefined, embed_origins: [], changed_at: T1 } }]);
      expect(cleared.embed_origins).toEqual([]);
    });

    it('nobody may frame the page by default, and other settings leave the origins alone', () => {
      const state = spec
        .given([orgCreated(), { type: 'OrganizationSettingsChanged', data: { embed_origins: ['https://a.example'], changed_at: T0 } }])
        .when(settings({ default_expiry_days: 7 }))
        .then([{ type: 'OrganizationSettingsChanged', data: { default_expiry_days: 7, reminder_interval_days: undefined, changed_at: T1 } }]);
      expect(state.embed_origins).toEqual(['https://a.example']);
      expect(spec.given([orgCreated()]).when(settings({ default_expiry_days: 7 })).then([expect.anything()]).embed_origins).toEqual([]);
    });

    it.each([
      'http://app.example.com',
      'https://app.example.com/embed',
      'https://*.example.com',
      '*',
      "'self'",
      'app.example.com',
      'https://user:pw@app.example.com',
      'https://app.example.com?x=1',
      'ftp://app.example.com',
      'http://10.0.0.1',
      '',
    ])('refuses the embed origin %p', (origin) => {
      spec.given([orgCreated()]).when(settings({ embed_origins: [origin] })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'embed_origins' });
    });
  });

  describe('GrantCredits', () => {
    it('grants a positive amount', () => {
      const state = spec
        .given([orgCreated()])
        .when(grant(10))
        .then([{ type: 'CreditsGranted', data: { amount: 10, reason: 'purchase', granted_at: T0 } }]);
      expect(state.credit_balance).toBe(10);
    });

    it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])('refuses amount %p', (amount) => {
      spec.given([orgCreated()]).when(grant(amount)).thenThrows('invalid_parameter', { kind: 'invalid', param: 'amount' });
    });

    it('keeps fractional balances exact (0.1 + 0.2 is 0.3)', () => {
      const state = spec.given([orgCreated(), granted(0.1)]).when(grant(0.2)).then([{ type: 'CreditsGranted', data: { amount: 0.2, reason: 'purchase', granted_at: T0 } }]);
      expect(state.credit_balance).toBe(0.3);
      expect(fold(organizationDecider, [orgCreated(), granted(1.25), used(DOC(1), 'credit')]).credit_balance).toBe(0.25);
    });
  });

  describe('RecordSignatureUsage', () => {
    it('is nothing in test mode', () => {
      spec.given([orgCreated()]).when(usage(DOC(1), JAN, false)).thenNothing();
    });

    it(`a personal workspace uses its ${PERSONAL_FREE_SIGNATURES_PER_MONTH} free signatures of the month first`, () => {
      const state = spec
        .given([orgCreated(), granted(5), used(DOC(1), 'free'), used(DOC(2), 'free')])
        .when(usage(DOC(3)))
        .then([used(DOC(3), 'free')]);
      expect(state).toMatchObject({ credit_balance: 5, free_used: { '2024-01': 3 } });
    });

    it('then one credit per signature', () => {
      const state = spec
        .given([orgCreated(), granted(5), used(DOC(1), 'free'), used(DOC(2), 'free'), used(DOC(3), 'free')])
        .when(usage(DOC(4)))
        .then([{ type: 'SignatureUsageRecorded', data: { document_id: DOC(4), source: 'credit', period: '2024-01', credits: 1, recorded_at: JAN } }]);
      expect(state.credit_balance).toBe(4);
    });

    it('the free count starts again next month', () => {
      spec
        .given([orgCreated(), used(DOC(1), 'free'), used(DOC(2), 'free'), used(DOC(3), 'free')])
        .when(usage(DOC(4), FEB))
        .then([used(DOC(4), 'free', FEB)]);
    });

    it('a team workspace pays a credit right away', () => {
      const state = spec
        .given([orgCreated('team'), granted(2)])
        .when(usage(DOC(1)))
        .then([used(DOC(1), 'credit')]);
      expect(state.credit_balance).toBe(1);
    });

    it('counts a document once', () => {
      spec
        .given([orgCreated(), used(DOC(1), 'free')])
        .when(usage(DOC(1), FEB))
        .thenNothing();
    });
  });

  describe('canAffordSignature', () => {
    const state = (events: OrganizationEvent[]) => fold(organizationDecider, events);
    const freeUsedUp = [orgCreated(), used(DOC(1), 'free'), used(DOC(2), 'free'), used(DOC(3), 'free')];

    it('a personal workspace with free signatures left can afford one', () => {
      expect(canAffordSignature(state([orgCreated()]), JAN)).toBe(true);
      expect(canAffordSignature(state([orgCreated(), used(DOC(1), 'free'), used(DOC(2), 'free')]), JAN)).toBe(true);
    });

    it('without free signatures it needs at least one whole credit', () => {
      expect(canAffordSignature(state(freeUsedUp), JAN)).toBe(false);
      expect(canAffordSignature(state([...freeUsedUp, granted(0.9999)]), JAN)).toBe(false);
      expect(canAffordSignature(state([...freeUsedUp, granted(1)]), JAN)).toBe(true);
    });

    it('next month the free signatures are back', () => {
      expect(canAffordSignature(state(freeUsedUp), FEB)).toBe(true);
    });

    it('a team workspace has no free signatures', () => {
      expect(canAffordSignature(state([orgCreated('team')]), JAN)).toBe(false);
      expect(canAffordSignature(state([orgCreated('team'), granted(0.5)]), JAN)).toBe(false);
      expect(canAffordSignature(state([orgCreated('team'), granted(1.5)]), JAN)).toBe(true);
    });
  });

  describe('credit reservations (bulk sends)', () => {
    const JOB = 'bulk_0123456789abcdef01234567';
    const reserve = (count: number, reservation_id = JOB): OrganizationCommand => ({ type: 'ReserveCredits', reservation_id, count, now: JAN });
    const reserved = (count: number, reservation_id = JOB): OrganizationEvent => ({ type: 'CreditsReserved', data: { reservation_id, count, reserved_at: JAN } });
    const settle = (done: number, row_count: number): OrganizationCommand => ({ type: 'SettleReservation', reservation_id: JOB, done, row_count, now: JAN });
    const settledEv = (settled: number, released: number): OrganizationEvent => ({ type: 'CreditReservationSettled', data: { reservation_id: JOB, settled, released, settled_at: JAN } });

    it('holds signatures for a job when they are there, and refuses clearly with 402 when short, counting what other jobs hold', () => {
      spec.given([orgCreated('team'), granted(10)]).when(reserve(10)).then([reserved(10)]);
      spec.given([orgCreated('team'), granted(10)]).when(reserve(11)).thenThrows('insufficient_credits', 'payment_required');
      spec.given([orgCreated('team'), granted(10), reserved(6, 'bulk_other')]).when(reserve(5)).thenThrows('insufficient_credits', 'payment_required');
      // A retried reservation is not a second one.
      spec.given([orgCreated('team'), granted(10), reserved(6)]).when(reserve(6)).thenNothing();
    });

    it('what a job holds is not available to single sends until its rows settle', () => {
      const s = (events: OrganizationEvent[]) => fold(organizationDecider, events);
      expect(canAffordSignature(s([orgCreated('team'), granted(3), reserved(3)]), JAN)).toBe(false);
      expect(canAffordSignature(s([orgCreated('team'), granted(3), reserved(3), settledEv(1, 1)]), JAN)).toBe(true);
    });

    it('settles by the job\'s running total: rows refused at validation were never held, a repeat frees nothing twice, the last row ends the reservation', () => {
      // 10 rows, 2 refused at validation: 8 held. 5 rows done in all (2 of them the refused) = 3 held rows settled.
      spec.given([orgCreated('team'), granted(10), reserved(8)]).when(settle(5, 10)).then([settledEv(3, 3)]);
      spec.given([orgCreated('team'), granted(10), reserved(8), settledEv(3, 3)]).when(settle(5, 10)).thenNothing();
      spec.given([orgCreated('team'), granted(10), reserved(8), settledEv(3, 3)]).when(settle(10, 10)).then([settledEv(8, 5)]);
      const after = fold(organizationDecider, [orgCreated('team'), granted(10), reserved(8), settledEv(3, 3), settledEv(8, 5)]);
      expect(after).toMatchObject({ credits_reserved: 0, reservations: {} });
      spec.given([orgCreated('team'), granted(10)]).when(settle(10, 10)).thenNothing();
    });

    describe('a reservation no bulk send was started under (released by the worker\'s sweep)', () => {
      const at = (ms: number) => new Date(Date.parse(JAN) + ms).toISOString();
      const release = (now: string, reservation_id = JOB): OrganizationCommand => ({ type: 'ReleaseOrphanedReservation', reservation_id, now });
      const releasedEv = (released: number, now: string, reservation_id = JOB): OrganizationEvent => ({
        type: 'CreditReservationReleased',
        data: { reservation_id, released, reason: 'bulk_send_not_started', released_at: now },
      });
      const LATE = at(ORPHANED_RESERVATION_GRACE_MS);

      it('past the grace period, gives back all it holds with its own event and reason; the credits are free again', () => {
        spec.given([orgCreated('team'), granted(10), reserved(8)]).when(release(LATE)).then([releasedEv(8, LATE)]);
        const after = fold(organizationDecider, [orgCreated('team'), granted(10), reserved(8), reserved(2, 'bulk_other'), releasedEv(8, LATE)]);
        expect(after).toMatchObject({ credits_reserved: 2, reservations: { bulk_other: { count: 2, settled: 0, reserved_at: JAN } } });
        expect(after.reservations).not.toHaveProperty(JOB);
        // 10 credits, 2 still held by the other job: a job of 8 fits again.
        spec.given([orgCreated('team'), granted(10), reserved(8), reserved(2, 'bulk_other'), releasedEv(8, LATE)]).when({ type: 'ReserveCredits', reservation_id: 'bulk_next', count: 8, now: LATE }).then([
          { type: 'CreditsReserved', data: { reservation_id: 'bulk_next', count: 8, reserved_at: LATE } },
        ]);
      });

      it('gives back only what is still held (rows settled before are not released twice)', () => {
        spec.given([orgCreated('team'), granted(10), reserved(8), settledEv(3, 3)]).when(release(LATE)).then([releasedEv(5, LATE)]);
        expect(fold(organizationDecider, [orgCreated('team'), granted(10), reserved(8), settledEv(3, 3), releasedEv(5, LATE)])).toMatchObject({ credits_reserved: 0, reservations: {} });
      });

      it('is kept within the grace period: the job may still be on its way', () => {
        spec.given([orgCreated('team'), granted(10), reserved(8)]).when(release(at(ORPHANED_RESERVATION_GRACE_MS - 1))).thenNothing();
        spec.given([orgCreated('team'), granted(10), reserved(8)]).when(release(JAN)).thenNothing();
      });

      it('a repeat (a second sweep, another worker) releases nothing, nor does a reservation its job settled whole', () => {
        spec.given([orgCreated('team'), granted(10), reserved(8), releasedEv(8, LATE)]).when(release(at(ORPHANED_RESERVATION_GRACE_MS + 1))).thenNothing();
        spec.given([orgCreated('team'), granted(10), reserved(8), settledEv(8, 8)]).when(release(LATE)).thenNothing();
        spec.given([orgCreated('team'), granted(10)]).when(release(LATE)).thenNothing();
      });
    });
  });
});

