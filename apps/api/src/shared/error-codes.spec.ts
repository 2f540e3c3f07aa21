import * as fs from 'fs';
import * as path from 'path';
import { ERROR_CODES, ERROR_TYPES, PUBLIC_ERROR_CODES } from './error-codes';
import { OPERATIONS } from '../openapi/operations';

const ROOT = path.resolve(__dirname, '../../../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.ts$/.test(e.name) && !/\.spec\.ts$/.test(e.name) ? [p] : [];
  });
}

/**
 * Every error code literal the code base raises, found the way a reviewer would grep for them:
 * the domain's error helpers, ApiError and the hand-written envelopes of the middlewares.
 */
function codesInSource(): Map<string, string> {
  const patterns = [
    /(?<![.\w])(?:invalid|conflict|notFound)\(\s*'([a-z_]+)'/g,
    /ApiError\.notFound\(\s*'([a-z_]+)'/g,
    /new DomainError\(\s*'[a-z_]+',\s*'([a-z_]+)'/g,
    /new ApiError\(\s*\d+,\s*'[a-z_]+',\s*'([a-z_]+)'/g,
    /sendError\([^,]+,[^,]+,\s*\d+,\s*'[a-z_]+',\s*'([a-z_]+)'/g,
    /\bcode:\s*'([a-z_]+)'/g,
    /new PdfLimitError\(\s*'([a-z_]+)'/g,
  ];
  const found = new Map<string, string>();
  const files = ['libs/domain/src', 'libs/seals/src', 'libs/pdf/src', 'apps/api/src'].flatMap((d) => sources(path.join(ROOT, d)));
  for (const file of files) {
    const rel = path.relative(ROOT, file);
    if (rel.startsWith(path.join('apps', 'api', 'src', 'openapi')) || rel.endsWith('error-codes.ts')) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const re of patterns) for (const m of text.matchAll(re)) found.set(m[1], path.relative(ROOT, file));
  }
  // The seal library's codes are a type union.
  const seals = fs.readFileSync(path.join(ROOT, 'libs/seals/src/errors.ts'), 'utf8');
  const union = /SealInputErrorCode\s*=([^;]+);/.exec(seals)?.[1] ?? '';
  for (const m of union.matchAll(/'([a-z_]+)'/g)) found.set(m[1], 'libs/seals/src/errors.ts');
  return found;
}

describe('the error-code catalogue', () => {
  const catalogue = new Set(Object.keys(ERROR_CODES));

  it('holds every code the domain, the seal library and the API raise', () => {
    const found = codesInSource();
    expect(found.size).toBeGreaterThan(40);
    const missing = [...found].filter(([code]) => !catalogue.has(code));
    expect(missing).toEqual([]);
  });

  it('describes each code, with the status and type it is answered with', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect({ code, described: entry.description.length > 10 }).toEqual({ code, described: true });
      expect(ERROR_TYPES).toContain(entry.type);
      expect(entry.status >= 400 && entry.status < 600).toBe(true);
    }
  });

  it('lists only catalogued, public codes on operations', () => {
    for (const [id, spec] of Object.entries(OPERATIONS)) {
      for (const code of spec.errors) expect({ id, code, public: PUBLIC_ERROR_CODES.includes(code) }).toEqual({ id, code, public: true });
    }
  });
});
