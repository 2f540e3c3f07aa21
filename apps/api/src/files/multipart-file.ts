import { Request } from 'express';
import { Readable, Writable } from 'stream';
import { withoutBidiControls } from '@dojang/domain';
import { ApiError } from '../shared/api-error';

/** The busboy types we use (busboy ships none; it is the parser inside multer). */
interface BusboyFileInfo {
  filename: string | undefined;
  encoding: string;
  mimeType: string;
}
type FileStream = Readable & { truncated?: boolean };
type BusboyFactory = (config: {
  headers: Request['headers'];
  defParamCharset?: string;
  limits?: { fileSize?: number; files?: number; fields?: number; parts?: number; fieldSize?: number; headerPairs?: number };
}) => Writable;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const busboy: BusboyFactory = require('busboy');

export interface UploadedFilePart {
  bytes: Buffer;
  /** The client's file name, sanitised; null when it sent none. */
  filename: string | null;
  /** What the client claimed; never trusted (the bytes decide), kept for messages only. */
  mime_type: string;
  /** The text fields sent with the file (first value of each name), for operations that take some. */
  fields: Record<string, string>;
}

export interface ReadFilePartOptions {
  /** The multipart part holding the file. */
  field: string;
  /** Larger files are refused with 413 as soon as this many bytes have been exceeded. */
  maxBytes: number;
  /** A human form of maxBytes for the error message. */
  maxLabel: string;
  /** What the operation takes, for messages (default "a PDF"). */
  what?: string;
  /**
   * Checks the text fields sent before the file part when it starts (before any of its bytes count
   * against maxBytes): a request that names the wrong target is refused for that, not for a size
   * limit that was never its own.
   */
  checkFields?: (fields: Readonly<Record<string, string>>) => ApiError | null;
}

/** Room for boundaries, part headers and a few small text fields around the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

export function fileTooLarge(opts: ReadFilePartOptions): ApiError {
  return new ApiError(
    413,
    'invalid_request_error',
    'file_too_large',
    `The file is larger than ${opts.maxLabel} (${opts.maxBytes.toLocaleString('en-US')} bytes); upload ${opts.what ?? 'a PDF'} of at most ${opts.maxLabel}.`,
    opts.field,
  );
}

function unreadable(opts: ReadFilePartOptions, err: Error): ApiError {
  return ApiError.invalid(opts.field, `The multipart body cannot be read: ${err.message}.`);
}

function missingFile(opts: ReadFilePartOptions): ApiError {
  return ApiError.missing(opts.field, `Send ${opts.what ?? 'the PDF'} as multipart/form-data in a part named "${opts.field}".`);
}

/** Strips any path, control characters and excess length from a client-supplied file name. */
export function sanitizeFilename(name: string | undefined): string | null {
  if (!name) return null;
  const base = name.normalize('NFC').split(/[\\/]/).pop() ?? '';
  // Bidirectional controls too: `evil\u202egnp.exe` reads as "evilexe.png" wherever it is shown.
  const clean = withoutBidiControls(base.replace(/[\u0000-\u001f\u007f]/g, '')).replace(/\s+/g, ' ').trim();
  return Array.from(clean).slice(0, 200).join('') || null;
}

/**
 * Reads one file part of a multipart/form-data request into memory, counting bytes as they arrive:
 * the moment the file passes `maxBytes` the promise rejects with 413 (so the API answers before the
 * client has finished sending), parsing stops, and the rest of the body is discarded unread. At most
 * `maxBytes` are ever held. Anything but the named file part is skipped.
 */
export function readFilePart(req: Request, opts: ReadFilePartOptions): Promise<UploadedFilePart> {
  return new Promise<UploadedFilePart>((resolve, reject) => {
    const contentType = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\s*;/i.test(contentType)) {
      reject(missingFile(opts));
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > opts.maxBytes + MULTIPART_OVERHEAD) {
      // Known too large from the header alone: refuse without reading a byte.
      discardRest(req);
      reject(fileTooLarge(opts));
      return;
    }

    let parser: Writable;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        // busboy reports 'limit' on reaching fileSize, so one byte more means "over maxBytes".
        limits: { fileSize: opts.maxBytes + 1, files: 4, fields: 32, parts: 40, fieldSize: 64 * 1024, headerPairs: 64 },
      });
    } catch (err) {
      reject(ApiError.invalid(opts.field, `The multipart body cannot be read: ${(err as Error).message}.`));
      return;
    }

    let settled = false;
    const fields: Record<string, string> = {};
    let part: { chunks: Buffer[]; size: number; filename: string | null; mime_type: string } | null = null;

    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      if (part) part.chunks = [];
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      discardRest(req);
      reject(error);
    };

    parser.on('file', (name: string, stream: FileStream, info: BusboyFileInfo) => {
      stream.on('limit', () => fail(fileTooLarge(opts)));
      // busboy fails the open file part with the parser's own error (a body that ends before the
      // closing boundary) before the parser reports it: the client's fault either way.
      stream.on('error', (err: Error) => fail(unreadable(opts, err)));
      if (settled || name !== opts.field) {
        stream.resume();
        return;
      }
      if (part) {
        stream.resume();
        fail(ApiError.invalid(opts.field, `Send exactly one file in the "${opts.field}" part.`));
        return;
      }
      const refused = opts.checkFields?.(fields) ?? null;
      if (refused) {
        stream.resume();
        fail(refused);
        return;
      }
      const current = { chunks: [] as Buffer[], size: 0, filename: sanitizeFilename(info.filename), mime_type: info.mimeType };
      part = current;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        current.chunks.push(chunk);
        current.size += chunk.length;
      });
    });
    parser.on('field', (name: string, value: string) => {
      if (name !== opts.field && typeof value === 'string' && !(name in fields)) fields[name] = value;
      if (name === opts.field) fail(ApiError.invalid(opts.field, `"${opts.field}" must be a file part (a Content-Disposition with a filename), not a text field.`));
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () => fail(ApiError.invalid(opts.field, 'The multipart body has too many parts.')));
    }
    parser.on('error', (err: Error) => fail(unreadable(opts, err)));
    parser.on('close', () => {
      if (settled) return;
      if (!part) {
        fail(missingFile(opts));
        return;
      }
      settled = true;
      resolve({ bytes: Buffer.concat(part.chunks, part.size), filename: part.filename, mime_type: part.mime_type, fields });
    });
    req.on('aborted', () => fail(new Error('the client aborted the upload')));
    req.on('error', (err) => fail(err));
    req.pipe(parser);
  });
}

/**
 * Throws away whatever the client still sends, without keeping it, so the client (Node's fetch
 * writes its whole body before it reads) can read the refusal. The refusal's answer bounds this:
 * it says `Connection: close`, and the connection is closed after a bounded read-off
 * (shared/refused-body.ts, for every early answer alike).
 */
function discardRest(req: Request): void {
  if (req.complete) return;
  req.resume();
}
