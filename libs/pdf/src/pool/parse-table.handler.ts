// Table parsing belongs to bulk send; the worker loads it by relative path (no @dojang/* alias in a worker thread).
import { parseTable, TableInputError } from '../../../application/src/bulk-send/parse-table';
import { bytes, type ParseTableInput, type ParsedTableResult } from './pdf-jobs';

/** Reads an uploaded CSV/XLSX; a file that cannot be read comes back with its problems, not thrown. */
export default async function parseTableJob(input: ParseTableInput): Promise<ParsedTableResult> {
  try {
    const table = await parseTable(bytes(input.bytes), { ...(input.encoding ? { encoding: input.encoding } : {}), maxRecords: input.max_records });
    return { ok: true, ...table };
  } catch (err) {
    if (err instanceof TableInputError) return { ok: false, problems: err.problems };
    throw err;
  }
}
