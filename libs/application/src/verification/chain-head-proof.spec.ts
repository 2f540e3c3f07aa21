import { createPublicKey, generateKeyPairSync, sign, verify } from 'crypto';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { evidenceKeyOf, loadOrCreateSigningIdentity } from '@dojang/evidence';
import { ChainHeadStatement, chainHeadSignatureValid, EvidenceKey, signChainHead, signWithEvidenceKey } from './chain-head-proof';

const dirs: string[] = [];
async function key(): Promise<EvidenceKey> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dojang-proof-'));
  dirs.push(dataDir);
  return evidenceKeyOf(await loadOrCreateSigningIdentity({ dataDir }));
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const statement: ChainHeadStatement = {
  document_id: '3f1c2b9e-8c1a-4f7e-9a51-2d7c6e0b1a42',
  head: { revision: 6, hash: 'a'.repeat(64), event_count: 7, completed_event_count: 9 },
  signer: { participant_id: 'p-1', signature_sha256: 'e'.repeat(64), seal_sha256: null, ip: '203.0.113.7', user_agent: 'jest' },
  original_sha256: 'b'.repeat(64),
  final_pdf_sha256: 'c'.repeat(64),
};

describe('chain head proof', () => {
  let signer: EvidenceKey;
  let stranger: EvidenceKey;
  beforeAll(async () => {
    [signer, stranger] = await Promise.all([key(), key()]);
  });

  it('verifies with the certificate of the key that signed it', () => {
    const proof = signChainHead(statement, signer);
    expect(proof).toMatchObject({ ...statement.head, algorithm: 'RSA-SHA256' });
    expect(chainHeadSignatureValid(statement, proof, signer.certificate)).toBe(true);
  });

  it('fails for any changed fact, and for another certificate', () => {
    const proof = signChainHead(statement, signer);
    expect(chainHeadSignatureValid({ ...statement, head: { ...statement.head, hash: 'd'.repeat(64) } }, proof, signer.certificate)).toBe(false);
    expect(chainHeadSignatureValid({ ...statement, head: { ...statement.head, completed_event_count: 8 } }, proof, signer.certificate)).toBe(false);
    expect(chainHeadSignatureValid({ ...statement, original_sha256: null }, proof, signer.certificate)).toBe(false);
    expect(chainHeadSignatureValid({ ...statement, signer: { ...statement.signer, ip: '198.51.100.1' } }, proof, signer.certificate)).toBe(false);
    expect(chainHeadSignatureValid({ ...statement, document_id: 'other' }, proof, signer.certificate)).toBe(false);
    expect(chainHeadSignatureValid(statement, proof, stranger.certificate)).toBe(false);
    // A stranger's proof naming the right certificate does not verify either.
    const forged = { ...signChainHead(statement, stranger), certificate_sha256: proof.certificate_sha256 };
    expect(chainHeadSignatureValid(statement, forged, signer.certificate)).toBe(false);
  });
});

describe('signWithEvidenceKey', () => {
  /** CPU time of the calling (main) thread, from Linux's schedstat (the project runs on Linux), in ms. */
  const mainThreadCpuMs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

  it('signs on libuv’s thread pool, not on the event loop: the calling thread spends a fraction of what signing costs', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 4096 });
    const evidenceKey: EvidenceKey = { privateKey, certificate: Buffer.alloc(0) };
    const data = Buffer.from('the statement');
    const n = 40;
    // What the same signatures cost when made on the calling thread.
    const before = mainThreadCpuMs();
    for (let i = 0; i < n; i++) sign('sha256', data, privateKey);
    const onThread = mainThreadCpuMs() - before;

    const start = mainThreadCpuMs();
    const signatures = await Promise.all(Array.from({ length: n }, () => signWithEvidenceKey(evidenceKey, data)));
    const offThread = mainThreadCpuMs() - start;

    for (const s of signatures) expect(verify('sha256', data, createPublicKey(privateKey), s)).toBe(true);
    // CPU time, not wall time: a busy machine slows both alike.
    expect(offThread).toBeLessThan(onThread / 4);
  });
});
