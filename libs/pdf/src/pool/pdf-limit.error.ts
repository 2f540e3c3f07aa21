/**
 * A PDF job passed one of its limits, or a document passed one of its budgets. The API answers it
 * with 413 in the error envelope (`code`, and `limit` named in the message); nothing is written,
 * because every job runs before the command that would record its result.
 */
export type PdfLimit = 'time' | 'memory' | 'pages' | 'image_pixels' | 'images' | 'layout';

export const PDF_LIMIT_CODES = {
  /** A job was stopped: it ran past its time limit or its worker's heap limit. */
  pdf_job_limit_exceeded: 'The PDF work for this request passed a limit of the service.',
  /** The document's content is over a per-document budget (images, pixels, pages, text to lay out). */
  document_budget_exceeded: "The document's content is over a per-document budget.",
} as const;
export type PdfLimitCode = keyof typeof PDF_LIMIT_CODES;

export class PdfLimitError extends Error {
  constructor(
    readonly code: PdfLimitCode,
    readonly limit: PdfLimit,
    message: string,
    /** The request parameter at fault, when there is one (`content`). */
    readonly param?: string,
  ) {
    super(message);
    this.name = 'PdfLimitError';
  }
}

/** By name too: jest gives each test file its own copy of the class. */
export function isPdfLimitError(err: unknown): err is PdfLimitError {
  return err instanceof PdfLimitError || (err as Error | undefined)?.name === 'PdfLimitError';
}

/**
 * What a handler returns instead of throwing when its input is over a budget: an Error crossing
 * the worker boundary keeps only its message, so the refusal travels as data.
 */
export interface PdfJobRefusal {
  refused: { limit: PdfLimit; message: string; param?: string };
}

export function isRefusal(value: unknown): value is PdfJobRefusal {
  return typeof value === 'object' && value !== null && 'refused' in value;
}
