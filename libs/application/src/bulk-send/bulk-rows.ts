import { isBuiltInKeyName, MAX_BULK_SEND_ROWS, ROLE_COLUMN_HINT, TemplateState, keyName, roleColumnKey } from '@dojang/domain';
import { isStorableText } from '@dojang/event-store';
import type { ParsedTableResult } from '@dojang/pdf';

/** One row of a bulk send, in the shape a template send takes. `row` counts data rows from 1. */
export interface BulkRow {
  row: number;
  roles: Record<string, Record<string, string>>;
  variables: Record<string, unknown>;
  values: Record<string, unknown>;
  metadata: Record<string, string>;
  external_id: string | null;
  /** The row's own document title (a `title` or `제목` column); absent: the job's title, its {{variables}} filled from the row. */
  title?: string | null;
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
/** The row's document title. */
const TITLE_COLUMNS = ['title', '제목'];
export const MAX_METADATA_KEY = 40;
export const MAX_METADATA_VALUE = 500;

/**
 * An uploaded CSV/XLSX read in the PDF pool (parse-table.ts beside this file, run by the pool's
 * `table.parse` job: csv-parse, iconv-lite for EUC-KR, exceljs): parsing 10 MB on the API's event loop would stall every request meanwhile.
 * Problems with the file itself come back as a BulkInputError; the rows are then checked here.
 */
export async function readUploadedTable(
  pdf: { parseTable(bytes: Buffer, options: { encoding?: string; maxRecords: number }, tenant?: string): Promise<ParsedTableResult> },
  bytes: Buffer,
  encoding: string | undefined,
  tenant?: string,
): Promise<{ header: string[]; records: string[][] }> {
  const parsed = await pdf.parseTable(bytes, { ...(encoding !== undefined ? { encoding } : {}), maxRecords: MAX_BULK_SEND_ROWS }, tenant);
  if (!parsed.ok) throw new BulkInputError(parsed.problems);
  return { header: parsed.header, records: parsed.records };
}

/**
 * Columns, checked against the template: `<role>.name|email|phone|auth` (or 이름, 이메일, 휴대폰,
 * 인증), `variables.<name>`, `values.<field id>`, `metadata.<key>`, `external_id` and `title` (or
 * `제목`). Any other column without a dot (`사번`, `employee_no`) is kept in the document's
 * metadata under its own name, so an HR export maps back without renaming its columns. A dotted
 * column the template cannot use is an error (a typo such as `employe.phone` would otherwise send
 * contracts without the data).
 */
export function rowsFromTable(template: Pick<TemplateState, 'roles' | 'fields' | 'variables'>, header: string[], records: string[][]): { rows: BulkRow[]; errors: RowError[] } {
  const errors: RowError[] = [];
  const roles = new Set(template.roles.map((r) => r.role));
  const fields = new Set(template.fields.map((f) => f.id));
  const variables = new Set(template.variables);
  // Each column by what it gives (its canonical name) → the header as written.
  const seen = new Map<string, string>();
  const columns = header.map((raw) => {
    const trimmed = raw.trim();
    if (!isStorableText(trimmed)) {
      errors.push({ row: null, column: trimmed, code: 'invalid_parameter', message: 'A column name in the header holds a control character (NUL or another C0 character) or is not valid Unicode text.' });
      return null;
    }
    // Composed, as role names and placeholders are: a sheet saved on a Mac heads 직원 decomposed.
    const name = keyName(trimmed);
    if (!name) errors.push({ row: null, column: name, code: 'invalid_parameter', message: 'A column has no name in the header.' });
    const col = columnOfHeader(name);
    if (!col) return null;
    // Two headers for one thing (직원.휴대폰 and 직원.phone) would silently keep the last: refused.
    const before = seen.get(col.column);
    if (before !== undefined) {
      const how = before === name ? `Column "${name}" appears twice in the header.` : `Columns "${before}" and "${name}" both give ${col.column}: keep one.`;
      errors.push({ row: null, column: col.column, code: 'invalid_parameter', message: how });
    }
    seen.set(col.column, name);
    return col;
  });

  /**
   * What a header names, with its canonical name (`column`), the one every error and warning uses
   * whatever the sheet wrote: `직원.휴대폰` is `직원.phone`, `제목` is `title`, a plain `사번` is
   * `metadata.사번` (the API's own names, as a JSON row and the template send's params say them).
   */
  function columnOfHeader(name: string) {
    const dot = name.indexOf('.');
    const head = dot < 0 ? name : name.slice(0, dot);
    const key = dot < 0 ? '' : name.slice(dot + 1);
    if (name === 'external_id') return { kind: 'external_id' as const, name, key, column: 'external_id' };
    if (TITLE_COLUMNS.includes(name)) return { kind: 'title' as const, name, key, column: 'title' };
    if (head === 'variables' && variables.has(key)) return { kind: 'variables' as const, name, key, column: name };
    if (head === 'values' && fields.has(key)) return { kind: 'values' as const, name, key, column: name };
    if (head === 'metadata' && isBuiltInKeyName(key)) {
      errors.push({ row: null, column: name, code: 'invalid_parameter', message: `Column "${name}": "${key}" is the name of a built-in property of JavaScript objects and cannot be a metadata key.` });
      return null;
    }
    if (head === 'metadata' && key.length > 0 && key.length <= MAX_METADATA_KEY) return { kind: 'metadata' as const, name, key, column: name };
    const roleKey = roleColumnKey(key);
    if (roles.has(head) && roleKey) return { kind: 'role' as const, name, key: roleKey, role: head, column: `${head}.${roleKey}` };
    if (name && dot < 0 && !roles.has(name) && name.length <= MAX_METADATA_KEY) {
      if (isBuiltInKeyName(name)) {
        errors.push({ row: null, column: name, code: 'invalid_parameter', message: `Column "${name}" is the name of a built-in property of JavaScript objects and cannot be a metadata key.` });
        return null;
      }
      return { kind: 'metadata' as const, name, key: name, column: `metadata.${name}` };
    }
    if (name) {
      errors.push({
        row: null,
        column: name,
        code: 'invalid_parameter',
        message: `Column "${name}" is not one this template takes: <role>.${ROLE_COLUMN_HINT} for roles ${[...roles].join(', ') || '(none)'}, variables.<name> for ${[...variables].join(', ') || '(none)'}, values.<field id>, metadata.<key> (or a name without a dot, of at most ${MAX_METADATA_KEY} characters), external_id, title.`,
      });
    }
    return null;
  }
  if (errors.length) return { rows: [], errors };
  if (records.length > MAX_BULK_SEND_ROWS) return { rows: [], errors: [{ row: null, column: null, code: 'invalid_parameter', message: `A bulk send holds at most ${MAX_BULK_SEND_ROWS} rows; this file has ${records.length}.` }] };
  const rows = records.map((cells, i): BulkRow => {
    // Keys come from the header, the client's own words: null-prototype maps, where `constructor`
    // is a key like any other rather than the built-in Object function (whose `name` a column
    // `constructor.name` tried to assign).
    const row: BulkRow = { row: i + 1, roles: Object.create(null), variables: Object.create(null), values: Object.create(null), metadata: Object.create(null), external_id: null };
    if (cells.length !== header.length) {
      errors.push({ row: i + 1, column: null, code: 'invalid_parameter', message: `Row ${i + 1} has ${cells.length} cells; the header has ${header.length} columns.` });
    }
    columns.forEach((col, j) => {
      const value = cells[j] ?? '';
      if (!col || value === '') return;
      // The canonical name, and the header as written when the sheet wrote it otherwise.
      const where = col.name === col.column ? col.column : `${col.column} (headed "${col.name}")`;
      if (value.length > MAX_CELL_CHARACTERS) {
        errors.push({ row: i + 1, column: col.column, code: 'invalid_parameter', message: `Row ${i + 1}, column ${where}: at most ${MAX_CELL_CHARACTERS} characters.` });
        return;
      }
      if (!isStorableText(value)) {
        errors.push({ row: i + 1, column: col.column, code: 'invalid_parameter', message: `Row ${i + 1}, column ${where}: holds a control character (NUL or another C0 character other than tab, line feed or carriage return) or is not valid Unicode text.` });
        return;
      }
      if (col.kind === 'external_id') row.external_id = value;
      else if (col.kind === 'title') row.title = value;
      else if (col.kind === 'role') (row.roles[col.role] ??= Object.create(null) as Record<string, string>)[col.key] = value;
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
      if (!['roles', 'variables', 'values', 'metadata', 'external_id', 'title'].includes(key)) errors.push({ row: i + 1, column: key, code: 'invalid_parameter', message: `rows[${i}].${key} is not a row property (roles, variables, values, metadata, external_id, title).` });
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
    if (raw.title !== undefined && raw.title !== null) {
      if (typeof raw.title !== 'string') errors.push({ row: i + 1, column: 'title', code: 'invalid_parameter', message: `rows[${i}].title must be a string.` });
      else row.title = raw.title;
    }
    return row;
  });
  return { rows, errors };
}
