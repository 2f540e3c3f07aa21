/**
 * The evidence bundle's layout, shared by the API that writes it and the verifier that reads it.
 * A bundle is one ZIP; every name below is a file at its root.
 */
export const BUNDLE_FORMAT = 'dojang-evidence/4';

/**
 * Every format the verifier reads. `dojang-evidence/1` predates delivery records: its bundles
 * hold no `deliveries.jsonl` and their audit certificate seals no delivery head.
 * `dojang-evidence/2` predates certified conclusions and signed manifests. `dojang-evidence/3`
 * bundles name the certification only `DocumentSealed` (its name before issue 35); from
 * `dojang-evidence/4` on it is stored as `DocumentCertified` (a document concluded before keeps its
 * `DocumentSealed`, read as the same). A verifier that knows only format 3 refuses a format-4
 * bundle as unknown instead of reporting its certification missing.
 */
export const BUNDLE_FORMATS = ['dojang-evidence/1', 'dojang-evidence/2', 'dojang-evidence/3', BUNDLE_FORMAT] as const;
export type BundleFormat = (typeof BUNDLE_FORMATS)[number];

/** The first format whose bundles always carry the delivery stream. */
export const FIRST_FORMAT_WITH_DELIVERIES: BundleFormat = 'dojang-evidence/2';

/**
 * The first format whose manifest is signed (`manifest.json.jws`), whose concluded documents
 * carry their certification (`DocumentSealed`, from format 4 on `DocumentCertified`) and whose
 * audit certificate embeds its facts (`DojangAuditFacts`).
 */
export const FIRST_FORMAT_WITH_CERTIFICATIONS: BundleFormat = 'dojang-evidence/3';

export const BUNDLE_FILES = {
  manifest: 'manifest.json',
  /** The document stream, one stored event per line, exactly as the event store holds it. */
  events: 'events.jsonl',
  /** The `delivery-<document_id>` stream, the same way (empty when nothing was sent). Format 2 on. */
  deliveries: 'deliveries.jsonl',
  original: 'original.pdf',
  final: 'final.pdf',
  auditCertificate: 'audit-certificate.pdf',
  /** The document-signing certificate first, then any intermediates (PEM). */
  signingChain: 'signing-chain.pem',
  /**
   * When final.pdf is signed with another certificate than signing-chain.pem's (an organization's
   * own): that certificate first, then the chain its signature carries (PEM). Listed in the signed
   * manifest, so the installation vouches for which certificate signed the contract.
   */
  finalSigningChain: 'final-signing-chain.pem',
} as const;

/**
 * The stream a document's deliveries live in. Restated from libs/domain (`deliveryStreamId`),
 * which the verifier may not import; a spec keeps the two equal.
 */
export const deliveryStreamOf = (documentId: string) => `delivery-${documentId}`;
export const documentStreamOf = (documentId: string) => `document-${documentId}`;

/**
 * The information-dictionary entry the audit certificate's countersignature carries: the
 * delivery chain the certificate lists, as JSON `DeliveryHead`. Signed with the document-signing
 * key, so a delivery log re-hashed or cut short after the certificate was made no longer matches.
 */
export const DELIVERY_HEAD_PDF_KEY = 'DojangDeliveryHead';

export interface DeliveryHead {
  document_id: string;
  stream_id: string;
  /** Deliveries the certificate lists: the stream's revisions 0..event_count-1. */
  event_count: number;
  /** The stored hash of the last of them; null when there are none. */
  head_hash: string | null;
}

export interface ManifestFile {
  name: string;
  sha256: string;
  byte_size: number;
}

export interface BundleManifest {
  format: BundleFormat;
  document_id: string;
  generated_at: string;
  /** False for a document not (yet) completed: the bundle holds what exists, and says so. */
  completed: boolean;
  status: string;
  note: string | null;
  chain: { events: number; head_hash: string | null };
  /** The delivery stream in `deliveries.jsonl` (format 2 on). */
  deliveries?: { stream_id: string; events: number; head_hash: string | null };
  files: ManifestFile[];
  /**
   * Revisions of events.jsonl served masked (an auditor key's bundle: PIN and link-token hashes
   * "[redacted]", phones and e-mails masked as /history masks them). Their content cannot be
   * re-hashed: the verifier takes their stored hash, still checks every link, every other event's
   * content and the sealed heads over the whole chain (docs/EVIDENCE.md). Absent: nothing masked.
   */
  redacted_events?: number[];
}

/**
 * Events that may never be served masked: the signatures, the completion, the expiry and the seal,
 * whose content the verifier re-hashes. A decline or a cancel may be (its reason can carry a
 * phone number or an e-mail address, masked by the one rule, issue 31 item 6) — but only where
 * the conclusion is certified: the certification's signed facts state every field of it (reason masked,
 * participant, times, actor, IP, user agent), so the verifier checks what it cannot re-hash
 * against them (CERTIFIED_WHEN_REDACTED).
 */
// The certification under both its names (DocumentSealed before issue 35).
export const NEVER_REDACTED: readonly string[] = ['ParticipantSigned', 'DocumentCompleted', 'DocumentExpired', 'DocumentCertified', 'DocumentSealed'];

/** Events that may be served masked only in a bundle format that requires the conclusion's certification. */
export const CERTIFIED_WHEN_REDACTED: readonly string[] = ['ParticipantDeclined', 'DocumentDeclined', 'DocumentCanceled'];

/** One line of events.jsonl (or deliveries.jsonl): a stored event, hashes in its metadata. */
export interface BundledEvent {
  event_id: string;
  stream_id: string;
  stream_revision: number;
  global_position?: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown> & { prev_hash?: string; hash?: string };
  /** Set by the verifier from the signed manifest's `redacted_events` (never read from the line itself). */
  redacted?: boolean;
}
