import { parse } from 'csv-parse/sync';
import * as iconv from 'iconv-lite';
import { MAX_BULK_SEND_ROWS, TemplateState } from '@dojang/domain';

/** One row of a bulk send, in the shape a template send takes. `row` counts data rows from 1. */
export interface BulkRow {
  row: number;
  roles: Record<string, Record<string, string>>;
  variables: Record<string, unknown>;
  values: Record<string, unknown>;
  metadata: Record<string, string>;
  external_id: string | null;
}

/** A refusal of the input as a whole (header, encoding) or of one row and column. */
export interface RowError {
  /** null: the header or the file itself. */
  row: number | null;
  column: string | null;
  code: string;
  message: string;
}

export class BulkInputError extends Error {
  constructor(readonly errors: RowError[]) {
    super(errors[0]?.message ?? 'The rows cannot be read.');
  }
}

export const MAX_BULK_UPLOAD_BYTES = 10 * 1024 * 1024;
export const MAX_CELL_CHARACTERS = 10_000;
export const MAX_EXTERNAL_ID = 200;
const ROLE_KEYS = ['name', 'email', 'phone', 'auth'];

/**
 * A table's text: UTF-8 with or without a BOM, or EUC-KR (what Excel in Korea saves as "CSV"). A
 * named encoding wins; otherwise bytes that are not valid UTF-8 are read as EUC-KR (CP949) by
 * iconv-lite, the maintained codec library Node has no built-in for.
 */
export function decodeTable(bytes: Buffer, encoding?: string): string {
  const named = encoding?.trim().toLowerCase();
  if (named && !['utf-8', 'utf8', 'euc-kr', 'cp949'].includes(named)) {
    throw new BulkInputError([{ row: null, column: null, code: 'invalid_parameter', message: `encoding must be utf-8 or euc-kr; got "${encoding}".` }]);
  }
  if (named === 'euc-kr' || named === 'cp949') return iconv.decode(bytes, 'cp949');
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    if (named) throw new BulkInputError([{ row: null, column: null, code: 'invalid_parameter', message: 'The file is not valid UTF-8; send it as UTF-8 or say encoding=euc-kr.' }]);
    return iconv.decode(bytes, 'cp949');
  }
}

/** CSV (csv-parse: quoting, embedded newlines, CRLF) into a header and records of strings. */
export function parseCsvTable(text: string): { header: string[]; records: string[][] } {
  let records: string[][];
  try {
    records = parse(text, { relax_column_count: false, skip_empty_lines: true, trim: true, max_record_size: 1_000_000 }) as string[][];
  } catch (err) {
    const e = err as Error & { lines?: number; code?: string };
    throw new BulkInputError([{ row: typeof e.lines === 'number' ? Math.max(1, e.lines - 1) : null, column: null, code: 'invalid_parameter', message: `The CSV cannot be read: ${e.message}` }]);
  }
  if (records.length === 0) throw new BulkInputError([{ row: null, column: null, code: 'missing_parameter', message: 'The CSV is empty: the first line names the columns (e.g. employee.name,employee.phone).' }]);
  return { header: records[0], records: records.slice(1) };
}

/** The first worksheet of an XLSX (exceljs), its first row the header, every cell as its text. */
export async function parseXlsxTable(bytes: Buffer): Promise<{ header: string[]; records: string[][] }> {
  // Loaded when used: exceljs is large and only bulk uploads need it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ExcelJS = require('exceljs') as typeof import('exceljs');
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (err) {
    throw new BulkInputError([{ row: null, column: null, code: 'invalid_parameter', message: `The XLSX cannot be read: ${(err as Error).message}` }]);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet || sheet.rowCount === 0) throw new BulkInputError([{ row: null, column: null, code: 'missing_parameter', message: 'The workbook\'s first sheet is empty: its first row names the columns.' }]);
  const width = sheet.getRow(1).cellCount;
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (r) => {
    const cells: string[] = [];
    for (let i = 1; i <= width; i++) cells.push(r.getCell(i).text.trim());
    rows.push(cells);
  });
  return { header: rows[0], records: rows.slice(1).filter((r) => r.some((c) => c !== '')) };
}

/**
 * Columns, checked against the template: `<role>.name|email|phone|auth`, `variables.<name>`,
 * `values.<field id>`, `metadata.<key>` and `external_id`. A column the template cannot use is an
 * error (a typo would otherwise send contracts without the data).
 */
export function rowsFromTable(template: Pick<TemplateState, 'roles' | 'fields' | 'variables'>, header: string[], records: string[][]): { rows: BulkRow[]; errors: RowError[] } {
  const errors: RowError[] = [];
  const roles = new Set(template.roles.map((r) => r.role));
  const fields = new Set(template.fields.map((f) => f.id));
  const variables = new Set(template.variables);
  const seen = new Set<string>();
  const columns = header.map((raw) => {
    const name = raw.trim();
    if (!name) errors.push({ row: null, column: name, code: 'invalid_parameter', message: 'A column has no name in the header.' });
    else if (seen.has(name)) errors.push({ row: null, column: name, code: 'invalid_parameter', message: `Column "${name}" appears twice in the header.` });
    seen.add(name);
    const dot = name.indexOf('.');
    const head = dot < 0 ? name : name.slice(0, dot);
    const key = dot < 0 ? '' : name.slice(dot + 1);
    if (name === 'external_id') return { kind: 'external_id' as const, name, key };
    if (head === 'variables' && variables.has(key)) return { kind: 'variables' as const, name, key };
    if (head === 'values' && fields.has(key)) return { kind: 'values' as const, name, key };
    if (head === 'metadata' && key.length > 0 && key.length <= 40) return { kind: 'metadata' as const, name, key };
    if (roles.has(head) && ROLE_KEYS.includes(key)) return { kind: 'role' as const, name, key, role: head };
    if (name) {
      errors.push({
        row: null,
        column: name,
        code: 'invalid_parameter',
        message: `Column "${name}" is not one this template takes: <role>.name|email|phone|auth for roles ${[...roles].join(', ') || '(none)'}, variables.<name> for ${[...variables].join(', ') || '(none)'}, values.<field id>, metadata.<key>, external_id.`,
      });
    }
    return null;
  });
  if (errors.length) return { rows: [], errors };
  if (records.length > MAX_BULK_SEND_ROWS) return { rows: [], errors: [{ row: null, column: null, code: 'invalid_parameter', message: `A bulk send holds at most ${MAX_BULK_SEND_ROWS} rows; this file has ${records.length}.` }] };
  const rows = records.map((cells, i): BulkRow => {
    const row: BulkRow = { row: i + 1, roles: {}, variables: {}, values: {}, metadata: {}, external_id: null };
    if (cells.length !== header.length) {
      errors.push({ row: i + 1, column: null, code: 'invalid_parameter', message: `Row ${i + 1} has ${cells.length} cells; the header has ${header.length} columns.` });
    }
    columns.forEach((col, j) => {
      const value = cells[j] ?? '';
      if (!col || value === '') return;
      if (value.length > MAX_CELL_CHARACTERS) {
        errors.push({ row: i + 1, column: col.name, code: 'invalid_parameter', message: `Row ${i + 1}, column ${col.name}: at most ${MAX_CELL_CHARACTERS} characters.` });
        return;
      }
      if (col.kind === 'external_id') row.external_id = value;
      else if (col.kind === 'role') (row.roles[col.role] ??= {})[col.key] = value;
      else row[col.kind][col.key] = value;
    });
    return row;
  });
  return { rows, errors };
}

/** JSON rows (`rows: [{ roles, variables, values, metadata, external_id }]`), shapes checked per row. */
export function rowsFromJson(input: unknown): { rows: BulkRow[]; errors: RowError[] } {
  if (!Array.isArray(input)) return { rows: [], errors: [{ row: null, column: 'rows', code: 'invalid_parameter', message: 'rows must be an array of { roles, variables, values, metadata, external_id }.' }] };
  if (input.length === 0) return { rows: [], errors: [{ row: null, column: 'rows', code: 'missing_parameter', message: 'rows must hold at least one row.' }] };
  if (input.length > MAX_BULK_SEND_ROWS) return { rows: [], errors: [{ row: null, column: 'rows', code: 'invalid_parameter', message: `A bulk send holds at most ${MAX_BULK_SEND_ROWS} rows; this one has ${input.length}.` }] };
  const errors: RowError[] = [];
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const rows = input.map((raw, i): BulkRow => {
    const row: BulkRow = { row: i + 1, roles: {}, variables: {}, values: {}, metadata: {}, external_id: null };
    if (!isRecord(raw)) {
      errors.push({ row: i + 1, column: null, code: 'invalid_parameter', message: `rows[${i}] must be an object.` });
      return row;
    }
    for (const key of Object.keys(raw)) {
      if (!['roles', 'variables', 'values', 'metadata', 'external_id'].includes(key)) errors.push({ row: i + 1, column: key, code: 'invalid_parameter', message: `rows[${i}].${key} is not a row property (roles, variables, values, metadata, external_id).` });
    }
    for (const key of ['roles', 'variables', 'values', 'metadata'] as const) {
      const v = raw[key];
      if (v === undefined) continue;
      if (!isRecord(v)) errors.push({ row: i + 1, column: key, code: 'invalid_parameter', message: `rows[${i}].${key} must be an object.` });
      else (row as unknown as Record<string, unknown>)[key] = v;
    }
    if (raw.external_id !== undefined && raw.external_id !== null) {
      if (typeof raw.external_id !== 'string') errors.push({ row: i + 1, column: 'external_id', code: 'invalid_parameter', message: `rows[${i}].external_id must be a string.` });
      else row.external_id = raw.external_id;
    }
    return row;
  });
  return { rows, errors };
}
