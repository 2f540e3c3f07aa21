import { KeyRole, ORGANIZATION_EVENT_TYPES, OrganizationEvent, OrganizationState, evolveOrganization, initialOrganizationState } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowLookup } from './projection';

export const ORGANIZATIONS = 'organizations';
export const API_KEYS = 'api_keys';

export type OrganizationRow = ReadDoc & Omit<OrganizationState, 'keys'> & { keys: Array<{ key_id: string; mode: string; key_hint: string; revoked: boolean }> };

export interface ApiKeyRow extends ReadDoc {
  /** id = SHA-256 of the secret key, so authentication is one indexed lookup. */
  key_id: string;
  key_hash: string;
  organization_id: string;
  mode: 'test' | 'live';
  /** Missing on rows projected before keys had roles: read as `full`. */
  role?: KeyRole;
  revoked: boolean;
}

const orgIdOf = (event: StoredEvent) => event.stream_id.slice('organization-'.length);

export const organizationProjection: Projection = {
  name: 'organizations',
  // 2: rows rebuilt once so certificate names recorded mis-decoded read through the upcaster.
  version: 2,
  // credits_reserved: the worker's reservation sweep looks only at organizations holding some.
  collections: [{ name: ORGANIZATIONS, indexes: [['credits_reserved']] }],
  handles: new Set(ORGANIZATION_EVENT_TYPES),
  keys: (event) => [{ collection: ORGANIZATIONS, id: orgIdOf(event) }],
  evolve(event: StoredEvent, rows: RowLookup): Write[] {
    const id = orgIdOf(event);
    const current = (rows(ORGANIZATIONS, id) as unknown as OrganizationState | null) ?? initialOrganizationState();
    // The row keeps no key hashes: those live only in api_keys, which nothing lists.
    const withHashes = { ...current, keys: (current.keys ?? []).map((k) => ({ ...k, key_hash: '' })) } as OrganizationState;
    const next = evolveOrganization(withHashes, event as unknown as OrganizationEvent);
    const row: OrganizationRow = { ...next, id, keys: next.keys.map(({ key_hash: _h, ...k }) => k) };
    return [{ op: 'put', collection: ORGANIZATIONS, doc: row }];
  },
};

export const apiKeyProjection: Projection = {
  name: 'api_keys',
  collections: [{ name: API_KEYS, indexes: [['key_id']] }],
  handles: new Set(['ApiKeyIssued', 'ApiKeyRevoked']),
  keys(event) {
    return [{ collection: API_KEYS, id: String(event.data.key_hash) }];
  },
  evolve(event: StoredEvent, rows: RowLookup): Write[] {
    if (event.type === 'ApiKeyIssued') {
      const d = event.data as { key_id: string; key_hash: string; mode: 'test' | 'live'; role?: KeyRole };
      const row: ApiKeyRow = {
        id: d.key_hash,
        key_id: d.key_id,
        key_hash: d.key_hash,
        organization_id: orgIdOf(event),
        mode: d.mode,
        role: d.role ?? 'full',
        revoked: false,
      };
      return [{ op: 'put', collection: API_KEYS, doc: row }];
    }
    const current = rows(API_KEYS, String(event.data.key_hash)) as ApiKeyRow | null;
    return current ? [{ op: 'put', collection: API_KEYS, doc: { ...current, revoked: true } }] : [];
  },
};
