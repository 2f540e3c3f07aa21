import { invalid } from '../shared/domain-error';

/** A field's place: its part (absent: 0), its page within the part, and its box in percent of the page. */
export interface PlacedBox {
  part?: number;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * How much of the smaller of two fields the other may cover: half its area. Touching and adjacent
 * fields (the boxes of a radio group side by side, a date right under its signature) share no area
 * and always pass; a small overlap passes too, because Korean contracts stamp the seal partly over
 * the printed name next to "(인)", and a field dropped a few pixels into its neighbour is not worth a
 * refusal. Past half, one field hides the other: the signer cannot tell which box they tap, and the
 * final PDF prints one value over the other. Measured against the smaller field so that a large
 * text box cannot swallow a small checkbox unnoticed (the checkbox is what disappears).
 */
export const MAX_FIELD_OVERLAP = 0.5;

/** The share (0 to 1) of the smaller box's area that the two boxes have in common; 0 on different pages. */
export function fieldOverlap(a: PlacedBox, b: PlacedBox): number {
  if ((a.part ?? 0) !== (b.part ?? 0) || a.page !== b.page) return 0;
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const smaller = Math.min(a.width * a.height, b.width * b.height);
  return smaller > 0 ? (w * h) / smaller : 0;
}

/**
 * The first field (in order) that covers an earlier one by more than MAX_FIELD_OVERLAP, as the
 * index of each, or null. `checked(i)` leaves out fields whose box is not known yet (a template's
 * anchored field before its anchor is found).
 */
export function firstFieldOverlap(fields: PlacedBox[], checked: (i: number) => boolean = () => true): { later: number; earlier: number; share: number } | null {
  // Bucketed by part and page: 500 fields on one page is 125,000 pairs, still instant.
  const byPage = new Map<string, number[]>();
  for (let i = 0; i < fields.length; i++) {
    if (!checked(i)) continue;
    const key = `${fields[i].part ?? 0}:${fields[i].page}`;
    const earlier = byPage.get(key) ?? [];
    for (const j of earlier) {
      const share = fieldOverlap(fields[j], fields[i]);
      if (share > MAX_FIELD_OVERLAP) return { later: i, earlier: j, share };
    }
    earlier.push(i);
    byPage.set(key, earlier);
  }
  return null;
}

/**
 * Refuses a field set in which a field covers another by more than half of the smaller one's area
 * (400 field_overlap), naming the later field in `param` (`fields[3]`) and the one it covers in the
 * message, so an editor can show the refusal next to the field that was just dropped.
 */
export function validateFieldOverlaps(fields: PlacedBox[], checked?: (i: number) => boolean): void {
  const hit = firstFieldOverlap(fields, checked);
  if (!hit) return;
  const { later, earlier, share } = hit;
  // No page number in the message: with parts the decider sees pages within a part, the integrator
  // wrote them across the document; the two indexes say enough.
  throw invalid(
    'field_overlap',
    `fields[${later}] covers ${Math.round(share * 100)}% of fields[${earlier}] on the same page; two fields may share at most ${MAX_FIELD_OVERLAP * 100}% of the smaller one's area: move or resize one of them.`,
    `fields[${later}]`,
  );
}
