import { findTextLines } from '../anchors';
import type { Bytes } from './pdf-jobs';

/** The baselines of each page's text lines in a PDF (uploaded or rendered): see anchors.ts. */
export default function findTextLinesJob(pdf: Bytes): Promise<number[][]> {
  return findTextLines(pdf);
}
