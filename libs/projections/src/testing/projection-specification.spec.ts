import { Write } from '@dojang/read-store';
import { Projection } from '../projection';
import { API_KEYS, ORGANIZATIONS, apiKeyProjection, organizationProjection } from '../organization.projection';
import { DOCUMENTS, documentProjection } from '../document.projection';
import { ProjectionSpecification, ProjectionSpecificationError } from './index';

const ORG = 'org_1';
const STREAM = `organization-${ORG}`;
const T0 = '2026-03-02T09:00:00.000Z';
const created = { type: 'OrganizationCreated', stream_id: STREAM, data: { organization_id: ORG, name: 'Acme', workspace_kind: 'personal', plan: 'business', created_at: T0 } };
const issued = { type: 'ApiKeyIssued', stream_id: STREAM, data: { key_id: 'key_1', mode: 'test', key_hash: 'h1', key_hint: 'abcd', issued_at: T0 } };
const revoked = { type: 'ApiKeyRevoked', stream_id: STREAM, data: { key_id: 'key_1', key_hash: 'h1', revoked_at: T0 } };

describe('built-in projections through the test kit', () => {
  it('organizations: a key issued shows on the organization without its hash', () => {
    ProjectionSpecification.for(organizationProjection)
      .given([created])
      .when([issued])
      .then((rows) => {
        expect(rows.get(ORGANIZATIONS, ORG)).toMatchObject({ id: ORG, name: 'Acme', keys: [{ key_id: 'key_1', mode: 'test', revoked: false }] });
        expect(JSON.stringify(rows.get(ORGANIZATIONS, ORG))).not.toContain('h1');
      });
  });

  it('api_keys: revoking marks the key row revoked', () => {
    ProjectionSpecification.for(apiKeyProjection)
      .given([created, issued])
      .when([revoked])
      .then((rows) => expect(rows.get(API_KEYS, 'h1')).toMatchObject({ key_id: 'key_1', organization_id: ORG, revoked: true }));
  });

  it('api_keys: issuing twice is issuing once', () => {
    ProjectionSpecification.for(apiKeyProjection).given([created]).when([issued], { times: 3 }).thenSameAsOnce();
  });

  it("documents: a participant's PIN hash never reaches the row, participants without one are kept as they are", () => {
    const DOC = '00000000-0000-4000-8000-000000000001';
    const stream = `document-${DOC}`;
    const participant = (id: string) => ({ id, name: id, phone: '01012345678', email: null, role: 'signer', signing_order: 1, auth: 'sms_pin' });
    ProjectionSpecification.for(documentProjection)
      .given([
        { type: 'DocumentCreated', stream_id: stream, data: { document_id: DOC, organization_id: ORG, livemode: false, title: '계약서', content_blob: null, content_format: 'html', file: null, author_name: 'Acme', metadata: {}, from_template: null, created_at: T0 } },
        { type: 'ParticipantAdded', stream_id: stream, data: { participant: participant('p1'), added_at: T0 } },
        { type: 'ParticipantAdded', stream_id: stream, data: { participant: participant('p2'), added_at: T0 } },
        { type: 'DocumentSent', stream_id: stream, data: { sent_at: T0, expires_at: null, message: null, page_count: 1, original_pdf: null, links: [{ participant_id: 'p1', token_hash: 't1' }, { participant_id: 'p2', token_hash: 't2' }] } },
      ])
      .when([{ type: 'PinIssued', stream_id: stream, data: { participant_id: 'p1', pin_hash: 'secret-hash', issued_at: T0, expires_at: T0, phone_masked: '010-****-5678' } }])
      .then((rows) => {
        const row = rows.get(DOCUMENTS, DOC) as unknown as { participants: Array<{ id: string; pin: { pin_hash: string; issued_at: string } | null }> };
        expect(row.participants.map((p) => [p.id, p.pin && p.pin.pin_hash, p.pin && p.pin.issued_at])).toEqual([
          ['p1', '', T0],
          ['p2', null, null],
        ]);
        expect(JSON.stringify(rows.all(DOCUMENTS))).not.toContain('secret-hash');
      });
  });

  it('ignores events a projection does not handle', () => {
    ProjectionSpecification.for(apiKeyProjection)
      .given([created])
      .then((rows) => expect(rows.all(API_KEYS)).toEqual([]));
  });
});

/**
 * A projection that is not idempotent under the runner: it counts into a row its `keys` do not
 * name, so the skip-if-seen check cannot see that the event was applied already.
 */
const COUNTS = 'counts';
const leakyCounter: Projection = {
  name: 'leaky',
  version: 1,
  collections: [{ name: COUNTS }],
  handles: new Set(['Tick']),
  keys: () => [],
  evolve: (_e, rows): Write[] => [{ op: 'put', collection: COUNTS, doc: { id: 'n', n: Number(rows(COUNTS, 'n')?.n ?? 0) + 1 } }],
};
const counter: Projection = { ...leakyCounter, name: 'counter', keys: () => [{ collection: COUNTS, id: 'n' }] };

describe('the kit checks idempotency by itself', () => {
  it('then fails, naming the row, when evolve reads a row keys did not name', () => {
    expect(() =>
      ProjectionSpecification.for(leakyCounter)
        .given([])
        .when([{ type: 'Tick' }])
        .then((rows) => expect(rows.get(COUNTS, 'n')).toMatchObject({ n: 1 })),
    ).toThrow(/projection leaky: evolve read row counts\/n for Tick \(position 1\), but keys\(event\) did not name it/);
  });

  it('thenSameAsOnce fails for the same projection', () => {
    expect(() => ProjectionSpecification.for(leakyCounter).given([]).when([{ type: 'Tick' }]).thenSameAsOnce()).toThrow(ProjectionSpecificationError);
  });

  it('fails on a write to a row keys did not name, even one evolve never read', () => {
    const blind: Projection = { ...counter, name: 'blind', evolve: (): Write[] => [{ op: 'put', collection: COUNTS, doc: { id: 'other', n: 1 } }] };
    expect(() => ProjectionSpecification.for(blind).given([]).when([{ type: 'Tick' }]).then(() => undefined)).toThrow(/evolve wrote row counts\/other .*keys\(event\) did not name it \(it named: counts\/n\)/);
    const deleter: Projection = { ...counter, name: 'deleter', evolve: (): Write[] => [{ op: 'delete', collection: COUNTS, id: 'other' }] };
    expect(() => ProjectionSpecification.for(deleter).given([]).when([{ type: 'Tick' }]).then(() => undefined)).toThrow(/evolve wrote row counts\/other/);
  });

  it('the rows evolve sees are only those of its own event, not those an earlier event of the spec loaded', () => {
    // Tock names row "n" and writes it; Tick names nothing but reads "n": in the runner's next
    // batch "n" is not loaded for Tick. A shared map would hand Tick Tock's row.
    const mixed: Projection = {
      ...counter,
      name: 'mixed',
      handles: new Set(['Tick', 'Tock']),
      keys: (e) => (e.type === 'Tock' ? [{ collection: COUNTS, id: 'n' }] : []),
      evolve: (e, rows): Write[] => (e.type === 'Tock' ? [{ op: 'put', collection: COUNTS, doc: { id: 'n', n: 1 } }] : rows(COUNTS, 'n') ? [] : []),
    };
    expect(() => ProjectionSpecification.for(mixed).given([{ type: 'Tock' }]).when([{ type: 'Tick' }]).then(() => undefined)).toThrow(/evolve read row counts\/n for Tick/);
  });

  it('passes once the row is named in keys (the runner skips the replay)', () => {
    ProjectionSpecification.for(counter)
      .given([{ type: 'Tick' }])
      .when([{ type: 'Tick' }, { type: 'Tick' }])
      .then((rows) => expect(rows.get(COUNTS, 'n')).toEqual({ id: 'n', n: 3 }));
  });

  it('upcasts like the runner: version 0 ParticipantAdded gets auth sms_pin', () => {
    const seen: unknown[] = [];
    const probe: Projection = {
      name: 'probe',
      version: 1,
      collections: [{ name: 'probe' }],
      handles: new Set(['ParticipantAdded']),
      keys: () => [{ collection: 'probe', id: 'p' }],
      evolve: (e) => {
        seen.push(e.data);
        return [{ op: 'put', collection: 'probe', doc: { id: 'p', auth: (e.data.participant as { auth: string }).auth } }];
      },
    };
    ProjectionSpecification.for(probe)
      .given([])
      .when([{ type: 'ParticipantAdded', data: { participant: { id: 'p1' } }, metadata: { schema_version: 0 } }])
      .then((rows) => expect(rows.get('probe', 'p')).toEqual({ id: 'p', auth: 'sms_pin' }));
  });
});
