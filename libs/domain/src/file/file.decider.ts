import { Decider, assertNever } from '../shared/decider';
import { conflict, invalid } from '../shared/domain-error';
import { FileEvent, MAX_FILE_BYTES } from './file.events';

export interface FileState {
  exists: boolean;
  id: string;
  organization_id: string;
  livemode: boolean;
  sha256: string;
  byte_size: number;
  page_count: number;
  filename: string | null;
  uploaded_at: string;
}

export const initialFileState = (): FileState => ({
  exists: false,
  id: '',
  organization_id: '',
  livemode: false,
  sha256: '',
  byte_size: 0,
  page_count: 0,
  filename: null,
  uploaded_at: '',
});

/** The caller has already parsed the PDF and stored its bytes; the command records the result. */
export type FileCommand = {
  type: 'UploadFile';
  file_id: string;
  organization_id: string;
  livemode: boolean;
  sha256: string;
  byte_size: number;
  page_count: number;
  filename: string | null;
  now: string;
};

const FILE_ID = /^file_[A-Za-z0-9]{8,64}$/;
const SHA256 = /^[0-9a-f]{64}$/;

export function evolveFile(state: FileState, event: FileEvent): FileState {
  switch (event.type) {
    case 'FileUploaded': {
      const d = event.data;
      return {
        exists: true,
        id: d.file_id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        sha256: d.sha256,
        byte_size: d.byte_size,
        page_count: d.page_count,
        filename: d.filename,
        uploaded_at: d.uploaded_at,
      };
    }
    default:
      return assertNever(event.type);
  }
}

export function decideFile(command: FileCommand, state: FileState): FileEvent[] {
  switch (command.type) {
    case 'UploadFile': {
      // A file is written once; ids are random, so a second upload under the same id is a bug.
      if (state.exists) throw conflict('file_exists', 'The file already exists.');
      if (!FILE_ID.test(command.file_id)) throw invalid('invalid_parameter', 'file_id is not a file id.', 'file_id');
      if (!SHA256.test(command.sha256)) throw invalid('invalid_parameter', 'sha256 must be 64 lowercase hex digits.', 'sha256');
      if (!(Number.isInteger(command.byte_size) && command.byte_size > 0)) {
        throw invalid('invalid_parameter', 'byte_size must be a positive integer.', 'byte_size');
      }
      // The API refuses oversized uploads while streaming (413); this keeps the invariant in the record.
      if (command.byte_size > MAX_FILE_BYTES) throw invalid('file_too_large', `A file may be at most ${MAX_FILE_BYTES} bytes.`, 'file');
      if (!(Number.isInteger(command.page_count) && command.page_count >= 1)) {
        throw invalid('invalid_parameter', 'page_count must be a positive integer.', 'page_count');
      }
      return [
        {
          type: 'FileUploaded',
          data: {
            file_id: command.file_id,
            organization_id: command.organization_id,
            livemode: command.livemode,
            sha256: command.sha256,
            byte_size: command.byte_size,
            page_count: command.page_count,
            filename: command.filename,
            uploaded_at: command.now,
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const fileDecider: Decider<FileState, FileCommand, FileEvent> = {
  initialState: initialFileState,
  evolve: evolveFile,
  decide: decideFile,
};
