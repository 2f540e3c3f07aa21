import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowKey, RowLookup } from './projection';

/** Final PDFs this installation issued, by the SHA-256 of their bytes (the public verify page's index). */
export const ISSUED_PDFS = 'issued_pdfs';
/** The same PDFs by the chain head their signature sealed: tells "altered" from "never issued" for a PDF whose bytes no longer match. */
export const ISSUED_PDF_HEADS = 'issued_pdf_heads';

export interface IssuedPdfRow extends ReadDoc {
  /** SHA-256 of the final PDF. */
  id: string;
  document_id: string;
  organization_id: string | null;
  livemode: boolean;
  byte_size: number;
  completed_at: string;
  /** The head DocumentCompleted.chain_head sealed (and the PDF's DojangChainHead names); null for completions before heads. */
  chain_head_hash: string | null;
}

export interface IssuedPdfHeadRow extends ReadDoc {
  /** The sealed chain head hash. */
  id: string;
  final_sha256: string;
  document_id: string;
}

interface Completion {
  final_pdf?: { sha256: string; byte_size: number } | null;
  completed_at?: string;
  chain_head?: { hash: string } | null;
}

interface ArchiveTimestamp {
  final_pdf: { sha256: string; byte_size: number };
  previous_final_sha256: string;
}

const documentIdOf = (event: StoredEvent) => event.stream_id.replace(/^document-/, '');

/**
 * One row per final PDF a DocumentCompleted records, and one per file the archive job made from it
 * (DocumentArchiveTimestamped: the same completion and chain head, read from the previous file's
 * row; the head keeps naming the completion's file, which is enough to call a PDF carrying that
 * head but matching neither file "altered"). Each row is a function of the events alone, so
 * replaying the log writes the same rows: twice is once.
 */
export const issuedPdfProjection: Projection = {
  name: 'issued_pdfs',
  // 2: re-timestamped final PDFs (DocumentArchiveTimestamped) are issued too.
  version: 2,
  collections: [{ name: ISSUED_PDFS }, { name: ISSUED_PDF_HEADS }],
  handles: new Set(['DocumentCompleted', 'DocumentArchiveTimestamped']),
  keys(event: StoredEvent): RowKey[] {
    if (event.type === 'DocumentArchiveTimestamped') {
      const archived = event.data as unknown as ArchiveTimestamp;
      return [
        { collection: ISSUED_PDFS, id: archived.previous_final_sha256 },
        { collection: ISSUED_PDFS, id: archived.final_pdf.sha256 },
      ];
    }
    const data = event.data as Completion;
    if (!data.final_pdf?.sha256) return [];
    return [{ collection: ISSUED_PDFS, id: data.final_pdf.sha256 }, ...(data.chain_head?.hash ? [{ collection: ISSUED_PDF_HEADS, id: data.chain_head.hash }] : [])];
  },
  evolve(event: StoredEvent, rows: RowLookup): Write[] {
    if (event.type === 'DocumentArchiveTimestamped') {
      const archived = event.data as unknown as ArchiveTimestamp;
      const previous = rows(ISSUED_PDFS, archived.previous_final_sha256) as IssuedPdfRow | null;
      if (!previous) return [];
      const row: IssuedPdfRow = {
        id: archived.final_pdf.sha256,
        document_id: previous.document_id,
        organization_id: previous.organization_id,
        livemode: previous.livemode,
        byte_size: archived.final_pdf.byte_size,
        completed_at: previous.completed_at,
        chain_head_hash: previous.chain_head_hash,
      };
      return [{ op: 'put', collection: ISSUED_PDFS, doc: row }];
    }
    const data = event.data as Completion;
    const final = data.final_pdf;
    if (!final?.sha256) return [];
    const document_id = documentIdOf(event);
    const row: IssuedPdfRow = {
      id: final.sha256,
      document_id,
      organization_id: event.metadata.organization_id ?? null,
      livemode: event.metadata.livemode === true,
      byte_size: final.byte_size,
      completed_at: data.completed_at ?? event.metadata.occurred_at,
      chain_head_hash: data.chain_head?.hash ?? null,
    };
    const writes: Write[] = [{ op: 'put', collection: ISSUED_PDFS, doc: row }];
    if (row.chain_head_hash) {
      const head: IssuedPdfHeadRow = { id: row.chain_head_hash, final_sha256: final.sha256, document_id };
      writes.push({ op: 'put', collection: ISSUED_PDF_HEADS, doc: head });
    }
    return writes;
  },
};
