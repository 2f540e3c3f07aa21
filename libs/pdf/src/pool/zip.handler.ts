import { zipFiles } from '../zip-files';
import type { Bytes, ZipJobInput } from './pdf-jobs';

export default function zipJob(input: ZipJobInput): Bytes {
  return zipFiles(input);
}
