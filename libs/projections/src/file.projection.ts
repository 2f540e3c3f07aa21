import { FILE_EVENT_TYPES, FileEvent, evolveFile, initialFileState } from '@dojang/domain';
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
    // The domain's own fold, as the documents projection does: one place knows what an upload records.
    const { exists, uploaded_at, ...file } = evolveFile(initialFileState(), event as unknown as FileEvent);
    if (!exists) return [];
    const row: FileRow = { ...file, created_at: uploaded_at };
    return [{ op: 'put', collection: FILES, doc: row }];
  },
};
