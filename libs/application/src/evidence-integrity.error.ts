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

/**
 * Evidence the log or the blob store must hold is gone: a concluded document whose certification
 * (`DocumentCertified`) was removed, or a recorded file missing from the blob store. Remaking it now
 * would vouch for a log nobody can show was the one certified, so evidence reads refuse instead and
 * name what is missing (issue 31 item 7).
 */
export class EvidenceIncompleteError extends Error {
  constructor(readonly missing: string) {
    super(`evidence incomplete: ${missing}`);
    this.name = 'EvidenceIncompleteError';
  }
}
