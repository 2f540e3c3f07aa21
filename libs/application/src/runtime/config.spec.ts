import * as path from 'path';
import { loadConfig } from './config';

describe('loadConfig: PAdES level and signing key', () => {
  it('makes final PDFs B-B without a TSA and B-LTA with one unless PADES_LEVEL says otherwise', () => {
    expect(loadConfig({}).padesLevel).toBe('B-B');
    expect(loadConfig({ TSA_URL: 'http://tsa.test/' }).padesLevel).toBe('B-LTA');
    expect(loadConfig({ TSA_URL: 'http://tsa.test/', PADES_LEVEL: 'b-lt' }).padesLevel).toBe('B-LT');
    expect(loadConfig({ TSA_URL: 'http://tsa.test/', PADES_LEVEL: 'B-T' }).padesLevel).toBe('B-T');
    expect(() => loadConfig({ TSA_URL: 'http://tsa.test/', PADES_LEVEL: 'B-LTX' })).toThrow('PADES_LEVEL=B-LTX: expected B-T, B-LT or B-LTA (with TSA_URL)');
  });

  it('reads configured revocation sources as http(s) URL lists and refuses anything else at boot, naming the variable', () => {
    expect(loadConfig({}).revocationSources).toEqual({ ocsp: [], crl: [] });
    expect(loadConfig({ REVOCATION_OCSP_URLS: 'http://ocsp.ca.test/, https://ocsp2.ca.test/', REVOCATION_CRL_URLS: 'http://crl.ca.test/ca.crl' }).revocationSources).toEqual({
      ocsp: ['http://ocsp.ca.test/', 'https://ocsp2.ca.test/'],
      crl: ['http://crl.ca.test/ca.crl'],
    });
    expect(() => loadConfig({ REVOCATION_CRL_URLS: 'ldap://ca.test/cn=crl' })).toThrow('REVOCATION_CRL_URLS: "ldap://ca.test/cn=crl" is not an http(s) URL');
    expect(() => loadConfig({ REVOCATION_OCSP_URLS: 'not a url' })).toThrow('REVOCATION_OCSP_URLS: "not a url" is not an http(s) URL');
  });

  it('reads a PKCS#11 key (PIN from a file) and names the first missing setting', () => {
    expect(loadConfig({}).signingKey).toBeNull();
    expect(
      loadConfig({
        SIGNING_KEY: 'pkcs11',
        SIGNING_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so',
        SIGNING_PKCS11_TOKEN_LABEL: 'dojang',
        SIGNING_PKCS11_PIN_FILE: '/run/secrets/pin',
        SIGNING_CERTIFICATE: 'chain.pem',
      }).signingKey,
    ).toEqual({ kind: 'pkcs11', module: '/usr/lib/softhsm/libsofthsm2.so', slot: null, tokenLabel: 'dojang', keyLabel: null, pinFile: '/run/secrets/pin', certificateFile: path.resolve('chain.pem') });
    expect(() => loadConfig({ SIGNING_KEY: 'pkcs11', SIGNING_PKCS11_MODULE: 'm.so', SIGNING_PKCS11_SLOT: '0', SIGNING_CERTIFICATE: 'c.pem' })).toThrow('SIGNING_PKCS11_PIN_FILE is required with SIGNING_KEY=pkcs11');
    expect(() => loadConfig({ SIGNING_KEY: 'pkcs11', SIGNING_PKCS11_MODULE: 'm.so' })).toThrow('SIGNING_PKCS11_TOKEN_LABEL or SIGNING_PKCS11_SLOT is required with SIGNING_KEY=pkcs11');
    expect(() => loadConfig({ SIGNING_KEY: 'remote', SIGNING_REMOTE_URL: 'https://kms.test/sign' })).toThrow('SIGNING_REMOTE_KEY_ID is required with SIGNING_KEY=remote');
    expect(() => loadConfig({ SIGNING_KEY: 'vault' })).toThrow('SIGNING_KEY=vault: expected file, pkcs11 or remote');
  });
});

describe('loadConfig: the verify trust list', () => {
  it('is null without VERIFY_TRUST_ANCHORS (every signature then says "untrusted issuer")', () => {
    expect(loadConfig({}).verifyTrustAnchors).toBeNull();
    expect(loadConfig({ VERIFY_TRUST_ANCHORS: '  ' }).verifyTrustAnchors).toBeNull();
  });
});
