import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSignedData, CmsSigner, OID, readSignedData, sha256, timestampTokenAttribute } from './cades-cms';
import { loadOrCreateSigningIdentity, signerFromP12 } from './signing-identity';
import { opensslCmsVerify } from './testing/openssl';
import { pkijsSignedData } from './testing/pkijs-signed-data';

describe('buildSignedData (DER written directly)', () => {
  const dirs: string[] = [];
  let signer: CmsSigner;
  let other: CmsSigner;

  beforeAll(async () => {
    const open = async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dojang-cms-'));
      dirs.push(dir);
      const identity = await loadOrCreateSigningIdentity({ dataDir: dir });
      return signerFromP12(identity.p12, identity.passphrase);
    };
    signer = await open();
    other = await open();
  });
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const content = Buffer.from('%PDF-1.7 signed byte ranges');

  it('writes the very bytes pkijs wrote for a detached PAdES signature, and OpenSSL verifies them', async () => {
    const input = { signer, contentDigest: sha256(content) };
    const der = await buildSignedData(input);
    expect(der.equals(await pkijsSignedData(input))).toBe(true);
    expect(opensslCmsVerify(der, content).ok).toBe(true);
  });

  it('matches pkijs with embedded content over 64 KiB (a TSTInfo), a certificate chain and unsigned attributes', async () => {
    const tstInfo = Buffer.alloc(70_000, 7);
    const withChain: CmsSigner = { ...signer, chain: [signer.certificate, other.certificate] };
    const token = await buildSignedData({ signer: other, contentDigest: sha256(tstInfo), contentType: OID.tstInfo, content: tstInfo });
    const input = {
      signer: withChain,
      contentDigest: sha256(content),
      unsignedAttributes: async () => [timestampTokenAttribute(token)],
    };
    const der = await buildSignedData(input);
    expect(der.equals(await pkijsSignedData(input))).toBe(true);
    const parsed = readSignedData(der);
    expect(parsed.certificates).toHaveLength(2);
    expect(parsed.signerInfos[0].unsignedAttrs?.attributes.map((a) => a.type)).toEqual([OID.signatureTimeStampToken]);
    expect((await buildSignedData({ signer: other, contentDigest: sha256(tstInfo), contentType: OID.tstInfo, content: tstInfo })).equals(
      await pkijsSignedData({ signer: other, contentDigest: sha256(tstInfo), contentType: OID.tstInfo, content: tstInfo }),
    )).toBe(true);
  });
});
