/**
 * The evidence bundle's layout, shared by the API that writes it and the verifier that reads it.
 * A bundle is one ZIP; every name below is a file at its root.
 */
export const BUNDLE_FORMAT = 'dojang-evidence/1';

export const BUNDLE_FILES = {
  manifest: 'manifest.json',
  /** The document stream, one stored event per line, exactly as the event store holds it. */
  events: 'events.jsonl',
  original: 'original.pdf',
  final: 'final.pdf',
  auditCertificate: 'audit-certificate.pdf',
  /** The document-signing certificate first, then any intermediates (PEM). */
  signingChain: 'signing-chain.pem',
} as const;

export interface ManifestFile {
  name: string;
  sha256: string;
  byte_size: number;
}

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT;
  document_id: string;
  generated_at: string;
  /** False for a document not (yet) completed: the bundle holds what exists, and says so. */
  completed: boolean;
  status: string;
  note: string | null;
  chain: { events: number; head_hash: string | null };
  files: ManifestFile[];
}

/** One line of events.jsonl: a stored event, hashes in its metadata. */
export interface BundledEvent {
  event_id: string;
  stream_id: string;
  stream_revision: number;
  global_position?: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown> & { prev_hash?: string; hash?: string };
}
