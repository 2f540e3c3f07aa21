import { extendPades, newestDocumentTimestampTime, newestTimestampExpiry } from '../../../evidence/src/pades-ltv';
import { withRevocationMemo } from '../../../evidence/src/revocation-check';
import { assertOffMainThread } from '../main-thread-guard';
import { asSigningUnavailable } from './signing-unavailable';
import { bytes, type ArchiveTimestampJobInput, type ArchivedPdf } from './pdf-jobs';

/**
 * The archive step on a completed document's final PDF: when its newest timestamp's certificate
 * expires before `due_before`, a DSS round (fresh revocation data for that timestamp) and a new
 * document timestamp, both incremental updates (every earlier signature keeps its bytes). The
 * file's signer found revoked since is embedded as found (evidence, judged by the verifiers at the
 * signature's time), not a reason to stop archiving; the new timestamp's TSA is checked as any.
 */
export default async function archiveTimestampJob(input: ArchiveTimestampJobInput): Promise<ArchivedPdf> {
  assertOffMainThread('archiveTimestamp');
  const pdf = Buffer.from(bytes(input.pdf));
  const expires = newestTimestampExpiry(pdf);
  if (!expires) return { extended: false, reason: 'no_timestamp', expires_at: null };
  if (expires.getTime() > Date.parse(input.due_before)) return { extended: false, reason: 'not_due', expires_at: expires.toISOString() };
  let extended: Buffer;
  try {
    extended = await withRevocationMemo(() => extendPades(pdf, { tsaUrl: input.tsa_url, level: 'B-LTA', refuseRevoked: false }), input.revocation_sources);
  } catch (error) {
    throw asSigningUnavailable(error);
  }
  const newExpiry = newestTimestampExpiry(extended);
  const time = newestDocumentTimestampTime(extended);
  if (!newExpiry || !time) throw new Error('the archive timestamp was not found in the extended file');
  return { extended: true, pdf: extended, previous_expires_at: expires.toISOString(), expires_at: newExpiry.toISOString(), timestamped_at: time.toISOString() };
}
