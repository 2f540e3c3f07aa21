/**
 * Reading an uploaded bulk-send table (CSV in UTF-8 or EUC-KR, XLSX) into a header and records.
 * It belongs to bulk send, whose rows it reads, and runs only in the PDF pool (job `table.parse`,
 * libs/pdf/src/pool/parse-table.handler.ts): csv-parse and exceljs are CPU-heavy on a large file.
 * Nothing else imports it (dependency rule table-parsing-runs-in-the-pool), and it imports no
 * application code, so the worker that loads it loads only the parsers.
 */
import { parse } from 'csv-parse/sync';
import * as iconv from 'iconv-lite';
// Relative, not @dojang/pdf: a PDF pool worker loads this file (pool/parse-table.handler.ts), and a
// worker thread resolves no @dojang/* alias; the guard is the one libs/pdf file it needs.
import { assertOffMainThread } from '../../../pdf/src/main-thread-guard';

/** A refusal of an uploaded table as a whole (header, encoding) or of one row. */
export interface TableProblem {
  /** null: the header or the file itself. */
  row: number | null;
  column: string | null;
  code: string;
  message: string;
}

export class TableInputError extends Error {
  constructor(readonly problems: TableProblem[]) {
    super(problems[0]?.message ?? 'The table cannot be read.');
    this.name = 'TableInputError';
  }
}

export interface ParsedTable {
  header: string[];
  records: string[][];
}

/**
 * A table's text: UTF-8 with or without a BOM, or EUC-KR (what Excel in Korea saves as "CSV"). A
 * named encoding wins; otherwise bytes that are not valid UTF-8 are read as EUC-KR (CP949) by
 * iconv-lite, the maintained codec library Node has no built-in for.
 */
export function decodeTable(bytes: Uint8Array, encoding?: string): string {
  const named = encoding?.trim().toLowerCase();
  if (named && !['utf-8', 'utf8', 'euc-kr', 'cp949'].includes(named)) {
    throw new TableInputError([{ row: null, column: null, code: 'invalid_parameter', message: `encoding must be utf-8 or euc-kr; got "${encoding}".` }]);
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (named === 'euc-kr' || named === 'cp949') {
    const text = iconv.decode(buffer, 'cp949');
    const bad = firstBadLine(text);
    if (bad !== null) throw new TableInputError([encodingProblem(bad, `The file is not valid EUC-KR (CP949): line ${bad} holds bytes that are not; send it as UTF-8 or fix that line.`)]);
    return text;
  }
  const body = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? buffer.subarray(3) : buffer;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    const utf8Line = firstBadLine(new TextDecoder('utf-8').decode(body)) ?? 1;
    if (named) throw new TableInputError([encodingProblem(utf8Line, `The file is not valid UTF-8 (line ${utf8Line} holds bytes that are not); send it as UTF-8 or say encoding=euc-kr.`)]);
    // Read as EUC-KR only when it is valid EUC-KR: a UTF-8 file with one bad byte was read whole as
    // EUC-KR and every Korean name sent garbled (issue 33 §14).
    const text = iconv.decode(buffer, 'cp949');
    if (firstBadLine(text) === null) return text;
    throw new TableInputError([
      encodingProblem(utf8Line, `The file is neither valid UTF-8 (line ${utf8Line} holds bytes that are not) nor valid EUC-KR; save it as UTF-8 (or EUC-KR) and upload it again.`),
    ]);
  }
}

/** The 1-based line of the first character a decoder could not read (U+FFFD), or null. */
function firstBadLine(text: string): number | null {
  const at = text.indexOf('\ufffd');
  if (at < 0) return null;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** A problem on `line`: line 1 is the header; line n > 1 is data row n − 1 (as rows are counted, quoted line breaks aside). */
function encodingProblem(line: number, message: string): TableProblem {
  return { row: line > 1 ? line - 1 : null, column: null, code: 'invalid_parameter', message };
}

/**
 * CSV (csv-parse: quoting, embedded newlines, CRLF) into a header and records of strings. At most
 * `maxRecords` data rows are read: a longer file is refused without parsing the rest.
 */
export function parseCsvTable(text: string, maxRecords = Number.POSITIVE_INFINITY): ParsedTable {
  assertOffMainThread('CSV parsing');
  let records: string[][];
  try {
    records = parse(text, {
      relax_column_count: false,
      skip_empty_lines: true,
      trim: true,
      max_record_size: 1_000_000,
      // The header and one row past the limit: enough to say the file is too long.
      ...(Number.isFinite(maxRecords) ? { to: maxRecords + 2 } : {}),
    }) as string[][];
  } catch (err) {
    const e = err as Error & { lines?: number; code?: string };
    throw new TableInputError([{ row: typeof e.lines === 'number' ? Math.max(1, e.lines - 1) : null, column: null, code: 'invalid_parameter', message: `The CSV cannot be read: ${e.message}` }]);
  }
  if (records.length === 0) throw new TableInputError([{ row: null, column: null, code: 'missing_parameter', message: 'The CSV is empty: the first line names the columns (e.g. employee.name,employee.phone).' }]);
  return { header: records[0], records: records.slice(1) };
}

/** The first worksheet of an XLSX (exceljs), its first row the header, every cell as its text. */
export async function parseXlsxTable(bytes: Uint8Array, maxRecords = Number.POSITIVE_INFINITY): Promise<ParsedTable> {
  assertOffMainThread('XLSX parsing');
  // Loaded when used: exceljs is large and only bulk uploads need it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ExcelJS = require('exceljs') as typeof import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  } catch (err) {
    throw new TableInputError([{ row: null, column: null, code: 'invalid_parameter', message: `The XLSX cannot be read: ${(err as Error).message}` }]);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet || sheet.rowCount === 0) throw new TableInputError([{ row: null, column: null, code: 'missing_parameter', message: 'The workbook\'s first sheet is empty: its first row names the columns.' }]);
  const width = sheet.getRow(1).cellCount;
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (r) => {
    if (rows.length > maxRecords + 1) return;
    const cells: string[] = [];
    for (let i = 1; i <= width; i++) cells.push(r.getCell(i).text.trim());
    rows.push(cells);
  });
  return { header: rows[0], records: rows.slice(1).filter((r) => r.some((c) => c !== '')) };
}

/** An XLSX is a ZIP: it starts with PK\x03\x04. */
export const isXlsxBytes = (bytes: Uint8Array) => bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/** An uploaded CSV (any of its encodings) or XLSX, read as a table: what the pool job does. */
export async function parseTable(bytes: Uint8Array, options: { encoding?: string; maxRecords?: number } = {}): Promise<ParsedTable> {
  return isXlsxBytes(bytes) ? parseXlsxTable(bytes, options.maxRecords) : parseCsvTable(decodeTable(bytes, options.encoding), options.maxRecords);
}
