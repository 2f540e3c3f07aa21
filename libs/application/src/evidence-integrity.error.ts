/**
 * A stored blob whose bytes no longer hash to the address it was stored under: evidence was
 * altered (or rotted) on disk. Serving it would hand out a PDF the log does not vouch for.
 */
export class EvidenceIntegrityError extends Error {
  constructor(
    readonly sha256: string,
    readonly actual: string,
  ) {
    super(`blob ${sha256} fails its integrity check: its bytes hash to ${actual}`);
    this.name = 'EvidenceIntegrityError';
  }
}
