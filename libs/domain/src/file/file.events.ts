import { DomainEvent } from '../shared/decider';

/** Uploads are PDFs of at most 20 MiB (SPEC: "at most 20MB"; 20 × 1024 × 1024 bytes). */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * An uploaded PDF. The bytes live in the blob store, addressed by their SHA-256; the event carries
 * only the address, the size and what was learnt from parsing it (page count), never the bytes.
 */
export type FileUploaded = DomainEvent<
  'FileUploaded',
  {
    file_id: string;
    organization_id: string;
    livemode: boolean;
    sha256: string;
    byte_size: number;
    page_count: number;
    /** As the client named it (sanitised); informative only, e.g. for the download name. */
    filename: string | null;
    uploaded_at: string;
  }
>;

export type FileEvent = FileUploaded;

export const FILE_EVENT_TYPES: readonly FileEvent['type'][] = ['FileUploaded'];

export const fileStreamId = (fileId: string) => `file-${fileId}`;
