import { organizationDecider, OrganizationCommand, OrganizationState, signingCertificateValidityAt } from './organization.decider';
import { OrganizationEvent, OrganizationSigningCertificate } from './organization.events';

const NOW = '2026-11-27T01:00:00.000Z';
const certificate: OrganizationSigningCertificate = {
  subject: 'CN=Acme HR Document Signing, O=Acme HR',
  issuer: 'CN=Acme Root',
  not_before: '2026-01-01T00:00:00.000Z',
  not_after: '2027-01-01T00:00:00.000Z',
  serial_number: '1000',
  sha256_fingerprint: 'a'.repeat(64),
  chain_pem: ['-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n'],
};

function run(commands: OrganizationCommand[]): { state: OrganizationState; events: OrganizationEvent[] } {
  let state = organizationDecider.initialState();
  const events: OrganizationEvent[] = [];
  for (const c of [{ type: 'CreateOrganization', organization_id: 'org_1', name: 'Acme', workspace_kind: 'team', plan: 'business', now: NOW } as OrganizationCommand, ...commands]) {
    const out = organizationDecider.decide(c, state);
    events.push(...out);
    state = out.reduce(organizationDecider.evolve, state);
  }
  return { state, events };
}

/** An organization's own signing certificate on its stream: the certificate and a pointer to its encrypted key, never the key. */
describe('organization signing certificate', () => {
  it('records an upload and a removal with the fingerprint that stopped signing; removing none records nothing', () => {
    const { state, events } = run([
      { type: 'UploadSigningCertificate', certificate, key_blob: 'b'.repeat(64), now: NOW },
      { type: 'RemoveSigningCertificate', now: NOW },
      { type: 'RemoveSigningCertificate', now: NOW },
    ]);
    expect(events.slice(1)).toEqual([
      { type: 'SigningCertificateUploaded', data: { certificate, key_blob: 'b'.repeat(64), uploaded_at: NOW } },
      { type: 'SigningCertificateRemoved', data: { sha256_fingerprint: 'a'.repeat(64), removed_at: NOW } },
    ]);
    expect(state.signing_certificate).toBeNull();
  });

  it('keeps the current certificate in the state, a new upload replacing the last', () => {
    const second = { ...certificate, sha256_fingerprint: 'c'.repeat(64) };
    const { state } = run([
      { type: 'UploadSigningCertificate', certificate, key_blob: 'b'.repeat(64), now: NOW },
      { type: 'UploadSigningCertificate', certificate: second, key_blob: 'd'.repeat(64), now: NOW },
    ]);
    expect(state.signing_certificate).toEqual({ ...second, key_blob: 'd'.repeat(64), uploaded_at: NOW });
  });

  it('refuses a certificate not valid now, or without a fingerprint or key blob', () => {
    expect(() => run([{ type: 'UploadSigningCertificate', certificate: { ...certificate, not_after: '2026-06-01T00:00:00.000Z' }, key_blob: 'b'.repeat(64), now: NOW }])).toThrow(/not valid now/);
    expect(() => run([{ type: 'UploadSigningCertificate', certificate: { ...certificate, sha256_fingerprint: 'nope' }, key_blob: 'b'.repeat(64), now: NOW }])).toThrow(/fingerprint/);
    expect(() => run([{ type: 'UploadSigningCertificate', certificate, key_blob: 'x', now: NOW }])).toThrow(/key_blob/);
  });

  it('a certificate signs only within its validity, both ends included', () => {
    expect(signingCertificateValidityAt(certificate, '2025-12-31T23:59:59.999Z')).toBe('not_yet_valid');
    expect(signingCertificateValidityAt(certificate, certificate.not_before)).toBe('valid');
    expect(signingCertificateValidityAt(certificate, new Date(certificate.not_after))).toBe('valid');
    expect(signingCertificateValidityAt(certificate, '2027-01-01T00:00:00.001Z')).toBe('expired');
  });
});
