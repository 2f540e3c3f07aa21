/**
 * The evidence bundle's writer, beside its reader: libs/verifier reads what this writes, in the
 * layout both take from the verifier's bundle-format.ts. Pure: the ZIP is made by the Zipper it is
 * given (the PDF pool in the API) and the manifest signed by the key callback it is given, so the
 * Nest controller (apps/api/src/evidence) only gathers the parts.
 */
import { webcrypto } from 'node:crypto';
import type { StoredEvent } from '@dojang/event-store';
import type { ZipFile } from '@dojang/pdf';
import { BUNDLE_FILES, BUNDLE_FORMAT, BundleManifest, deliveryStreamOf, MANIFEST_SIGNATURE_FILE, NEVER_REDACTED } from '@dojang/verifier';
import { withoutBidiControls } from '@dojang/domain';

export interface EvidenceParts {
  document_id: string;
  status: string;
  generated_at: string;
  events: StoredEvent[];
  /** The `delivery-<id>` stream, the same deliveries the audit certificate lists and seals. */
  deliveries: StoredEvent[];
  original: Buffer | null;
  final: Buffer | null;
  audit_certificate: Buffer;
  signing_chain_pem: string;
  /** The certificate that signed final.pdf and its chain (PEM) when it is not signing_chain_pem's (an organization's own). */
  final_signing_chain_pem?: string | null;
  /** Files signatures recorded for attachment fields, under attachments/ (listed in the manifest with their hashes). */
  attachments?: Array<{ attachment_id: string; filename: string; bytes: Buffer }>;
  /**
   * Serve events masked as /history masks them (an auditor key): PIN and link-token hashes
   * "[redacted]", phones and e-mails masked. `mask` is the masking rule (maskEventData); each
   * event it changes is listed in the signed manifest's redacted_events.
   */
  mask?: ((data: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Signs the manifest's bytes (a detached JWS, `manifest.json.jws`) with the document-signing key. */
  sign_manifest: (manifest: Buffer) => string | Promise<string>;
}

/** SHA-256 on libuv's thread pool (WebCrypto), not the event loop: a bundle can hold 40 MB of PDFs. */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

/** Makes the ZIP: DocumentPdfService.zip (the PDF pool) in the API, zipFiles in-process in tools and tests. */
export type Zipper = (files: ZipFile[], mtime: string) => Promise<Buffer>;

/**
 * One event per line exactly as stored (hashes in the metadata), so the verifier recomputes the
 * chain from the same bytes the store hashed; key order is the store's, the hash is over
 * canonical JSON.
 */
export function eventsJsonl(events: StoredEvent[]): Buffer {
  return Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8');
}

/** The ZIP `GET /v1/documents/{id}/evidence` answers; its layout is libs/verifier's bundle-format. */
export async function buildEvidenceBundle(parts: EvidenceParts, zip: Zipper): Promise<Buffer> {
  const redacted: number[] = [];
  const served = parts.mask
    ? parts.events.map((e) => {
        // What the verifier must re-hash (the signatures, the completion, the seal) is served as
        // stored: a seal made before reasons were masked in its facts keeps them as it signed them.
        if (NEVER_REDACTED.includes(e.type)) return e;
        const data = parts.mask!(e.data as Record<string, unknown>);
        if (JSON.stringify(data) === JSON.stringify(e.data)) return e;
        redacted.push(e.stream_revision);
        return { ...e, data };
      })
    : parts.events;
  // Always present, empty when nothing was sent: absent would read as a format-1 bundle's.
  const files: Array<[string, Buffer]> = [
    [BUNDLE_FILES.events, eventsJsonl(served)],
    [BUNDLE_FILES.deliveries, eventsJsonl(parts.deliveries)],
  ];
  if (parts.original) files.push([BUNDLE_FILES.original, parts.original]);
  if (parts.final) files.push([BUNDLE_FILES.final, parts.final]);
  // Bidirectional controls are dropped from the entry name too (a name stored before uploads had them removed).
  for (const a of parts.attachments ?? []) files.push([`attachments/${a.attachment_id}-${withoutBidiControls(a.filename).replace(/[\\/]/g, '_')}`, a.bytes]);
  files.push([BUNDLE_FILES.auditCertificate, parts.audit_certificate]);
  files.push([BUNDLE_FILES.signingChain, Buffer.from(parts.signing_chain_pem, 'utf8')]);
  if (parts.final_signing_chain_pem) files.push([BUNDLE_FILES.finalSigningChain, Buffer.from(parts.final_signing_chain_pem, 'utf8')]);
  const completed = parts.status === 'completed';
  const last = parts.events[parts.events.length - 1];
  const lastDelivery = parts.deliveries[parts.deliveries.length - 1];
  const manifest: BundleManifest = {
    format: BUNDLE_FORMAT,
    document_id: parts.document_id,
    generated_at: parts.generated_at,
    completed,
    status: parts.status,
    note: completed
      ? null
      : `The document is ${parts.status}, not completed: the bundle holds the events and PDFs that exist so far, and no final PDF${['declined', 'canceled', 'expired'].includes(parts.status) ? '' : ' or sealed conclusion yet'}.`,
    chain: { events: parts.events.length, head_hash: last ? String(last.metadata.hash) : null },
    deliveries: { stream_id: deliveryStreamOf(parts.document_id), events: parts.deliveries.length, head_hash: lastDelivery ? String(lastDelivery.metadata.hash) : null },
    files: await Promise.all(files.map(async ([name, bytes]) => ({ name, sha256: await sha256Hex(bytes), byte_size: bytes.length }))),
    ...(parts.mask ? { redacted_events: redacted } : {}),
  };
  const manifestJson = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  // PDFs are already compressed inside, so they are stored; the text is deflated.
  const entries: ZipFile[] = [
    { name: BUNDLE_FILES.manifest, bytes: manifestJson, compress: true },
    // Signed over the exact bytes above: `completed`, `status` and the file list are the server's word.
    { name: MANIFEST_SIGNATURE_FILE, bytes: Buffer.from(`${await parts.sign_manifest(manifestJson)}\n`, 'utf8'), compress: true },
  ];
  // Attached images and PDFs are compressed already.
  for (const [name, bytes] of files) entries.push({ name, bytes, compress: !name.endsWith('.pdf') && !name.startsWith('attachments/') });
  return zip(entries, parts.generated_at);
}
