import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { logoOf, MAX_LOGO_SIDE, organizationDecider } from './organization.decider';
import { OrganizationEvent, OrganizationLogo } from './organization.events';

const spec = DeciderSpecification.for(organizationDecider);
const T0 = '2026-01-10T09:00:00.000Z';
const T1 = '2026-01-20T09:00:00.000Z';
const created: OrganizationEvent = {
  type: 'OrganizationCreated',
  data: { organization_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', name: 'Acme Corp', workspace_kind: 'team', plan: 'business', created_at: T0 },
};
const LOGO: OrganizationLogo = { sha256: 'ab'.repeat(32), content_type: 'image/png', byte_size: 2048, width: 320, height: 80 };

describe('organization logo', () => {
  it('records an uploaded logo; without one there is none', () => {
    expect(logoOf(spec.given([created]).when({ type: 'ChangeLogo', logo: null, now: T1 }).then([]))).toBeNull();
    const state = spec.given([created]).when({ type: 'ChangeLogo', logo: LOGO, now: T1 }).then([{ type: 'OrganizationLogoChanged', data: { logo: LOGO, changed_at: T1 } }]);
    expect(logoOf(state)).toEqual(LOGO);
  });

  it('replaces a logo, and the same one again changes nothing', () => {
    const had: OrganizationEvent = { type: 'OrganizationLogoChanged', data: { logo: LOGO, changed_at: T0 } };
    spec.given([created, had]).when({ type: 'ChangeLogo', logo: { ...LOGO }, now: T1 }).then([]);
    const other = { ...LOGO, sha256: 'cd'.repeat(32), content_type: 'image/jpeg' as const };
    spec.given([created, had]).when({ type: 'ChangeLogo', logo: other, now: T1 }).then([{ type: 'OrganizationLogoChanged', data: { logo: other, changed_at: T1 } }]);
  });

  it('removes the logo (null), and removing none changes nothing', () => {
    const had: OrganizationEvent = { type: 'OrganizationLogoChanged', data: { logo: LOGO, changed_at: T0 } };
    const state = spec.given([created, had]).when({ type: 'ChangeLogo', logo: null, now: T1 }).then([{ type: 'OrganizationLogoChanged', data: { logo: null, changed_at: T1 } }]);
    expect(logoOf(state)).toBeNull();
  });

  it.each([
    ['a hash that is not SHA-256 hex', { ...LOGO, sha256: 'xyz' }],
    ['an SVG', { ...LOGO, content_type: 'image/svg+xml' as never }],
    ['no bytes', { ...LOGO, byte_size: 0 }],
    ['too many pixels across', { ...LOGO, width: MAX_LOGO_SIDE + 1 }],
    ['no height', { ...LOGO, height: 0 }],
  ])('refuses %s, naming the file', (_what, logo) => {
    spec.given([created]).when({ type: 'ChangeLogo', logo, now: T1 }).thenThrows('invalid_parameter', { kind: 'invalid', param: 'file' });
  });
});
