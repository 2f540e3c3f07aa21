import { createHash, verify, X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { issuedBy, judgeRevocation, sha256Fingerprint, subjectOf, validityProblem } from './revocation';

const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const HASHES: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** Who signed, as the signature proves it: printed on success so a look-alike certificate shows. */
export interface SignerStanding {
  subject: string;
  sha256: string;
  /** The chain from the signer up, as the file carries it (signature and DSS): subject and SHA-256 each. */
  chain: Array<{ subject: string; sha256: string }>;
  /** The signature timestamp's time (the TSA's), or null when the time is only claimed (B-B). */
  proven_at: string | null;
  /** What the embedded revocation data says about the signer at that time. */
  revocation: string;
  /** `trusted` (the chain reaches an anchor given), `untrusted issuer` (none given), or why not. */
  trust: string;
  /** The chain reaches a trust anchor given: false with none given, so trust is never implied. */
  trusted: boolean;
}

export type PadesResult =
  | { ok: true; detail: string; signer?: SignerStanding }
  /** `standing_problem`: the bytes verify, but the signer's standing fails (revoked, expired, revocation unknown, untrusted). */
  | { ok: false; detail: string; signer?: SignerStanding; standing_problem?: string };

export interface PadesOptions {
  /** Trust anchors (DER): the signer's chain must reach one. None: "untrusted issuer" is said, not failed. */
  trustAnchors?: Buffer[];
  /** The whole file when `pdf` is one revision of it: its DSS (added later) holds the revocation data. */
  wholeFile?: Buffer;
}

/** DER certificates from a PEM file, in order. */
export function pemCertificates(pem: string): Buffer[] {
  const out: Buffer[] = [];
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)) {
    out.push(Buffer.from(m[1].replace(/\s+/g, ''), 'base64'));
  }
  return out;
}

/**
 * Trust anchors (`--trust FILE` of dojang-verify and `cli verify`) from a file's bytes: PEM with
 * one or more certificates, or one DER certificate. Each must parse as a certificate, so a wrong
 * file is said at once, not later as "untrusted issuer"; throws with the reason.
 */
export function readTrustAnchors(bytes: Buffer): Buffer[] {
  const text = bytes.toString('latin1');
  const anchors = text.includes('-----BEGIN CERTIFICATE-----') ? pemCertificates(text) : [bytes];
  for (const a of anchors) new X509Certificate(a);
  if (!anchors.length) throw new Error('no certificate in it');
  return anchors;
}

const toArrayBuffer = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/**
 * The last PAdES signature of a PDF (the final PDF is signed once, as the last step): its /ByteRange
 * must cover the whole file but the /Contents hole (or, at B-LT/B-LTA, its revision, every later one
 * holding only validation data and document timestamps, the newest covering the whole file), the CMS's message digest must be the hash of
 * those bytes, the signed attributes must verify with `certificate`'s key, and the CMS must name
 * that certificate as its signer.
 */
export function verifyPades(pdf: Buffer, certificate: Buffer, options: PadesOptions = {}): PadesResult {
  const signatures = signatureDictionaries(pdf);
  if (!signatures.length) return { ok: false, detail: 'no /ByteRange: the PDF carries no signature' };
  // B-LT / B-LTA: DSS and document timestamps follow the PAdES signature in later revisions.
  let lastSignature = signatures.length - 1;
  while (lastSignature > 0 && signatures[lastSignature].subFilter === DOCUMENT_TIMESTAMP) lastSignature--;
  const sig = signatures[lastSignature];
  if (sig.subFilter === DOCUMENT_TIMESTAMP) return { ok: false, detail: 'the PDF holds document timestamps but no PAdES signature' };
  const [a, b, c, d] = sig.range;
  const revisionEnd = lastSignature === signatures.length - 1 ? pdf.length : c + d;
  if (a !== 0 || c + d !== revisionEnd || b > c) {
    return { ok: false, detail: `/ByteRange [${a} ${b} ${c} ${d}] does not cover the whole file (${pdf.length} bytes)` };
  }
  if (revisionEnd !== pdf.length) {
    const problem = ltvUpdatesProblem(pdf, revisionEnd, signatures.slice(lastSignature + 1));
    if (problem) return { ok: false, detail: problem };
  }
  const text = pdf.toString('latin1');
  const hole = text.slice(b, c);
  const hex = /^<([0-9A-Fa-f]*)>$/.exec(hole);
  if (!hex) return { ok: false, detail: 'the /Contents hole holds no hex string' };
  const signed = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);

  let signedData: pkijs.SignedData;
  try {
    const der = Buffer.from(hex[1], 'hex');
    // The hole is zero-padded past the CMS; BER decoding stops at the end of the first value.
    const parsed = asn1js.fromBER(toArrayBuffer(der));
    if (parsed.offset === -1) throw new Error(parsed.result.error);
    const info = new pkijs.ContentInfo({ schema: parsed.result });
    if (info.contentType !== OID_SIGNED_DATA) throw new Error(`content type ${info.contentType}`);
    signedData = new pkijs.SignedData({ schema: info.content });
  } catch (error) {
    return { ok: false, detail: `the signature is not a readable CMS SignedData: ${(error as Error).message}` };
  }
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo?.signedAttrs) return { ok: false, detail: 'the CMS has no signer with signed attributes (not PAdES)' };
  const hash = HASHES[signerInfo.digestAlgorithm.algorithmId];
  if (!hash) return { ok: false, detail: `unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}` };

  const digestAttr = signerInfo.signedAttrs.attributes.find((attr) => attr.type === OID_MESSAGE_DIGEST);
  const claimed = digestAttr ? Buffer.from((digestAttr.values[0] as asn1js.OctetString).valueBlock.valueHexView) : null;
  const actual = createHash(hash).update(signed).digest();
  if (!claimed || !claimed.equals(actual)) {
    return { ok: false, detail: 'the signed byte range does not hash to the message digest the signature covers (the PDF was altered)' };
  }

  const cert = new X509Certificate(certificate);
  const sid = signerInfo.sid as pkijs.IssuerAndSerialNumber;
  const bundledCert = pkijs.Certificate.fromBER(toArrayBuffer(certificate));
  const sameSerial = sid instanceof pkijs.IssuerAndSerialNumber && Buffer.from(sid.serialNumber.valueBlock.valueHexView).equals(Buffer.from(bundledCert.serialNumber.valueBlock.valueHexView));
  if (!sameSerial || !sid.issuer.isEqual(bundledCert.issuer)) {
    return { ok: false, detail: `the PDF was signed by another certificate than the bundle's (${cert.subject.replace(/\n/g, ', ')})` };
  }
  // RFC 5652 §5.4: the signature covers the signed attributes as a SET OF, not under their [0] tag.
  const attrs = Buffer.from(signerInfo.signedAttrs.encodedValue);
  attrs[0] = 0x31;
  let valid = false;
  try {
    valid = verify(hash, attrs, cert.publicKey, Buffer.from(signerInfo.signature.valueBlock.valueHexView));
  } catch {
    valid = false;
  }
  if (!valid) return { ok: false, detail: "the CMS signature does not verify with the bundle's certificate" };
  const after = revisionEnd === pdf.length ? '' : `; ${signatures.length - 1 - lastSignature} document timestamp(s) and validation data follow it, the newest covering the whole file`;
  const standing = signerStandingOf(signedData, certificate, options.wholeFile ?? pdf, revisionEnd, options.trustAnchors);
  const said = describeStanding(standing.signer);
  if (standing.problem) return { ok: false, detail: `the signature's bytes verify, but ${standing.problem} (${said})`, signer: standing.signer, standing_problem: standing.problem };
  return { ok: true, detail: `signature over bytes 0..${b} and ${c}..${c + d} verifies with ${said}${after}`, signer: standing.signer };
}

/** The standing in one line: subject, fingerprint, chain, proven time, revocation, trust. */
export function describeStanding(s: SignerStanding): string {
  const chain = s.chain.slice(1).map((c) => `${c.subject} (SHA-256 ${c.sha256})`).join(' ← ');
  return [
    `${s.subject} (SHA-256 ${s.sha256})`,
    chain ? `chain: ${chain}` : 'chain: the signer alone',
    s.proven_at ? `proven to exist at ${s.proven_at} (signature timestamp)` : 'time only claimed (no signature timestamp)',
    `revocation: ${s.revocation}`,
    s.trust,
  ].join('; ');
}

const OID_AIA = '1.3.6.1.5.5.7.1.1';
const OID_CRL_DP = '2.5.29.31';

/** The certificate names where its revocation status is published (AIA OCSP or CRL distribution points). */
function namesRevocationSources(cert: pkijs.Certificate): boolean {
  return !!cert.extensions?.some((e) => e.extnID === OID_AIA || e.extnID === OID_CRL_DP);
}

/**
 * What the file proves about its signer beyond the bytes: the signature timestamp (when present
 * it must verify over the signature value; its time is when the signature is proven to have
 * existed), the certificate valid at that time, the revocation data the file embeds (DSS) judged
 * at that time by the one judge (revocation.ts: revoked fails, unusable data is "revocation
 * unknown" and fails), and the chain, built from the certificates the signature and the DSS carry,
 * reaching a trust anchor when some are given.
 */
function signerStandingOf(signedData: pkijs.SignedData, certificate: Buffer, file: Buffer, signedEnd: number, anchors?: Buffer[]): { signer: SignerStanding; problem: string | null } {
  const text = file.toString('latin1');
  const carried = [
    ...(signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate).map((c) => Buffer.from(c.toSchema().toBER())),
    ...dssStreams(text, file, 'Certs'),
  ];
  const chain = [certificate];
  for (let i = issuerIn(certificate, carried); i && !chain.some((c) => c.equals(i!)); i = issuerIn(i, carried)) chain.push(i);
  const problems: string[] = [];
  const info = signedData.signerInfos[0];
  const tokenAttr = info?.unsignedAttrs?.attributes.find((a) => a.type === OID_SIGNATURE_TIMESTAMP);
  let provenAt: Date | null = null;
  if (tokenAttr) {
    const check = verifyTimestampToken(Buffer.from(tokenAttr.values[0].toBER()), Buffer.from(info.signature.valueBlock.valueHexView));
    if (check.ok) provenAt = check.time;
    else problems.push(`its signature timestamp does not hold: ${check.detail}`);
  }
  if (provenAt) {
    const invalid = validityProblem(certificate, provenAt);
    if (invalid) problems.push(`the signing certificate was ${invalid} (the timestamp's time)`);
  }
  const signer = pkijs.Certificate.fromBER(toArrayBuffer(certificate));
  const selfSigned = chain.length === 1 && subjectOf(certificate) === new X509Certificate(certificate).issuer.replace(/\n/g, ', ');
  const ocsps = dssStreams(text, file, 'OCSPs');
  const crls = dssStreams(text, file, 'CRLs');
  let revocation: string;
  if (selfSigned) revocation = 'self-signed, nothing to revoke';
  else if (!namesRevocationSources(signer)) revocation = 'the certificate names no revocation source';
  else if (!ocsps.length && !crls.length) revocation = 'no revocation data embedded (no DSS with OCSP or CRL)';
  else if (!chain[1]) {
    revocation = "revocation unknown: the file does not carry the signer's issuer";
    problems.push(revocation);
  } else {
    const verdict = judgeRevocation(certificate, chain[1], { ocsps, crls }, provenAt ?? new Date());
    if (verdict.status === 'unknown' && verdict.none && !dssAddedAfter(text, signedEnd)) {
      // The DSS of a file countersigned later (the audit certificate) was there before this
      // signature and holds the first signer's data only: nothing about this one, not judged (as
      // a B-T file carries nothing).
      revocation = 'no revocation data embedded for it';
    } else if (verdict.status === 'unknown' && verdict.none) {
      // Validation data added after the signature to vouch for it, none of it about its signer:
      // what it embeds is no revocation data for it, so its revocation is unknown, never good.
      revocation = 'revocation unknown: the revocation data added after the signature (DSS) is about other certificates only';
      problems.push(revocation);
    } else {
      revocation = verdict.detail;
      if (verdict.status === 'revoked') problems.push(`the signing certificate was revoked at the signature's time: ${verdict.detail}`);
      else if (verdict.status === 'unknown') problems.push(verdict.detail);
    }
  }
  let trust: string;
  let trusted = false;
  if (!anchors?.length) trust = 'untrusted issuer: no trust anchor given (--trust FILE; VERIFY_TRUST_ANCHORS on the server), so who issued the certificate is not vouched for';
  else {
    const top = chain[chain.length - 1];
    const reached = anchors.find((a) => a.equals(top) || chain.some((c) => c.equals(a)) || issuedBy(top, a));
    trusted = !!reached;
    if (reached) trust = `trusted: the chain reaches the anchor ${subjectOf(reached)} (SHA-256 ${sha256Fingerprint(reached)})`;
    else {
      trust = 'untrusted issuer: the chain does not reach any trust anchor given';
      problems.push(trust);
    }
  }
  return {
    signer: {
      subject: subjectOf(certificate),
      sha256: sha256Fingerprint(certificate),
      chain: chain.map((c) => ({ subject: subjectOf(c), sha256: sha256Fingerprint(c) })),
      proven_at: provenAt?.toISOString() ?? null,
      revocation,
      trust,
      trusted,
    },
    problem: problems.length ? problems.join('; ') : null,
  };
}

/** The DSS the file's catalog names was written after `signedEnd` (in a revision after the signature's). */
function dssAddedAfter(text: string, signedEnd: number): boolean {
  const refs = [...text.matchAll(/\/DSS\s+(\d+)\s+0\s+R/g)];
  const num = refs[refs.length - 1]?.[1];
  return !!num && lastObjectOffset(text, num) >= signedEnd;
}

function issuerIn(cert: Buffer, pool: Buffer[]): Buffer | undefined {
  return pool.find((candidate) => !candidate.equals(cert) && issuedBy(cert, candidate));
}

/**
 * A JSON entry of a PDF's information dictionary (`DojangChainHead`, `DojangDeliveryHead`), read
 * from the bytes: the last one written wins, as the newest incremental update's dictionary does.
 * Trust it only when the signature it sits under covers the whole file (verifyPades).
 */
export function pdfEvidenceEntry<T>(pdf: Buffer, key: string): T | null {
  const text = pdf.toString('latin1');
  const hits = [...text.matchAll(new RegExp(`/${key}\\s*(<[0-9A-Fa-f\\s]*>|\\((?:\\\\.|[^\\\\)])*\\))`, 'g'))];
  const raw = hits[hits.length - 1]?.[1];
  if (!raw) return null;
  let value: string;
  if (raw.startsWith('<')) {
    const bytes = Buffer.from(raw.slice(1, -1).replace(/\s+/g, ''), 'hex');
    value = bytes[0] === 0xfe && bytes[1] === 0xff ? bytes.subarray(2).swap16().toString('utf16le') : bytes.toString('latin1');
  } else {
    value = raw.slice(1, -1).replace(/\\([()\\])/g, '$1');
  }
  try {
    return JSON.parse(value) as T;
  } catch {
    return null;
  }
}

/** The `DojangChainHead` entry of a PDF's information dictionary (the head its signature was made over), if any. */
export function pdfChainHead(pdf: Buffer): { revision: number; hash: string; completed_event_count: number } | null {
  return pdfEvidenceEntry(pdf, 'DojangChainHead');
}

const DOCUMENT_TIMESTAMP = 'ETSI.RFC3161';
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const OID_SIGNATURE_TIMESTAMP = '1.2.840.113549.1.9.16.2.14';

interface SignatureDictionary {
  range: [number, number, number, number];
  subFilter: string | null;
  /** The CMS in /Contents (zero padding removed), or null when unreadable. */
  cms: Buffer | null;
}

/** Every signature dictionary of a PDF by its /ByteRange, in file order, with its /SubFilter and CMS. */
function signatureDictionaries(pdf: Buffer): SignatureDictionary[] {
  const text = pdf.toString('latin1');
  const out: SignatureDictionary[] = [];
  for (const m of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const range = m.slice(1, 5).map(Number) as [number, number, number, number];
    // The dictionary around the /ByteRange: from its `obj` to its `endobj`.
    const start = text.lastIndexOf(' obj', m.index);
    const end = text.indexOf('endobj', m.index);
    const dict = text.slice(start < 0 ? 0 : start, end < 0 ? text.length : end);
    const subFilter = /\/SubFilter\s*\/([^\s/<>[\]()]+)/.exec(dict)?.[1] ?? null;
    let cms: Buffer | null = null;
    const hole = /^<([0-9A-Fa-f]*)>$/.exec(text.slice(range[1], range[2]));
    if (hole) {
      const der = Buffer.from(hole[1], 'hex');
      const parsed = asn1js.fromBER(toArrayBuffer(der));
      if (parsed.offset !== -1) cms = der.subarray(0, parsed.offset);
    }
    out.push({ range, subFilter, cms });
  }
  return out;
}

function signedDataOf(cms: Buffer): pkijs.SignedData {
  const info = pkijs.ContentInfo.fromBER(toArrayBuffer(cms));
  if (info.contentType !== OID_SIGNED_DATA) throw new Error(`content type ${info.contentType}`);
  return new pkijs.SignedData({ schema: info.content });
}

/** The certificate a SignedData's first signer names (IssuerAndSerialNumber) among those it carries. */
function signerCertificate(signedData: pkijs.SignedData): pkijs.Certificate | null {
  const sid = signedData.signerInfos[0]?.sid;
  if (!(sid instanceof pkijs.IssuerAndSerialNumber)) return null;
  return (signedData.certificates ?? []).find((c): c is pkijs.Certificate => c instanceof pkijs.Certificate && c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer)) ?? null;
}

/** The first signer's signed attributes verify with `cert`, and their message digest is `digestOf(content)`. */
function signerInfoVerifies(signedData: pkijs.SignedData, cert: pkijs.Certificate, content: Buffer): boolean {
  const info = signedData.signerInfos[0];
  if (!info?.signedAttrs) return false;
  const hash = HASHES[info.digestAlgorithm.algorithmId];
  if (!hash) return false;
  const digestAttr = info.signedAttrs.attributes.find((attr) => attr.type === OID_MESSAGE_DIGEST);
  const claimed = digestAttr ? Buffer.from((digestAttr.values[0] as asn1js.OctetString).valueBlock.valueHexView) : null;
  if (!claimed?.equals(createHash(hash).update(content).digest())) return false;
  const attrs = Buffer.from(info.signedAttrs.encodedValue);
  attrs[0] = 0x31;
  try {
    const key = new X509Certificate(Buffer.from(cert.toSchema().toBER())).publicKey;
    return verify(hash, attrs, key, Buffer.from(info.signature.valueBlock.valueHexView));
  } catch {
    return false;
  }
}

export interface TimestampCheck {
  ok: boolean;
  /** The TSA's time (TSTInfo genTime). */
  time: Date | null;
  tsa: string | null;
  /** The TSA certificate's validity. */
  tsaNotAfter: Date | null;
  detail: string;
}

/** An RFC 3161 token over `data`: its imprint is the hash of `data`, its signature verifies with the TSA certificate it carries, valid at its time. */
export function verifyTimestampToken(token: Buffer, data: Buffer): TimestampCheck {
  try {
    const signedData = signedDataOf(token);
    if (signedData.encapContentInfo.eContentType !== OID_TST_INFO || !signedData.encapContentInfo.eContent) return { ok: false, time: null, tsa: null, tsaNotAfter: null, detail: 'not a timestamp token' };
    const tstDer = Buffer.from(signedData.encapContentInfo.eContent.getValue());
    const tst = pkijs.TSTInfo.fromBER(toArrayBuffer(tstDer));
    const cert = signerCertificate(signedData);
    const tsa = cert ? new X509Certificate(Buffer.from(cert.toSchema().toBER())).subject.replace(/\n/g, ', ') : null;
    const base = { time: tst.genTime, tsa, tsaNotAfter: cert?.notAfter.value ?? null };
    const hash = HASHES[tst.messageImprint.hashAlgorithm.algorithmId];
    if (!hash || !Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView).equals(createHash(hash).update(data).digest())) {
      return { ok: false, ...base, detail: 'the timestamp does not cover these bytes' };
    }
    if (!cert) return { ok: false, ...base, detail: 'the token does not carry its TSA certificate' };
    if (!signerInfoVerifies(signedData, cert, tstDer)) return { ok: false, ...base, detail: "the token's signature does not verify with its TSA certificate" };
    if (tst.genTime < cert.notBefore.value || tst.genTime > cert.notAfter.value) return { ok: false, ...base, detail: 'the TSA certificate was not valid at the time it stamped' };
    return { ok: true, ...base, detail: `stamped ${tst.genTime.toISOString()} by ${tsa}` };
  } catch (error) {
    return { ok: false, time: null, tsa: null, tsaNotAfter: null, detail: `unreadable timestamp token: ${(error as Error).message}` };
  }
}

/**
 * What the revisions after the PAdES signature may hold: validation data (DSS) and document
 * timestamps. Each document timestamp must verify over its revision and the newest must cover
 * the whole file; the appended bytes may not add pages or point a page at other content.
 */
function ltvUpdatesProblem(pdf: Buffer, signedEnd: number, later: SignatureDictionary[]): string | null {
  if (!later.length) return `${pdf.length - signedEnd} bytes after the signed revision are covered by no signature or document timestamp`;
  for (const ts of later) {
    if (ts.subFilter !== DOCUMENT_TIMESTAMP || !ts.cms) return 'a revision after the PAdES signature carries something other than a document timestamp';
    const [a, b, c, d] = ts.range;
    const check = verifyTimestampToken(ts.cms, Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]));
    if (!check.ok) return `document timestamp over bytes 0..${c + d}: ${check.detail}`;
  }
  const [, , c, d] = later[later.length - 1].range;
  if (c + d !== pdf.length) return `the newest document timestamp covers ${c + d} of ${pdf.length} bytes`;
  const signedText = pdf.toString('latin1', 0, signedEnd);
  const appended = pdf.toString('latin1', signedEnd);
  if (/\/Kids\s*\[/.test(appended)) return 'a revision after the PAdES signature changes the page tree';
  for (const m of appended.matchAll(/\/Contents\s+(\d+\s+\d+\s+R|\[[^\]]*\])/g)) {
    if (!signedText.includes(m[0])) return 'a revision after the PAdES signature points a page at other content';
  }
  return null;
}

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export interface LtvReport {
  ok: boolean;
  level: PadesLevel;
  /** Each finding, in order; the failing ones start with ✗. */
  findings: string[];
}

/** DER objects from the streams a DSS array names (streams written uncompressed, as Dojang writes them). */
function dssStreams(text: string, pdf: Buffer, key: 'Certs' | 'OCSPs' | 'CRLs'): Buffer[] {
  const dssRefs = [...text.matchAll(/\/DSS\s+(\d+)\s+0\s+R/g)];
  const dssNumber = dssRefs[dssRefs.length - 1]?.[1];
  if (!dssNumber) return [];
  const body = objectText(text, dssNumber);
  const array = new RegExp(`/${key}\\s*\\[([^\\]]*)\\]`).exec(body ?? '')?.[1] ?? '';
  const out: Buffer[] = [];
  for (const ref of array.matchAll(/(\d+)\s+0\s+R/g)) {
    const at = lastObjectOffset(text, ref[1]);
    if (at < 0) continue;
    const length = /\/Length\s+(\d+)/.exec(text.slice(at, at + 200))?.[1];
    const streamAt = text.indexOf('stream', at);
    if (!length || streamAt < 0) continue;
    const dataAt = streamAt + 6 + (text[streamAt + 6] === '\r' ? 2 : 1);
    out.push(pdf.subarray(dataAt, dataAt + Number(length)));
  }
  return out;
}

function lastObjectOffset(text: string, num: string): number {
  const hits = [...text.matchAll(new RegExp(`(?:^|[\\r\\n])${num}\\s+0\\s+obj\\b`, 'g'))];
  return hits.length ? hits[hits.length - 1].index : -1;
}

function objectText(text: string, num: string): string | null {
  const at = lastObjectOffset(text, num);
  if (at < 0) return null;
  const end = text.indexOf('endobj', at);
  return text.slice(at, end < 0 ? text.length : end);
}

/**
 * Long-term validation material, checked offline (no network, no trust list): the PAdES level the
 * file reaches, the signature timestamp (over the signature value, by a TSA valid then), the
 * signer's certificate valid at that time, the DSS holding the signer's chain and revocation data
 * for it (an OCSP response that says good, signed by the responder it carries, or a CRL from its
 * issuer not listing it), and every document timestamp verifying over its revision. `at` is when
 * the material should still hold (default now): a newest timestamp whose TSA certificate expired
 * before it asks for an archive timestamp.
 */
export function verifyLtv(pdf: Buffer, at: Date = new Date()): LtvReport {
  const findings: string[] = [];
  let ok = true;
  const fail = (message: string) => {
    ok = false;
    findings.push(`✗ ${message}`);
  };
  const signatures = signatureDictionaries(pdf);
  const cades = [...signatures].reverse().find((s) => s.subFilter !== DOCUMENT_TIMESTAMP);
  if (!cades?.cms) return { ok: false, level: 'B-B', findings: ['✗ no PAdES signature'] };
  const text = pdf.toString('latin1');
  let level: PadesLevel = 'B-B';
  let signedData: pkijs.SignedData;
  try {
    signedData = signedDataOf(cades.cms);
  } catch (error) {
    return { ok: false, level, findings: [`✗ unreadable signature: ${(error as Error).message}`] };
  }
  const signer = signerCertificate(signedData);
  const info = signedData.signerInfos[0];
  const tokenAttr = info?.unsignedAttrs?.attributes.find((a) => a.type === OID_SIGNATURE_TIMESTAMP);
  let signedAt: Date | null = null;
  if (tokenAttr) {
    const check = verifyTimestampToken(Buffer.from(tokenAttr.values[0].toBER()), Buffer.from(info.signature.valueBlock.valueHexView));
    if (check.ok) {
      level = 'B-T';
      signedAt = check.time;
      findings.push(`✓ signature timestamp: ${check.detail}`);
    } else fail(`signature timestamp: ${check.detail}`);
  } else findings.push('– no signature timestamp (B-B): the signing time is only claimed');
  if (!signer) fail('the signature does not carry its signer certificate');
  else if (signedAt) {
    if (signedAt < signer.notBefore.value || signedAt > signer.notAfter.value) fail(`the signer certificate was not valid at ${signedAt.toISOString()}`);
    else findings.push(`✓ signer certificate valid at the timestamp (${signer.notBefore.value.toISOString()} – ${signer.notAfter.value.toISOString()})`);
  }

  const certs = dssStreams(text, pdf, 'Certs');
  const ocsps = dssStreams(text, pdf, 'OCSPs');
  const crls = dssStreams(text, pdf, 'CRLs');
  if (certs.length + ocsps.length + crls.length > 0 && signer) {
    const signerDer = Buffer.from(signer.toSchema().toBER());
    const selfSigned = signer.issuer.isEqual(signer.subject);
    const issuer = certs.map((c) => pkijs.Certificate.fromBER(toArrayBuffer(c))).find((c) => c.subject.isEqual(signer.issuer) && !c.serialNumber.isEqual(signer.serialNumber));
    const inDss = certs.some((c) => c.equals(signerDer));
    if (!inDss) fail('the DSS does not hold the signer certificate');
    else if (!selfSigned && !issuer) fail("the DSS does not hold the signer's issuer");
    else {
      const revocation = selfSigned ? 'a self-signed certificate (a trust anchor: nothing to revoke)' : revocationOf(signer, issuer!, ocsps, crls, signedAt ?? at);
      if (revocation.startsWith('✗')) fail(revocation.slice(2));
      else {
        level = level === 'B-T' ? 'B-LT' : level;
        findings.push(`✓ DSS: ${certs.length} certificate(s), ${ocsps.length} OCSP response(s), ${crls.length} CRL(s); signer: ${revocation}`);
      }
    }
  } else findings.push('– no DSS (validation data) in the file');

  const stamps = signatures.filter((s) => s.subFilter === DOCUMENT_TIMESTAMP);
  let newest: TimestampCheck | null = null;
  for (const ts of stamps) {
    const [a, b, c, d] = ts.range;
    const check = ts.cms ? verifyTimestampToken(ts.cms, Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)])) : null;
    if (!check?.ok) fail(`document timestamp over bytes 0..${c + d}: ${check?.detail ?? 'no token'}`);
    else {
      newest = check;
      findings.push(`✓ document timestamp over bytes 0..${c + d}: ${check.detail}`);
    }
  }
  if (newest && level === 'B-LT') level = 'B-LTA';
  if (newest?.tsaNotAfter && newest.tsaNotAfter < at) fail(`the newest document timestamp's TSA certificate expired ${newest.tsaNotAfter.toISOString()}: re-timestamp (archive) before relying on it`);
  return { ok, level, findings };
}

/**
 * Whether `ocsps` or `crls` say `cert` was good at `at` (the signature's proven time), offline,
 * through the one judge (revocation.ts): revoked then fails, data that is malformed, stale, about
 * another certificate or signed by another key is "revocation unknown" and fails too.
 */
function revocationOf(cert: pkijs.Certificate, issuer: pkijs.Certificate, ocsps: Buffer[], crls: Buffer[], at: Date): string {
  const verdict = judgeRevocation(Buffer.from(cert.toSchema().toBER()), Buffer.from(issuer.toSchema().toBER()), { ocsps, crls }, at);
  if (verdict.status === 'revoked') return `✗ the signer certificate was revoked before the signature's time: ${verdict.detail}`;
  if (verdict.status === 'unknown') return `✗ ${verdict.detail}`;
  return verdict.detail;
}
