import { unzipSync } from 'fflate';
import { eventHash, GENESIS_HASH, verifyChain } from '@dojang/event-store/hash-chain';
import {
  BUNDLE_FILES,
  BUNDLE_FORMATS,
  BundledEvent,
  BundleManifest,
  DELIVERY_HEAD_PDF_KEY,
  DeliveryHead,
  deliveryStreamOf,
  documentStreamOf,
  FIRST_FORMAT_WITH_DELIVERIES,
  FIRST_FORMAT_WITH_CERTIFICATIONS,
  NEVER_REDACTED,
  CERTIFIED_WHEN_REDACTED,
} from './bundle-format';
import { AUDIT_FACTS_PDF_KEY, AuditFactsEntry, CrossCheck, verifyCertificateFacts, verifyDeliveriesAgree, verifyPlausible, verifyCertification } from './cross-checks';
import { documentFacts, isCertificationEvent, TERMINAL_EVENTS } from './document-facts';
import { MANIFEST_SIGNATURE_FILE, manifestSignatureProblem } from './manifest-signature';
import { ChainHeadProof, chainHeadProofProblem, completingSignatureOf, sha256Hex } from './chain-head-proof';
import { deliveryHeadProblem, verifyDeliveryChain } from './delivery-chain';
import { PadesResult, pdfChainHead, pdfEvidenceEntry, pemCertificates, verifyPades } from './pades';

export type CheckId =
  | 'manifest'
  | 'manifest_signature'
  | 'hash_chain'
  | 'head_proof'
  | 'seal'
  | 'consistency'
  | 'pdf_hashes'
  | 'pades'
  | 'audit_certificate'
  | 'certificate_facts'
  | 'deliveries';

export interface BundleCheck {
  id: CheckId;
  status: 'pass' | 'fail' | 'skip';
  /** English and Korean: the verdict is printed in both. */
  en: string;
  ko: string;
}

export interface BundleVerdict {
  document_id: string | null;
  completed: boolean;
  events: number;
  /** Delivery records in the bundle; null when it holds none to read (format 1, or the file is missing or unreadable). */
  deliveries: number | null;
  checks: BundleCheck[];
  ok: boolean;
}

/** The bundle cannot be read at all (not a ZIP, cut short, no manifest or events): exit 2, not a verdict. */
export class UnreadableBundleError extends Error {
  readonly name = 'UnreadableBundleError';
}

const pass = (id: CheckId, en: string, ko: string): BundleCheck => ({ id, status: 'pass', en, ko });
const fail = (id: CheckId, en: string, ko: string): BundleCheck => ({ id, status: 'fail', en, ko });
const skip = (id: CheckId, en: string, ko: string): BundleCheck => ({ id, status: 'skip', en, ko });

function readBundle(zip: Uint8Array): { files: Record<string, Buffer>; manifest: BundleManifest; events: BundledEvent[] } {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip);
  } catch (error) {
    throw new UnreadableBundleError(`not a readable ZIP: ${(error as Error).message}`);
  }
  const files: Record<string, Buffer> = {};
  for (const [name, bytes] of Object.entries(entries)) files[name] = Buffer.from(bytes);
  const manifestBytes = files[BUNDLE_FILES.manifest];
  const eventBytes = files[BUNDLE_FILES.events];
  if (!manifestBytes || !eventBytes) throw new UnreadableBundleError(`the ZIP holds no ${!manifestBytes ? BUNDLE_FILES.manifest : BUNDLE_FILES.events}`);
  let manifest: BundleManifest;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8')) as BundleManifest;
  } catch (error) {
    throw new UnreadableBundleError(`${BUNDLE_FILES.manifest} is not JSON: ${(error as Error).message}`);
  }
  if (!(BUNDLE_FORMATS as readonly string[]).includes(String(manifest?.format)) || !Array.isArray(manifest.files)) {
    throw new UnreadableBundleError(`${BUNDLE_FILES.manifest} is not a manifest of a known format (${BUNDLE_FORMATS.join(', ')})`);
  }
  let events: BundledEvent[];
  try {
    events = parseJsonl(eventBytes);
  } catch (error) {
    throw new UnreadableBundleError(`${BUNDLE_FILES.events} ${(error as Error).message}`);
  }
  // Which lines were served masked is the signed manifest's word, never the line's own.
  const redacted = new Set(Array.isArray(manifest.redacted_events) ? manifest.redacted_events : []);
  for (const e of events) {
    delete e.redacted;
    if (redacted.has(e.stream_revision)) e.redacted = true;
  }
  return { files, manifest, events };
}

/** One stored event per line; throws naming the first line that is not JSON. */
function parseJsonl(bytes: Buffer): BundledEvent[] {
  const lines = bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '');
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as BundledEvent;
    } catch (error) {
      throw new Error(`line ${i + 1} is not JSON: ${(error as Error).message}`);
    }
  });
}

/** (a) Every file the manifest lists is there with its SHA-256 and size, and nothing else is. */
function checkManifest(manifest: BundleManifest, files: Record<string, Buffer>): BundleCheck {
  const problems: string[] = [];
  const listed = new Set<string>();
  for (const f of manifest.files) {
    listed.add(f.name);
    const bytes = files[f.name];
    if (!bytes) problems.push(`${f.name} missing`);
    else if (sha256Hex(bytes) !== f.sha256 || bytes.length !== f.byte_size) problems.push(`${f.name} differs from its SHA-256/size`);
  }
  for (const name of Object.keys(files)) if (name !== BUNDLE_FILES.manifest && name !== MANIFEST_SIGNATURE_FILE && !listed.has(name)) problems.push(`${name} not listed`);
  return problems.length
    ? fail('manifest', `Manifest: ${problems.join('; ')}`, `매니페스트 불일치: ${problems.join('; ')}`)
    : pass('manifest', `Manifest: ${manifest.files.length} files match their SHA-256 and size`, `매니페스트: 파일 ${manifest.files.length}개의 SHA-256과 크기가 일치합니다`);
}

/** (b) The stored hashes link and match the content, and the manifest names the same head. */
function checkChain(manifest: BundleManifest, events: BundledEvent[]): BundleCheck {
  // A stream id is hashed into each event, so another document's (intact) log would pass the links.
  const stream = documentStreamOf(manifest.document_id);
  const foreign = events.findIndex((e) => e.stream_id !== stream);
  if (foreign >= 0) {
    return fail('hash_chain', `Hash chain: the event on line ${foreign + 1} belongs to stream ${events[foreign].stream_id}, not ${stream}`, `해시 체인: ${foreign + 1}번째 이벤트가 이 문서(${stream})의 스트림이 아닙니다`);
  }
  const masked = events.filter((e) => e.redacted);
  // A decline or cancel served masked is checked against the certification's facts: only where one is required.
  const forbidden = masked.find((e) => NEVER_REDACTED.includes(e.type) || (CERTIFIED_WHEN_REDACTED.includes(e.type) && !certificationsFormat(manifest)));
  if (forbidden) return fail('hash_chain', `Hash chain: the manifest lists ${forbidden.type} (revision ${forbidden.stream_revision}) as masked; what concludes or seals a document is never masked`, `해시 체인: 결론·봉인 이벤트는 가려질 수 없습니다`);
  const verdict = masked.length ? verifyMaskedChain(events) : verifyChain(events.map((e) => ({ ...e, metadata: e.metadata ?? {} })));
  if (!verdict.intact) {
    return fail('hash_chain', `Hash chain broken at revision ${verdict.broken_at_revision}: ${verdict.reason}`, `해시 체인이 리비전 ${verdict.broken_at_revision}에서 끊어졌습니다: ${verdict.reason}`);
  }
  if (manifest.chain?.head_hash !== (events.length ? verdict.head_hash : null) || manifest.chain?.events !== events.length) {
    return fail('hash_chain', `Hash chain: the manifest names head ${manifest.chain?.head_hash} over ${manifest.chain?.events} events, the events give ${verdict.head_hash} over ${events.length}`, `해시 체인: 매니페스트의 체인 헤드가 이벤트에서 계산한 값과 다릅니다`);
  }
  if (masked.length) {
    const revisions = masked.map((e) => e.stream_revision).join(', ');
    return pass(
      'hash_chain',
      `Hash chain: ${events.length} events, every prev_hash matches and every hash but those of the ${masked.length} masked event(s) (revisions ${revisions}, served masked for an auditor key: their stored hash is taken) matches its content (head ${verdict.head_hash})`,
      `해시 체인: 이벤트 ${events.length}개, 모든 prev_hash가 일치하고 가려진 ${masked.length}개(리비전 ${revisions})를 제외한 모든 hash가 내용과 일치합니다`,
    );
  }
  return pass('hash_chain', `Hash chain: ${events.length} events, every prev_hash and hash matches (head ${verdict.head_hash})`, `해시 체인: 이벤트 ${events.length}개, 모든 prev_hash와 hash가 일치합니다`);
}

/** verifyChain, taking the stored hash of an event served masked (its content cannot be re-hashed). */
function verifyMaskedChain(events: BundledEvent[]): ReturnType<typeof verifyChain> {
  let prev = GENESIS_HASH;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e.stream_revision !== i) return { intact: false, events: events.length, broken_at_revision: i, reason: `revision ${e.stream_revision} found where ${i} was expected (event missing or reordered)` };
    if (e.metadata?.prev_hash !== prev) return { intact: false, events: events.length, broken_at_revision: i, reason: 'prev_hash does not match the hash of the previous event' };
    const expected = e.redacted ? String(e.metadata.hash) : eventHash({ ...e, metadata: e.metadata ?? {} }, prev);
    if (e.metadata.hash !== expected) return { intact: false, events: events.length, broken_at_revision: i, reason: 'hash does not match the event content (event altered)' };
    prev = expected;
  }
  return { intact: true, events: events.length, head_hash: prev };
}

/** Hashes recomputed from content alone: what someone who edited and re-hashed the log would get. */
function recomputed(events: BundledEvent[]): string[] {
  let prev = GENESIS_HASH;
  // An event served masked counts with its stored hash: the rest is recomputed from content.
  return events.map((e) => (prev = e.redacted ? String(e.metadata?.hash) : eventHash({ ...e, metadata: e.metadata ?? {} }, prev)));
}

/**
 * (c) The head the completion sealed with the document-signing key. A log edited and re-hashed
 * with plain SHA-256 passes (b); it cannot re-sign the head, and a log cut short no longer
 * reaches the count the head was signed with.
 */
function checkHeadProof(manifest: BundleManifest, events: BundledEvent[], certificate: Buffer | undefined, finalPdf: Buffer | undefined): BundleCheck {
  const at = events.findIndex((e) => e.type === 'DocumentCompleted');
  const witness = finalPdf ? pdfChainHead(finalPdf) : null;
  if (at < 0) {
    if (witness || finalPdf || manifest.completed) {
      return fail('head_proof', 'Chain-head proof: the bundle holds a completed document but its log has no DocumentCompleted (cut short)', '체인 헤드 증명: 완료된 문서인데 로그에 DocumentCompleted가 없습니다 (잘려 나감)');
    }
    return skip('head_proof', 'Chain-head proof: document not completed, nothing was sealed yet', '체인 헤드 증명: 완료되지 않은 문서라 아직 봉인된 헤드가 없습니다');
  }
  const completion = events[at];
  const data = completion.data as { original_sha256?: string | null; final_pdf?: { sha256: string } | null; chain_head?: ChainHeadProof | null };
  const proof = data.chain_head;
  if (!proof) return fail('head_proof', `Chain-head proof: the completion at revision ${completion.stream_revision} carries none`, `체인 헤드 증명: 리비전 ${completion.stream_revision}의 완료 이벤트에 증명이 없습니다`);
  if (!certificate) return fail('head_proof', 'Chain-head proof: no certificate in the bundle to check it with', '체인 헤드 증명: 검증할 인증서가 번들에 없습니다');
  const signer = events[at - 1];
  const problem = chainHeadProofProblem(
    {
      document_id: manifest.document_id,
      head: { revision: proof.revision, hash: proof.hash, event_count: proof.event_count, completed_event_count: proof.completed_event_count },
      signer: completingSignatureOf(signer?.type === 'ParticipantSigned' ? signer.data : {}),
      original_sha256: data.original_sha256 ?? null,
      final_pdf_sha256: data.final_pdf?.sha256 ?? null,
    },
    proof,
    certificate,
  );
  if (problem) return fail('head_proof', `Chain-head proof: ${problem}`, `체인 헤드 증명: 문서 서명 인증서로 검증되지 않습니다 (${problem})`);
  const hashes = recomputed(events);
  if (hashes[proof.revision] !== proof.hash) {
    return fail('head_proof', `Chain-head proof: the events up to revision ${proof.revision} hash to ${hashes[proof.revision] ?? 'nothing'}, not the signed head ${proof.hash} (an event was changed and the chain re-hashed)`, `체인 헤드 증명: 리비전 ${proof.revision}까지의 이벤트가 서명된 헤드와 다릅니다 (이벤트 변경 후 재해시됨)`);
  }
  if (completion.stream_revision !== proof.completed_event_count - 1 || events.length < proof.completed_event_count) {
    return fail('head_proof', `Chain-head proof: signed over ${proof.completed_event_count} events up to the completion, the log has ${events.length}`, `체인 헤드 증명: 서명된 이벤트 수 ${proof.completed_event_count}개와 로그의 ${events.length}개가 맞지 않습니다`);
  }
  if (witness && (witness.hash !== proof.hash || witness.completed_event_count !== proof.completed_event_count)) {
    return fail('head_proof', 'Chain-head proof: the final PDF was sealed over another head than the completion records', '체인 헤드 증명: 최종 PDF에 기록된 헤드가 완료 이벤트의 헤드와 다릅니다');
  }
  return pass('head_proof', `Chain-head proof: head at revision ${proof.revision} signed with the bundle's certificate, events up to it unchanged`, `체인 헤드 증명: 리비전 ${proof.revision}의 헤드가 번들의 인증서로 서명되어 있고 그 이전 이벤트는 변경되지 않았습니다`);
}

/** (d) The PDFs in the bundle are the ones the events name. */
function checkPdfHashes(events: BundledEvent[], original: Buffer | undefined, finalPdf: Buffer | undefined): BundleCheck {
  const problems: string[] = [];
  const sent = events.find((e) => e.type === 'DocumentSent');
  const completed = events.find((e) => e.type === 'DocumentCompleted');
  const sentOriginal = (sent?.data.original_pdf as { sha256?: string } | null | undefined)?.sha256 ?? null;
  const completedOriginal = (completed?.data.original_sha256 as string | null | undefined) ?? null;
  let recordedFinal = (completed?.data.final_pdf as { sha256?: string } | null | undefined)?.sha256 ?? null;
  const checked: string[] = [];
  // The archive job's re-timestamped files: each extends the one before, the newest is final.pdf.
  for (const archived of events.filter((e) => e.type === 'DocumentArchiveTimestamped')) {
    const data = archived.data as { previous_final_sha256?: string; final_pdf?: { sha256?: string } };
    if (data.previous_final_sha256 !== recordedFinal) problems.push(`DocumentArchiveTimestamped at revision ${archived.stream_revision} extends ${data.previous_final_sha256}, not the final PDF before it (${recordedFinal})`);
    recordedFinal = data.final_pdf?.sha256 ?? recordedFinal;
  }
  if (sentOriginal) {
    if (!original) problems.push('original.pdf missing though DocumentSent fixed one');
    else if (sha256Hex(original) !== sentOriginal) problems.push(`original.pdf is not the PDF DocumentSent fixed (${sentOriginal})`);
    else checked.push('original = DocumentSent.original_pdf');
  } else if (original) {
    checked.push('original (draft, not fixed by a send)');
  }
  if (completed && completedOriginal !== (sentOriginal ?? completedOriginal)) problems.push('DocumentCompleted.original_sha256 differs from DocumentSent');
  if (completed && completedOriginal && original && sha256Hex(original) !== completedOriginal) problems.push('original.pdf is not DocumentCompleted.original_sha256');
  if (recordedFinal) {
    if (!finalPdf) problems.push('final.pdf missing though DocumentCompleted records one');
    else if (sha256Hex(finalPdf) !== recordedFinal) problems.push(`final.pdf is not the PDF DocumentCompleted (or the newest DocumentArchiveTimestamped) records (${recordedFinal})`);
    else checked.push('final = DocumentCompleted.final_pdf');
  } else if (finalPdf) {
    problems.push('final.pdf present but no DocumentCompleted records it');
  }
  return problems.length
    ? fail('pdf_hashes', `PDF hashes: ${problems.join('; ')}`, `PDF 해시 불일치: ${problems.join('; ')}`)
    : pass('pdf_hashes', `PDF hashes: ${checked.join(', ') || 'no PDF recorded yet'}`, `PDF 해시: 이벤트에 기록된 SHA-256과 일치합니다 (${checked.length}개)`);
}

/**
 * (e) The final PDF's PAdES signature, made with the bundle's certificate, or with the
 * organization's own certificate that final-signing-chain.pem names (a file the signed manifest
 * lists: the installation vouches for it, and final.pdf's hash is sealed in the log).
 */
function checkPades(finalPdf: Buffer | undefined, certificate: Buffer | undefined, organizationCertificate: Buffer | undefined, options: VerifyBundleOptions): BundleCheck {
  if (!finalPdf) return skip('pades', 'PAdES signature: no final PDF yet', 'PAdES 서명: 아직 최종 PDF가 없습니다');
  const padesOptions = { trustAnchors: options.trustAnchors };
  if (organizationCertificate) {
    const own = verifyPades(finalPdf, organizationCertificate, padesOptions);
    const fingerprint = sha256Hex(organizationCertificate);
    return own.ok
      ? pass('pades', `PAdES signature: ${own.detail}, with the organization's own certificate (SHA-256 ${fingerprint}, final-signing-chain.pem)`, `PAdES 서명: 최종 PDF의 서명이 조직 인증서(final-signing-chain.pem)로 검증됩니다${standingKo(own)}`)
      : fail('pades', `PAdES signature: ${own.detail} (the organization's certificate in final-signing-chain.pem)`, `PAdES 서명: 검증 실패 (${own.detail})`);
  }
  if (!certificate) return fail('pades', 'PAdES signature: no certificate in the bundle', 'PAdES 서명: 번들에 인증서가 없습니다');
  const result = verifyPades(finalPdf, certificate, padesOptions);
  return result.ok
    ? pass('pades', `PAdES signature: ${result.detail}`, `PAdES 서명: 최종 PDF의 서명이 번들의 인증서로 검증됩니다${standingKo(result)}`)
    : fail('pades', `PAdES signature: ${result.detail}`, `PAdES 서명: 검증 실패 (${result.detail})`);
}

/** The signer's fingerprint and proven time, for the Korean line (the English detail says all). */
function standingKo(result: PadesResult): string {
  const s = result.signer;
  if (!s) return '';
  const time = s.proven_at ? `, 타임스탬프로 증명된 서명 시각 ${s.proven_at}` : ', 서명 시각은 주장일 뿐입니다(타임스탬프 없음)';
  const trust = s.trusted ? ', 신뢰 앵커까지 체인이 이어집니다' : ', 신뢰할 발급자가 확인되지 않았습니다(untrusted issuer: --trust 파일 없음)';
  return ` (인증서 SHA-256 ${s.sha256}${time}${trust})`;
}

/**
 * (f) The audit certificate's own signature: the countersignature made when it was generated
 * covers the whole file (the contract, the certificate pages and the delivery head it seals).
 */
function checkAuditCertificate(auditPdf: Buffer | undefined, certificate: Buffer | undefined, options: VerifyBundleOptions): BundleCheck {
  if (!auditPdf) return fail('audit_certificate', 'Audit certificate signature: no audit-certificate.pdf in the bundle', '감사 추적 인증서 서명: 번들에 audit-certificate.pdf가 없습니다');
  if (!certificate) return fail('audit_certificate', 'Audit certificate signature: no certificate in the bundle', '감사 추적 인증서 서명: 번들에 인증서가 없습니다');
  const result = verifyPades(auditPdf, certificate, { trustAnchors: options.trustAnchors });
  return result.ok
    ? pass('audit_certificate', `Audit certificate signature: ${result.detail}`, '감사 추적 인증서 서명: 인증서 전체가 번들의 인증서로 서명되어 있습니다')
    : fail('audit_certificate', `Audit certificate signature: ${result.detail}`, `감사 추적 인증서 서명: 검증 실패 (${result.detail})`);
}

/**
 * (g) The delivery stream: its own chain (delivery-chain.ts), the manifest's count and head, and
 * the head the audit certificate's countersignature sealed. The links alone are plain SHA-256
 * that anyone can recompute; the sealed head is what catches a delivery re-hashed, dropped or
 * added after the certificate was made, and a format-2 bundle passed off as format 1.
 */
function checkDeliveries(manifest: BundleManifest, files: Record<string, Buffer>, certificateOk: boolean): { check: BundleCheck; count: number | null } {
  const auditPdf = files[BUNDLE_FILES.auditCertificate];
  const sealed = auditPdf ? pdfEvidenceEntry<DeliveryHead>(auditPdf, DELIVERY_HEAD_PDF_KEY) : null;
  const bytes = files[BUNDLE_FILES.deliveries];
  const formatHasThem = BUNDLE_FORMATS.indexOf(manifest.format) >= BUNDLE_FORMATS.indexOf(FIRST_FORMAT_WITH_DELIVERIES);
  const label = (en: string, ko: string) => ({ en: `Delivery chain: ${en}`, ko: `전달 기록 체인: ${ko}` });
  const failed = (en: string, ko: string, count: number | null = null) => {
    const l = label(en, ko);
    return { check: fail('deliveries', l.en, l.ko), count };
  };
  if (!bytes) {
    if (formatHasThem) return failed(`${BUNDLE_FILES.deliveries} is missing (a ${manifest.format} bundle always holds it)`, `${BUNDLE_FILES.deliveries} 파일이 없습니다`);
    if (sealed) return failed(`the audit certificate seals ${sealed.event_count} deliveries but the bundle (${manifest.format}) holds none`, `감사 추적 인증서에 전달 기록 ${sealed.event_count}건이 봉인되어 있으나 번들에 없습니다`);
    const l = label(`no deliveries recorded: the ${manifest.format} format predates delivery records`, `전달 기록 없음: ${manifest.format} 형식은 전달 기록 이전의 형식입니다`);
    return { check: skip('deliveries', l.en, l.ko), count: null };
  }
  let events: BundledEvent[];
  try {
    events = parseJsonl(bytes);
  } catch (error) {
    return failed(`${BUNDLE_FILES.deliveries} ${(error as Error).message}`, `${BUNDLE_FILES.deliveries} 파일을 읽을 수 없습니다`);
  }
  const count = events.length;
  const verdict = verifyDeliveryChain(manifest.document_id, events.map((e) => ({ ...e, metadata: e.metadata ?? {} })));
  if (!verdict.intact) {
    return failed(`broken at revision ${verdict.broken_at}: ${verdict.reason}`, `리비전 ${verdict.broken_at}에서 끊어졌습니다 (${verdict.reason})`, count);
  }
  const listed = manifest.deliveries;
  if (!listed || listed.stream_id !== deliveryStreamOf(manifest.document_id) || listed.events !== count || listed.head_hash !== verdict.head_hash) {
    return failed(
      `the manifest names ${listed ? `${listed.events} deliveries with head ${listed.head_hash} in ${listed.stream_id}` : 'no delivery stream'}, the file gives ${count} with head ${verdict.head_hash}`,
      '매니페스트의 전달 기록 헤드가 파일에서 계산한 값과 다릅니다',
      count,
    );
  }
  if (!sealed) {
    if (formatHasThem) return failed('the audit certificate seals no delivery head to check them against', '감사 추적 인증서에 봉인된 전달 기록 헤드가 없습니다', count);
  } else {
    if (!certificateOk) return failed("the audit certificate's signature does not verify, so the delivery head it seals cannot be trusted", '감사 추적 인증서의 서명이 검증되지 않아 봉인된 헤드를 믿을 수 없습니다', count);
    const problem = deliveryHeadProblem(sealed, manifest.document_id, events.map((e) => ({ ...e, metadata: e.metadata ?? {} })));
    if (problem) return failed(problem, `감사 추적 인증서에 봉인된 헤드와 맞지 않습니다 (${problem})`, count);
  }
  const l = label(
    `${count} deliveries in ${deliveryStreamOf(manifest.document_id)}, every prev_hash and hash matches${sealed ? ', as sealed in the audit certificate' : ''}${count ? ` (head ${verdict.head_hash})` : ''}`,
    `전달 기록 ${count}건, 모든 prev_hash와 hash가 일치합니다${sealed ? ' (감사 추적 인증서에 봉인된 헤드와 일치)' : ''}`,
  );
  return { check: pass('deliveries', l.en, l.ko), count };
}

const certificationsFormat = (manifest: BundleManifest) => BUNDLE_FORMATS.indexOf(manifest.format) >= BUNDLE_FORMATS.indexOf(FIRST_FORMAT_WITH_CERTIFICATIONS);

/** Evidence only a certifying (format 3 on) bundle holds: a bundle carrying it under an older label was relabelled to skip the checks. */
function newerEvidence(events: BundledEvent[], files: Record<string, Buffer>): string | null {
  if (files[MANIFEST_SIGNATURE_FILE]) return `a ${MANIFEST_SIGNATURE_FILE}`;
  const certification = events.find(isCertificationEvent);
  if (certification) return `a ${certification.type} event`;
  const audit = files[BUNDLE_FILES.auditCertificate];
  if (audit && pdfEvidenceEntry(audit, AUDIT_FACTS_PDF_KEY)) return 'an audit certificate with embedded facts';
  return null;
}

const fromCross = (id: CheckId, en: string, ko: string, c: CrossCheck): BundleCheck =>
  c.status === 'pass' ? pass(id, `${en}: ${c.detail}`, `${ko}: 일치합니다 (${c.detail})`) : c.status === 'skip' ? skip(id, `${en}: ${c.detail}`, `${ko}: 해당 없음 (${c.detail})`) : fail(id, `${en}: ${c.detail}`, `${ko} 불일치: ${c.detail}`);

/** (h) The manifest (its status, completion and file list) is the one the installation signed. */
function checkManifestSignature(manifest: BundleManifest, files: Record<string, Buffer>, events: BundledEvent[], certificate: Buffer | undefined): BundleCheck {
  const label = { en: 'Manifest signature', ko: '매니페스트 서명' };
  const jws = files[MANIFEST_SIGNATURE_FILE];
  if (!certificationsFormat(manifest)) {
    const newer = newerEvidence(events, files);
    if (newer) return fail('manifest_signature', `${label.en}: the bundle says ${manifest.format} but holds ${newer}: a newer bundle relabelled`, `${label.ko}: 이전 형식으로 바뀐 최신 번들입니다`);
    return skip('manifest_signature', `${label.en}: the ${manifest.format} format predates signed manifests`, `${label.ko}: ${manifest.format} 형식은 서명된 매니페스트 이전의 형식입니다`);
  }
  if (!jws) return fail('manifest_signature', `${label.en}: ${MANIFEST_SIGNATURE_FILE} is missing (a ${manifest.format} bundle is always signed)`, `${label.ko}: ${MANIFEST_SIGNATURE_FILE} 파일이 없습니다`);
  if (!certificate) return fail('manifest_signature', `${label.en}: no certificate in the bundle`, `${label.ko}: 번들에 인증서가 없습니다`);
  const problem = manifestSignatureProblem(jws.toString('utf8'), files[BUNDLE_FILES.manifest], certificate);
  return problem
    ? fail('manifest_signature', `${label.en}: ${problem}`, `${label.ko}: 검증 실패 (${problem})`)
    : pass('manifest_signature', `${label.en}: manifest.json is signed with the bundle's certificate`, `${label.ko}: manifest.json이 번들의 인증서로 서명되어 있습니다`);
}

/**
 * (i) Every terminal event is followed by Dojang's certification over it (format 3 on). The check
 * keeps its id `seal` (its name before issue 35): ids are what scripts read in the JSON output.
 */
function checkCertification(manifest: BundleManifest, events: BundledEvent[], certificate: Buffer | undefined): BundleCheck {
  if (!certificationsFormat(manifest) && !events.some(isCertificationEvent)) {
    return skip('seal', `Certification: the ${manifest.format} format predates certified conclusions`, `결론 인증: ${manifest.format} 형식은 결론 인증 이전의 형식입니다`);
  }
  return fromCross('seal', 'Certification', '결론 인증', verifyCertification(manifest.document_id, events, certificate));
}

/**
 * (j) The manifest, the events and the deliveries tell one story: the manifest's status and
 * `completed` are the events' (the manifest is signed, but by whoever served the bundle), no
 * time contradicts another, and every conclusion notice delivered has its conclusion in the log.
 */
function checkConsistency(manifest: BundleManifest, events: BundledEvent[], files: Record<string, Buffer>): BundleCheck {
  const problems: string[] = [];
  const facts = documentFacts(manifest.document_id, events);
  const terminal = Object.values(TERMINAL_EVENTS);
  if (!!manifest.completed !== (facts.status === 'completed')) problems.push(`the manifest says completed: ${!!manifest.completed}, the events say status ${facts.status}`);
  if (terminal.includes(facts.status) ? manifest.status !== facts.status : terminal.includes(manifest.status)) {
    problems.push(`the manifest says status ${manifest.status}, the events say ${facts.status}`);
  }
  const plausible = verifyPlausible(manifest.document_id, events);
  if (plausible.status === 'fail') problems.push(plausible.detail);
  const bytes = files[BUNDLE_FILES.deliveries];
  if (bytes) {
    try {
      const agree = verifyDeliveriesAgree(manifest.document_id, events, parseJsonl(bytes));
      if (agree.status === 'fail') problems.push(agree.detail);
    } catch {
      // Unreadable deliveries fail the delivery chain check.
    }
  }
  return problems.length
    ? fail('consistency', `Cross-check: ${problems.join('; ')}`, `교차 검증 불일치: ${problems.join('; ')}`)
    : pass('consistency', `Cross-check: manifest, events and deliveries agree (${facts.status})`, `교차 검증: 매니페스트, 이벤트, 전달 기록이 일치합니다 (${facts.status})`);
}

/** (k) The audit certificate states the facts of the events it was generated from (format 3 on). */
function checkCertificateFacts(manifest: BundleManifest, events: BundledEvent[], files: Record<string, Buffer>, certificateOk: boolean): BundleCheck {
  const audit = files[BUNDLE_FILES.auditCertificate];
  const entry = audit ? pdfEvidenceEntry<AuditFactsEntry>(audit, AUDIT_FACTS_PDF_KEY) : null;
  if (!certificationsFormat(manifest) && !entry) {
    return skip('certificate_facts', `Audit certificate facts: the ${manifest.format} format predates certificates with embedded facts`, `감사 추적 인증서 내용: ${manifest.format} 형식은 사실 요약 이전의 형식입니다`);
  }
  return fromCross('certificate_facts', 'Audit certificate facts', '감사 추적 인증서 내용', verifyCertificateFacts(manifest.document_id, events, entry, certificateOk));
}

export interface VerifyBundleOptions {
  /**
   * Certificates (DER) the verifying party trusts (`dojang-verify --trust FILE`): each PDF's signer
   * chain must reach one. Without any, the checks say "untrusted issuer" (the bundle's own
   * signing-chain.pem is the bundle's claim, not a trust anchor) but do not fail on it.
   */
  trustAnchors?: Buffer[];
}

/** Everything a bundle proves, with no server, database or secret: only the bytes in the ZIP. */
export function verifyBundle(zip: Uint8Array, options: VerifyBundleOptions = {}): BundleVerdict {
  const { files, manifest, events } = readBundle(zip);
  const chainPem = files[BUNDLE_FILES.signingChain];
  let certificate: Buffer | undefined;
  try {
    certificate = chainPem ? pemCertificates(chainPem.toString('latin1'))[0] : undefined;
  } catch {
    certificate = undefined;
  }
  let organizationCertificate: Buffer | undefined;
  try {
    const ownPem = files[BUNDLE_FILES.finalSigningChain];
    organizationCertificate = ownPem ? pemCertificates(ownPem.toString('latin1'))[0] : undefined;
  } catch {
    organizationCertificate = undefined;
  }
  const original = files[BUNDLE_FILES.original];
  const finalPdf = files[BUNDLE_FILES.final];
  const auditCertificate = checkAuditCertificate(files[BUNDLE_FILES.auditCertificate], certificate, options);
  const deliveries = checkDeliveries(manifest, files, auditCertificate.status === 'pass');
  const checks = [
    checkManifest(manifest, files),
    checkManifestSignature(manifest, files, events, certificate),
    checkChain(manifest, events),
    checkHeadProof(manifest, events, certificate, finalPdf),
    checkCertification(manifest, events, certificate),
    checkConsistency(manifest, events, files),
    checkPdfHashes(events, original, finalPdf),
    checkPades(finalPdf, certificate, organizationCertificate, options),
    auditCertificate,
    checkCertificateFacts(manifest, events, files, auditCertificate.status === 'pass'),
    deliveries.check,
  ];
  return {
    document_id: manifest.document_id ?? null,
    completed: !!manifest.completed,
    events: events.length,
    deliveries: deliveries.count,
    checks,
    ok: checks.every((c) => c.status !== 'fail'),
  };
}
