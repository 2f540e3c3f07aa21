import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { readSignedData } from './cades-cms';
// Relative, as the verify job reads signatures: the same judge signs and verifies (revocation.ts).
import { judgeCrl, judgeOcsp, judgeRevocation, RevocationVerdict, sha256Fingerprint, subjectOf, validityProblem } from '../../verifier/src/revocation';

export { judgeCrl, judgeOcsp, judgeRevocation, type RevocationVerdict };

/**
 * What a certificate needs before Dojang signs or timestamps with it: its chain valid now and,
 * when a certificate names revocation sources (Authority Information Access OCSP, CRL
 * distribution points), an answer from one of them that it is not revoked, judged by the
 * verifier's own rules (libs/verifier/src/revocation.ts). A revoked, expired or not yet valid
 * certificate is a SigningCertificateInvalidError (503 `signing_certificate_invalid`: no
 * signature is made, nothing recorded); no usable answer is an LtvError (503
 * `signing_unavailable`): a response that is malformed, stale, about another certificate or signed
 * by the wrong key counts as no answer, never as good.
 */

/** The key would sign, or a TSA would stamp, with a certificate that is revoked or outside its validity. */
export class SigningCertificateInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningCertificateInvalidError';
  }
}

/** Revocation data or a timestamp cannot be had (a responder away, only unusable answers). */
export class LtvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LtvError';
  }
}

const OID_AIA = '1.3.6.1.5.5.7.1.1';
const OID_AD_OCSP = '1.3.6.1.5.5.7.48.1';
const OID_CRL_DP = '2.5.29.31';
const OID_SHA1 = '1.3.14.3.2.26';

const toArrayBuffer = (b: Uint8Array): ArrayBuffer => new Uint8Array(b).buffer as ArrayBuffer;
const sha1 = (b: Uint8Array) => createHash('sha1').update(b).digest();

function extensionOf(cert: pkijs.Certificate, oid: string): pkijs.Extension | undefined {
  return cert.extensions?.find((e) => e.extnID === oid);
}

export function ocspUrls(cert: pkijs.Certificate): string[] {
  const aia = extensionOf(cert, OID_AIA)?.parsedValue as pkijs.InfoAccess | undefined;
  return (aia?.accessDescriptions ?? [])
    .filter((d) => d.accessMethod === OID_AD_OCSP && d.accessLocation.type === 6)
    .map((d) => String(d.accessLocation.value));
}

export function crlUrls(cert: pkijs.Certificate): string[] {
  const dps = extensionOf(cert, OID_CRL_DP)?.parsedValue as pkijs.CRLDistributionPoints | undefined;
  const out: string[] = [];
  for (const dp of dps?.distributionPoints ?? []) {
    const names = Array.isArray(dp.distributionPoint) ? dp.distributionPoint : [];
    for (const name of names) if (name.type === 6) out.push(String(name.value));
  }
  return out;
}

export const httpUrl = (url: string) => /^https?:\/\//i.test(url);

export function isSelfSigned(der: Buffer): boolean {
  const x = new X509Certificate(der);
  return x.subject === x.issuer && x.verify(x.publicKey);
}

/** The issuer of `cert` among `pool`: the one whose subject is its issuer and whose key verifies it. */
export function issuerOf(cert: Buffer, pool: Buffer[]): Buffer | undefined {
  const x = new X509Certificate(cert);
  return pool.find((candidate) => {
    if (candidate.equals(cert)) return false;
    const issuer = new X509Certificate(candidate);
    return issuer.subject === x.issuer && x.checkIssued(issuer) && x.verify(issuer.publicKey);
  });
}

export function ocspRequest(cert: pkijs.Certificate, issuer: pkijs.Certificate): Buffer {
  const certId = new pkijs.CertID({
    hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA1, algorithmParams: new asn1js.Null() }),
    issuerNameHash: new asn1js.OctetString({ valueHex: toArrayBuffer(sha1(new Uint8Array(issuer.subject.toSchema().toBER()))) }),
    issuerKeyHash: new asn1js.OctetString({ valueHex: toArrayBuffer(sha1(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)) }),
    serialNumber: cert.serialNumber,
  });
  const request = new pkijs.OCSPRequest();
  request.tbsRequest.requestList = [new pkijs.Request({ reqCert: certId })];
  return Buffer.from(request.toSchema(true).toBER());
}

async function post(url: string, body: Buffer, type: string, timeoutMs: number): Promise<Buffer> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': type }, body: new Uint8Array(body), signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

async function get(url: string, timeoutMs: number): Promise<Buffer> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

export interface RevocationAnswer {
  /** The verdict, judged at `at`. */
  verdict: RevocationVerdict;
  /** The response or list the verdict rests on (to embed in a DSS), when there is one. */
  ocsp?: Buffer;
  crl?: Buffer;
}

/**
 * Answers already had within one piece of work (a final PDF: the check before signing, the TSA at
 * the signature timestamp, the DSS, the TSA at the document timestamp ask about the same two
 * certificates): each certificate is asked once per job, never across jobs, so a revocation is
 * seen by the next signature.
 */
const jobAnswers = new AsyncLocalStorage<{ answers: Map<string, Promise<RevocationAnswer | null>>; sources: RevocationSources }>();

/**
 * Revocation sources the operator configured (REVOCATION_OCSP_URLS, REVOCATION_CRL_URLS): asked
 * for every certificate checked, after the ones it names itself. A certificate that names none
 * (an organization's key from a CA that leaves AIA/CDP out, an internal chain) is then checked
 * too, and fails closed like any other: no usable answer from any source is 503, never "good".
 */
export interface RevocationSources {
  ocsp: string[];
  crl: string[];
}

const NO_SOURCES: RevocationSources = { ocsp: [], crl: [] };

/** Runs `work` with its own memo of revocation answers (see jobAnswers) and the configured sources. */
export function withRevocationMemo<T>(work: () => Promise<T>, sources: RevocationSources = NO_SOURCES): Promise<T> {
  return jobAnswers.run({ answers: new Map(), sources }, work);
}

/**
 * Asks the sources `cert` names and the configured ones, OCSP first then CRLs, and judges each
 * answer at `at`: the first that proves revoked or good decides; answers that are unusable are
 * skipped with their reason. Null when there is no source at all (a trust anchor, a generated
 * self-signed key, and no sources configured).
 */
export function fetchRevocation(der: Buffer, issuerDer: Buffer | undefined, at: Date, timeoutMs: number): Promise<RevocationAnswer | null> {
  const job = jobAnswers.getStore();
  if (!job) return askRevocation(der, issuerDer, at, timeoutMs, NO_SOURCES);
  const key = `${createHash('sha256').update(der).digest('hex')}:${issuerDer ? createHash('sha256').update(issuerDer).digest('hex') : '-'}`;
  let answer = job.answers.get(key);
  if (!answer) {
    answer = askRevocation(der, issuerDer, at, timeoutMs, job.sources);
    job.answers.set(key, answer);
  }
  return answer;
}

const unique = (urls: string[]) => [...new Set(urls)];

async function askRevocation(der: Buffer, issuerDer: Buffer | undefined, at: Date, timeoutMs: number, sources: RevocationSources): Promise<RevocationAnswer | null> {
  const cert = pkijs.Certificate.fromBER(toArrayBuffer(der));
  // The certificate's own sources first; then the configured ones (see RevocationSources).
  const oUrls = unique([...ocspUrls(cert), ...sources.ocsp].filter(httpUrl));
  const cUrls = unique([...crlUrls(cert), ...sources.crl].filter(httpUrl));
  if (!oUrls.length && !cUrls.length) return null;
  if (!issuerDer) return { verdict: { status: 'unknown', detail: 'its issuer certificate is not in the chain, so its OCSP and CRL answers cannot be checked' } };
  const issuer = pkijs.Certificate.fromBER(toArrayBuffer(issuerDer));
  const failures: string[] = [];
  for (const url of oUrls) {
    try {
      const response = await post(url, ocspRequest(cert, issuer), 'application/ocsp-request', timeoutMs);
      const verdict = judgeOcsp(response, der, issuerDer, at, { now: at });
      if (verdict.status !== 'unknown') return { verdict, ocsp: response };
      failures.push(`OCSP ${url}: ${verdict.detail}`);
    } catch (error) {
      failures.push(`OCSP ${url}: ${(error as Error).message}`);
    }
  }
  for (const url of cUrls) {
    try {
      const list = await get(url, timeoutMs);
      const verdict = judgeCrl(list, der, issuerDer, at, { now: at });
      if (verdict.status !== 'unknown') return { verdict, crl: list };
      failures.push(`CRL ${url}: ${verdict.detail}`);
    } catch (error) {
      failures.push(`CRL ${url}: ${(error as Error).message}`);
    }
  }
  return { verdict: { status: 'unknown', detail: failures.join('; ') } };
}

export interface CertificateCheckOptions {
  /** What the certificate is for, in messages: "signing", "TSA". */
  role: string;
  at?: Date;
  timeoutMs?: number;
}

const named = (der: Buffer) => `${subjectOf(der)} (SHA-256 ${sha256Fingerprint(der)})`;

/**
 * Checks `chain` (the certificate that will sign first, then its issuers as configured or carried)
 * before it signs: every certificate valid at `at`, and every one that names revocation sources
 * not revoked. Throws SigningCertificateInvalidError or LtvError as described above.
 */
export async function checkCertificateChain(chain: Buffer[], options: CertificateCheckOptions): Promise<void> {
  const at = options.at ?? new Date();
  const timeoutMs = options.timeoutMs ?? 15_000;
  const [leaf] = chain;
  if (!leaf) throw new SigningCertificateInvalidError(`the ${options.role} certificate is missing`);
  for (const der of chain) {
    const problem = validityProblem(der, at);
    if (problem) throw new SigningCertificateInvalidError(`the ${options.role} certificate${der === leaf ? '' : "'s chain"} ${named(der)} is ${problem}`);
  }
  for (const der of chain) {
    if (isSelfSigned(der)) continue;
    const answer = await fetchRevocation(der, issuerOf(der, chain), at, timeoutMs);
    if (!answer) continue;
    const what = `the ${options.role} certificate${der === leaf ? '' : "'s chain"} ${named(der)}`;
    if (answer.verdict.status === 'revoked') throw new SigningCertificateInvalidError(`${what} is revoked: ${answer.verdict.detail}`);
    if (answer.verdict.status === 'unknown') throw new LtvError(`no usable revocation data for ${what}: ${answer.verdict.detail}`);
  }
}

/**
 * The TSA's certificate that signed `token` (and the chain the token carries), checked as a
 * signing certificate is: a token from a revoked or expired TSA certificate proves no time.
 */
export async function checkTimestampAuthority(token: Buffer, options: Omit<CertificateCheckOptions, 'role'> = {}): Promise<void> {
  const signedData = readSignedData(token);
  const carried = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid = signedData.signerInfos[0]?.sid;
  const signer = carried.find((c) => sid instanceof pkijs.IssuerAndSerialNumber && c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer));
  if (!signer) throw new LtvError('the timestamp token does not carry its TSA certificate, so it cannot be checked');
  const ders: Buffer[] = carried.map((c) => Buffer.from(c.toSchema().toBER()));
  const leaf: Buffer = Buffer.from(signer.toSchema().toBER());
  // Leaf first, then its issuers up the carried chain (other certificates in the token are not its chain).
  const chain: Buffer[] = [leaf];
  for (let issuer: Buffer | undefined = issuerOf(leaf, ders); issuer && !chain.some((c) => c.equals(issuer!)); issuer = issuerOf(issuer, ders)) chain.push(issuer);
  await checkCertificateChain(chain, { ...options, role: 'TSA' });
}
