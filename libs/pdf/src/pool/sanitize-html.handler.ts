import { sanitizeContentHtml } from '../sanitize-content-html';
import type { SanitizeHtmlInput } from './pdf-jobs';

/** A contract body's HTML through the renderer's allow-list (sanitize-html walks a parsed tree: CPU). */
export default function sanitizeHtmlJob(input: SanitizeHtmlInput): string {
  return sanitizeContentHtml(input.html);
}
