import { findTextAnchors, type TextAnchorResult } from '../anchors';
import type { FindAnchorsInput } from './pdf-jobs';

/** Anchor texts located in a PDF (uploaded or rendered): see anchors.ts. */
export default function findAnchorsJob(input: FindAnchorsInput): Promise<TextAnchorResult[]> {
  return findTextAnchors(input.pdf, input.queries);
}
