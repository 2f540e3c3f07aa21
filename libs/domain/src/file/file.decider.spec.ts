import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { FileCommand, fileDecider } from './file.decider';
import { FileEvent, MAX_FILE_BYTES, fileStreamId } from './file.events';

const spec = DeciderSpecification.for(fileDecider);
const T0 = '2026-03-02T09:00:00.000Z';
const SHA = 'ab'.repeat(32);

const upload = (over: Partial<FileCommand> = {}): FileCommand => ({
  type: 'UploadFile',
  file_id: 'file_0123456789abcdef01234567',
  organization_id: 'org_0123456789abcdef01234567',
  livemode: false,
  sha256: SHA,
  byte_size: 1234,
  page_count: 3,
  filename: '근로계약서.pdf',
  now: T0,
  ...over,
});

const uploaded = (): FileEvent => ({
  type: 'FileUploaded',
  data: {
    file_id: 'file_0123456789abcdef01234567',
    organization_id: 'org_0123456789abcdef01234567',
    livemode: false,
    sha256: SHA,
    byte_size: 1234,
    page_count: 3,
    filename: '근로계약서.pdf',
    uploaded_at: T0,
  },
});

describe('file decider', () => {
  it('records an upload: address, size, page count and name, never the bytes', () => {
    const state = spec.given([]).when(upload()).then([uploaded()]);
    expect(state).toMatchObject({ exists: true, id: 'file_0123456789abcdef01234567', sha256: SHA, byte_size: 1234, page_count: 3 });
  });

  it('writes a file once', () => {
    spec.given([uploaded()]).when(upload()).thenThrows('file_exists', 'conflict');
  });

  it.each([
    ['file_id', { file_id: 'doc_123' }],
    ['sha256', { sha256: 'XYZ' }],
    ['byte_size', { byte_size: 0 }],
    ['page_count', { page_count: 0 }],
  ])('refuses a malformed %s', (param, over) => {
    spec.given([]).when(upload(over as Partial<FileCommand>)).thenThrows('invalid_parameter', { kind: 'invalid', param });
  });

  it('keeps the 20 MiB limit as an invariant', () => {
    spec.given([]).when(upload({ byte_size: MAX_FILE_BYTES })).thenEvents((events) => expect(events).toHaveLength(1));
    spec.given([]).when(upload({ byte_size: MAX_FILE_BYTES + 1 })).thenThrows('file_too_large', 'invalid');
  });

  it('names its stream after the file', () => {
    expect(fileStreamId('file_abc')).toBe('file-file_abc');
  });
});
