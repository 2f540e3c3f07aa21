import { createHash, X509Certificate } from 'crypto';
import { BodyRef, oneLineDistinguishedName } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';

/**
 * Version 1 carried document and template bodies inline as `content`; version 2 carries a blob ref
 * (`content_blob`). An old body was never put in the blob store, so its ref keeps the text inline
 * and readers take it from there. `content: null` (an uploaded PDF) becomes `content_blob: null`.
 */
function bodyToRef(e: StoredEvent): StoredEvent {
  const { content, ...rest } = e.data as { content?: unknown };
  const data: Record<string, unknown> = { ...rest };
  if (typeof content === 'string') data.content_blob = inlineRef(content);
  else if (content === null) data.content_blob = null;
  return { ...e, data, metadata: { ...e.metadata, schema_version: 2 } };
}

function inlineRef(text: string): BodyRef {
  const bytes = Buffer.from(text, 'utf8');
  return { sha256: createHash('sha256').update(bytes).digest('hex'), byte_size: bytes.length, inline: text };
}

/**
 * SigningCertificateUploaded recorded before distinguished names were decoded by their ASN.1
 * string types carries `O=Acme ì£¼ìíì¬` for `O=Acme 주식회사` (UTF-8 bytes read one byte a
 * character). The certificate itself is in the event (chain_pem[0]): its subject and issuer are
 * derived from it again, so every reader sees the name the certificate holds, and the log stays as
 * it was written. Events recorded since carry the same names, so deriving them again changes
 * nothing there.
 */
function certificateNames(e: StoredEvent): StoredEvent {
  const data = e.data as { certificate?: { chain_pem?: string[]; subject?: string; issuer?: string } };
  const next = { ...e, metadata: { ...e.metadata, schema_version: 3 } };
  const pem = data.certificate?.chain_pem?.[0];
  if (!pem) return next;
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(pem);
  } catch {
    return next; // not a certificate: keep the names as recorded rather than fail every reader
  }
  return { ...next, data: { ...e.data, certificate: { ...data.certificate, subject: oneLineDistinguishedName(x509.subject), issuer: oneLineDistinguishedName(x509.issuer) } } };
}

/**
 * Dojang's certification of a concluded document was called a seal until issue 35, and stored as
 * `DocumentSealed` with `{ seal }`; "seal" now means only a company stamp image (SealCreated). The
 * stored events keep their type and bytes (the type is inside every event's hash, and the chain
 * and the offline verifier read the stored bytes); readers get `DocumentCertified` with
 * `{ certification }`. The schema version stays: the payload inside is the same.
 */
function certificationName(e: StoredEvent): StoredEvent {
  const { seal, ...rest } = e.data as { seal?: unknown };
  return { ...e, type: 'DocumentCertified', data: { ...rest, certification: seal } };
}

/**
 * The one deserialisation boundary where old event shapes become current ones. Stored events are
 * never rewritten; a new schema_version gets an upcaster here instead.
 *
 * Keyed by `${type}@${schema_version}`; each returns the event at the next version.
 */
const upcasters: Record<string, (e: StoredEvent) => StoredEvent> = {
  // Version 1 of ParticipantAdded had no `auth` (every participant signed with an SMS PIN).
  'ParticipantAdded@0': (e) => {
    const participant = (e.data as { participant: Record<string, unknown> }).participant;
    return {
      ...e,
      data: { ...e.data, participant: { auth: 'sms_pin', ...participant } },
      metadata: { ...e.metadata, schema_version: 1 },
    };
  },
  'DocumentCreated@1': bodyToRef,
  'DocumentUpdated@1': bodyToRef,
  'TemplateCreated@1': bodyToRef,
  'SigningCertificateUploaded@1': certificateNames,
  'SigningCertificateUploaded@2': certificateNames,
  'DocumentSealed@1': certificationName,
  'DocumentSealed@2': certificationName,
};

/** Types some version of which has an upcaster: the others pass through without a lookup. */
const UPCAST_TYPES = new Set(Object.keys(upcasters).map((key) => key.slice(0, key.lastIndexOf('@'))));

export function upcast(event: StoredEvent): StoredEvent {
  if (!UPCAST_TYPES.has(event.type)) return event;
  let current = event;
  for (let guard = 0; guard < 20; guard++) {
    const step = upcasters[`${current.type}@${current.metadata.schema_version ?? 1}`];
    if (!step) return current;
    current = step(current);
  }
  return current;
}
