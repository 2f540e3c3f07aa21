import { inflateSync } from 'node:zlib';

/**
 * A decompression bomb is a few kilobytes of deflate that inflate to gigabytes. The parser
 * (pdf-lib) inflates every object stream and cross-reference stream whole as it loads a file, into
 * typed arrays that live outside the V8 heap, so the pool's heap limit does not stop it. These
 * budgets are checked first, on the raw bytes, with zlib's own output cap: the work is bounded by
 * them, whatever the file claims. Real files stay far below (an object stream holds a few hundred
 * objects, a cross-reference stream 5 to 20 bytes per object).
 */
export const MAX_INFLATED_STREAM_BYTES = 16 * 1024 * 1024;
export const MAX_INFLATED_TOTAL_BYTES = 64 * 1024 * 1024;

const STREAM = Buffer.from('stream', 'latin1');
const ENDSTREAM = Buffer.from('endstream', 'latin1');
const KINDS = [Buffer.from('/ObjStm', 'latin1'), Buffer.from('/XRef', 'latin1')];
const FLATE = /\/FlateDecode/;

/** Why inflating the streams the parser would inflate exceeds the budget, or null when it does not. */
export function inflationProblem(bytes: Buffer, budget = { stream: MAX_INFLATED_STREAM_BYTES, total: MAX_INFLATED_TOTAL_BYTES }): string | null {
  let total = 0;
  for (const kind of KINDS) {
    for (let at = bytes.indexOf(kind); at >= 0; at = bytes.indexOf(kind, at + kind.length)) {
      const keyword = bytes.indexOf(STREAM, at);
      if (keyword < 0) break;
      // The dictionary between the type and its stream must ask for Flate; other filters pdf-lib does not inflate at load.
      if (!FLATE.test(bytes.toString('latin1', Math.max(0, bytes.lastIndexOf('<<', at)), keyword))) continue;
      let start = keyword + STREAM.length;
      if (bytes[start] === 0x0d) start++;
      if (bytes[start] === 0x0a) start++;
      const end = bytes.indexOf(ENDSTREAM, start);
      if (end < 0) continue;
      let inflated: number;
      try {
        inflated = inflateSync(bytes.subarray(start, end), { maxOutputLength: Math.min(budget.stream, budget.total - total) + 1 }).length;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
          return `a compressed stream inflates to more than ${Math.round(Math.min(budget.stream, budget.total - total) / 1024 / 1024)} MB (a decompression bomb)`;
        }
        continue; // Not valid deflate: the parser decides what that means.
      }
      total += inflated;
      if (inflated > budget.stream || total > budget.total) return `compressed streams inflate to more than the ${Math.round(budget.total / 1024 / 1024)} MB accepted (a decompression bomb)`;
      at = end;
    }
  }
  return null;
}
