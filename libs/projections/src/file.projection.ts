import { FILE_EVENT_TYPES, FileUploaded } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection } from './projection';

export const FILES = 'files';

/** An uploaded PDF, looked up by id when a file URL is served or used as a document's file_url. */
export interface FileRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
  sha256: string;
  byte_size: number;
  page_count: number;
  filename: string | null;
  created_at: string;
}

export const fileProjection: Projection = {
  name: 'files',
  collections: [{ name: FILES }],
  handles: new Set(FILE_EVENT_TYPES),
  keys: (event) => [{ collection: FILES, id: String(event.data.file_id) }],
  evolve(event: StoredEvent): Write[] {
    const d = (event as unknown as FileUploaded).data;
    const row: FileRow = {
      id: d.file_id,
      organization_id: d.organization_id,
      livemode: d.livemode,
      sha256: d.sha256,
      byte_size: d.byte_size,
      page_count: d.page_count,
      filename: d.filename,
      created_at: d.uploaded_at,
    };
    return [{ op: 'put', collection: FILES, doc: row }];
  },
};
