import { zipSync, type Zippable } from 'fflate';
import type { ZipJobInput } from './pool/pdf-jobs';
import { assertOffMainThread } from './main-thread-guard';

/** The ZIP_FILES job's work, callable in-process where no event loop serves requests (tools, tests). */
export function zipFiles(input: ZipJobInput): Uint8Array {
  assertOffMainThread('zipFiles');
  const entries: Zippable = {};
  for (const file of input.files) entries[file.name] = [file.bytes, { level: file.compress ? 6 : 0 }];
  return zipSync(entries, { mtime: new Date(input.mtime) });
}
