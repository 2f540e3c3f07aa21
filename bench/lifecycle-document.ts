import { DOCUMENT_BUDGETS } from '../libs/pdf/src';

/**
 * The contract the lifecycle bench creates, as the render job receives it: the profiles render the
 * same document so that their numbers add up to the bench's.
 */
export function lifecycleDocumentInput(i: number) {
  return {
    title: `근로계약서 ${i}`,
    content: '<h1>근로계약서</h1><p>갑과 을은 다음과 같이 근로계약을 체결한다.</p>',
    format: 'html' as const,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString(),
    max_pages: DOCUMENT_BUDGETS.max_pages,
    max_image_pixels: DOCUMENT_BUDGETS.max_image_pixels,
  };
}
