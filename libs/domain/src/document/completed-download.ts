import { DocumentState } from './document.state';

/**
 * How long a participant's link serves the signed PDF after completion. The link is a bearer
 * credential that sits in an SMS inbox; the copy is meant to be saved, not fetched for years.
 */
export const COMPLETED_DOWNLOAD_DAYS = 30;

/** Until when the completed document can be downloaded through a participant's link; null before completion. */
export function downloadAvailableUntil(state: Pick<DocumentState, 'status' | 'completed_at'>): string | null {
  if (state.status !== 'completed' || !state.completed_at) return null;
  return new Date(Date.parse(state.completed_at) + COMPLETED_DOWNLOAD_DAYS * 24 * 60 * 60 * 1000).toISOString();
}
