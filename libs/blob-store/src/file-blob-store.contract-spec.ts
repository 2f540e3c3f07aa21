import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { blobStoreContract } from './blob-store.contract';
import { FileBlobStore } from './file-blob-store.adapter';

const dir = mkdtempSync(path.join(tmpdir(), 'dojang-blobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

blobStoreContract('files', async () => new FileBlobStore(path.join(dir, 'blobs')));
